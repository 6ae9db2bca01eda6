/// Minified JSON text of a value known to be well formed (a record on the tape, a ``JSONValue``),
/// written by `yajl_gen` at any depth: the text of ``JSONFragment`` and ``JSONValue/description``.
///
/// One generator holds at most 127 open containers (YAJL's compiled-in `YAJL_MAX_DEPTH`). A
/// container deeper than that opens in a further generator: the full one first prints the
/// separator before it (an empty `yajl_gen_number`, which prints the comma or colon its state
/// calls for and records a value) and hands over its output, so the bytes stay in order. In
/// minified output a generator's state decides nothing but those separators, so the text is the
/// one a single generator without a limit would print. (``JSONWriter`` keeps the 127-level
/// limit: beautified output indents by depth, which a further generator does not know.)
///
/// No state checks: the walks that call it (``TapeView/write(_:to:)``,
/// ``JSONValue/write(to:)``) produce valid structure, and the tape's texts are valid UTF-8.
struct MinifiedText: JSONTokenSink {
    typealias Failure = Never

    /// The generators, outermost first: one per 127 levels of the value, kept for the next
    /// container at their level once theirs closes.
    private var generators: [YAJLGeneratorBridge]
    /// The index of the generator in use, and that generator.
    private var level = 0
    private var current: YAJLGeneratorBridge
    /// The output the generators hand their buffers to.
    private let chunks: OutputChunks
    /// Open containers in the generator in use.
    private var depth = 0

    init() {
        chunks = OutputChunks()
        current = Self.generator(chunks)
        generators = [current]
    }

    /// Allocates the next value's text for `bytes` (a value about to be written, when its length
    /// is known, or a lower bound of it).
    func reserve(_ bytes: Int) { chunks.reserve(bytes) }

    /// The text written, once the value is complete; then the next value may be written (the
    /// generators and their buffers are kept for it).
    mutating func finish() -> [UInt8] {
        current.drain(force: true)
        current.restart()
        return chunks.take()
    }

    private static func generator(_ chunks: OutputChunks) -> YAJLGeneratorBridge {
        YAJLGeneratorBridge(
            options: JSONWriter.Options(validatesUTF8: false),
            output: GeneratorOutput(sink: chunks, capacity: OutputChunks.size)
        )
    }

    /// Checks a generator call: with valid structure and no depth past the generator's, none fails.
    @inline(__always)
    private func done(_ status: YAJLGeneratorBridge.Status) {
        precondition(status == .ok, "yajl_gen refused a well-formed value: \(status)")
        current.drain()
    }

    /// Before a container opens: a full generator prints the separator, hands over its output and
    /// passes the container to a further generator.
    @inline(__always)
    private mutating func makeRoom() {
        guard depth == JSONWriter.maxDepth else { return }
        done(current.number(UnsafeRawBufferPointer(start: nil, count: 0)))
        current.drain(force: true)
        level += 1
        if level == generators.count { generators.append(Self.generator(chunks)) }
        current = generators[level]
        current.restart()
        depth = 0
    }

    /// After a container closes: a further generator whose outermost container closed hands over
    /// its output and gives way to the full one outside it.
    @inline(__always)
    private mutating func closed() {
        depth -= 1
        guard depth == 0, level > 0 else { return }
        current.drain(force: true)
        level -= 1
        current = generators[level]
        depth = JSONWriter.maxDepth
    }

    mutating func startObject() {
        makeRoom()
        done(current.openObject())
        depth += 1
    }

    mutating func endObject() {
        done(current.closeObject())
        closed()
    }

    mutating func startArray() {
        makeRoom()
        done(current.openArray())
        depth += 1
    }

    mutating func endArray() {
        done(current.closeArray())
        closed()
    }

    mutating func key(_ key: String) {
        var key = key
        key.withUTF8 { self.key(utf8: UnsafeRawBufferPointer($0)) }
    }

    mutating func key(utf8: UnsafeRawBufferPointer) { done(current.key(utf8)) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    mutating func string(utf8: UnsafeRawBufferPointer) { done(current.string(utf8)) }

    mutating func number(_ value: JSONNumber) {
        var text = value.text
        text.withUTF8 { number(validatedText: UnsafeRawBufferPointer($0)) }
    }

    mutating func number(validatedText text: UnsafeRawBufferPointer) { done(current.number(text)) }
    mutating func bool(_ value: Bool) { done(current.bool(value)) }
    mutating func null() { done(current.null()) }
}

/// The generators' output, in one array (allocated at the value's size when it was reserved);
/// past 64 KiB, a write that the array has no room for goes to a further array instead of growing
/// it, and the arrays are joined once at the end. So a large value is copied at most once more at
/// its size (an array that grew by doubling would peak at three times it).
private final class OutputChunks: JSONOutputSink {
    static let size = 64 << 10
    private var full: [[UInt8]] = []
    private var last: [UInt8] = []

    func reserve(_ bytes: Int) { last.reserveCapacity(bytes) }

    func write(_ bytes: UnsafeRawBufferPointer) {
        if last.count >= Self.size && last.count + bytes.count > last.capacity {
            full.append(last)
            last = []
        }
        last.append(contentsOf: bytes)
    }

    /// Everything written, joined; the chunks are then empty.
    func take() -> [UInt8] {
        defer {
            full = []
            last = []
        }
        if full.isEmpty { return last }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(full.reduce(last.count) { $0 + $1.count })
        for piece in full { bytes.append(contentsOf: piece) }
        bytes.append(contentsOf: last)
        return bytes
    }
}
