/// Minified output written in Swift, byte for byte what `yajl_gen` writes without beautify: a
/// comma between values, a colon after each key, strings escaped as YAJL escapes them (`"`, `\`,
/// control characters as `\n` or `\u00XX` in upper case, `/` with `escapesSolidus`), numbers as
/// their text, a separator printed at once by ``reset(separator:)``.
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
    private static let hex: StaticString = "0123456789ABCDEF"

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

    @inline(__always)
    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        UnsafeMutableRawPointer(storage.base + count).copyMemory(from: source, byteCount: bytes.count)
        count &+= bytes.count
    }

    func open(_ bracket: UInt8) {
        reserve(2)
        if needsComma { put(UInt8(ascii: ",")) }
        put(bracket)
        needsComma = false
    }

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

    /// A comma if needed, then `utf8` quoted and escaped; room for `extra` more bytes after it.
    @inline(__always)
    private func quoted(_ utf8: UnsafeRawBufferPointer, extra: Int) {
        // At most six bytes per input byte (\u00XX), the quotes and a comma.
        reserve(utf8.count * 6 + 3 + extra)
        if needsComma { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            guard
                byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    || (escapesSolidus && byte == UInt8(ascii: "/"))
            else {
                index &+= 1
                continue
            }
            put(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            index &+= 1
            runStart = index
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(byte)
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x08: put(UInt8(ascii: "b"))
            case 0x0C: put(UInt8(ascii: "f"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(Self.hex.utf8Start[Int(byte >> 4)])
                put(Self.hex.utf8Start[Int(byte & 0xF)])
            }
        }
        put(UnsafeRawBufferPointer(rebasing: utf8[runStart...]))
        put(UInt8(ascii: "\""))
    }

    /// A scalar written as its text (a number, `true`, `false`, `null`).
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
