/// Minified output written in Swift, byte for byte what `yajl_gen` writes without beautify: a
/// comma between values, a colon after each key, strings escaped as YAJL escapes them
/// (``JSONEscaping``, `/` too with `escapesSolidus`), numbers as their text, a separator printed at
/// once by ``reset(separator:)``.
///
/// ``YAJLGeneratorBridge`` uses it instead of `yajl_gen` for minified output without the UTF-8
/// check: YAJL's generator encodes strings a byte at a time and prints every comma through a
/// callback; this copies runs into one buffer. The writer's own state checks run before either,
/// so the order of calls is already valid here.
final class DirectMinifier {
    /// The bytes not yet handed to the sink: `storage[0..<count]`.
    @exclusivity(unchecked) private var storage: GrowableBuffer<UInt8>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var needsComma = false
    private let escapesSolidus: Bool

    init(capacity: Int, escapesSolidus: Bool) {
        storage = GrowableBuffer(capacity: capacity + 256)
        self.escapesSolidus = escapesSolidus
    }

    deinit { storage.deallocate() }

    /// The bytes written and not yet handed out.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.base, count: count) }

    /// Forgets the bytes handed out, keeping the storage.
    func removeAll() { count = 0 }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > storage.capacity { storage.grow(toAtLeast: count + extra) }
    }

    @inline(__always)
    private func put(_ byte: UInt8) {
        storage.base[count] = byte
        count &+= 1
    }

    /// Copies `bytes` (room reserved).
    @inline(__always)
    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        Self.copy(source, to: UnsafeMutableRawPointer(storage.base + count), count: bytes.count)
        count &+= bytes.count
    }

    /// Copies `n` bytes. Runs of 4 to 16 bytes (most numbers and unescaped runs of short strings)
    /// are two overlapping loads and stores, without a call to `memcpy`.
    @inline(__always)
    private static func copy(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count n: Int) {
        if n >= 8 && n <= 16 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
        } else {
            target.copyMemory(from: source, byteCount: n)
        }
    }

    @inline(__always)
    func open(_ bracket: UInt8) {
        reserve(2)
        if needsComma { put(UInt8(ascii: ",")) }
        put(bracket)
        needsComma = false
    }

    @inline(__always)
    func close(_ bracket: UInt8) {
        reserve(1)
        put(bracket)
        needsComma = true
    }

    func key(_ utf8: UnsafeRawBufferPointer) {
        quoted(utf8, extra: 1)
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    func string(_ utf8: UnsafeRawBufferPointer) {
        quoted(utf8, extra: 0)
        needsComma = true
    }

    /// A comma if needed, then `utf8` quoted and escaped (``JSONEscaping``); room for `extra`
    /// more bytes after it.
    @inline(__always)
    private func quoted(_ utf8: UnsafeRawBufferPointer, extra: Int) {
        // At most six bytes per input byte (\u00XX), the quotes and a comma.
        reserve(utf8.count * 6 + 3 + extra)
        if needsComma { put(UInt8(ascii: ",")) }
        var cursor = Cursor(base: storage.base, count: count)
        JSONEscaping.quote(utf8, escapingSolidus: escapesSolidus, into: &cursor)
        count = cursor.count
    }

    /// Writes into reserved room of the buffer.
    private struct Cursor: QuotedOutput {
        let base: UnsafeMutablePointer<UInt8>
        var count: Int

        @inline(__always)
        mutating func put(_ byte: UInt8) {
            base[count] = byte
            count &+= 1
        }

        @inline(__always)
        mutating func put(_ run: UnsafeRawBufferPointer) {
            guard let source = run.baseAddress, run.count > 0 else { return }
            DirectMinifier.copy(source, to: UnsafeMutableRawPointer(base + count), count: run.count)
            count &+= run.count
        }
    }

    /// A scalar written as its text (a number, `true`, `false`, `null`).
    @inline(__always)
    func scalar(_ text: UnsafeRawBufferPointer) {
        reserve(text.count + 1)
        if needsComma { put(UInt8(ascii: ",")) }
        put(text)
        needsComma = true
    }

    func scalar(_ text: StaticString) {
        scalar(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Starts a new top-level value: `separator` is written now.
    func reset(separator: String) {
        var separator = separator
        separator.withUTF8 { text in
            reserve(text.count)
            put(UnsafeRawBufferPointer(text))
        }
        needsComma = false
    }
}
