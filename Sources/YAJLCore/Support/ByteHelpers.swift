private import CYAJL

/// Small byte and text helpers shared by the stages: ASCII classes, JSON white space, a byte
/// comparison and a short copy that call no libc function, zero padding, short strings made
/// without a validation pass.

extension UInt8 {
    var isASCIILetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
    var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    /// JSON's white space (RFC 8259): space, tab, line feed, carriage return.
    var isJSONWhiteSpace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

extension StringProtocol {
    /// The text without the ASCII white space (space, tab, CR, LF, VT, FF) at either end: what
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` does to protocol text.
    package func trimmingASCIIWhitespace() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        let text = String(self)
        guard let first = text.utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = text.utf8.lastIndex(where: { !isSpace($0) })!
        return String(text[first...last])
    }
}

extension String {
    /// The text with `pad` in front up to `width` characters (unchanged when already as wide).
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// The high bit of each byte of `word` that is below `limit` (1 to 128; 1 marks the zero bytes):
/// exact up to the lowest such byte, so the trailing zero count finds the first one in a
/// little-endian word (a borrow can mark bytes above it, never below). The eight-bytes-a-step test
/// of the scanners (``firstQuoteBackslashOrControl(_:_:from:)`` writes it out: see there).
@inline(__always)
func bytesBelow(_ limit: UInt8, in word: UInt64) -> UInt64 {
    (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080
}

/// The index of the first `"`, `\` or control byte from `start`, or `count`: where a JSON string
/// stops being copied as is (the scanner's strings, the minifier's escaping); 16 bytes at a
/// time in C (`cyajl_skip_string_blocks`, SSE2) while 16 remain, then eight at a time while
/// eight remain. Each test of a word finds the bytes it looks for exactly up to the first one
/// (a borrow only marks bytes above it), so the lowest mark is the first such byte. The three
/// tests are ``bytesBelow(_:in:)`` written out with one mask: calling it here compiled
/// `scanValues` 2% longer (`yajl validate` on 16 MiB of records, 272.8M → 278.1M instructions).
@inline(__always)
func firstQuoteBackslashOrControl(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var index = cyajl_skip_string_blocks(bytes, count, start)
    if count &- index >= 16 { return index }
    while count &- index >= 8 {
        let word = UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let found =
            ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
            | ((word &- ones &* 0x20) & ~word)
        let marks = found & highs
        if marks != 0 { return index &+ marks.trailingZeroBitCount >> 3 }
        index &+= 8
    }
    while index < count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
        index &+= 1
    }
    return count
}

/// Whether `count` bytes at `a` and `b` are equal (no `memcmp` call, no allocation). Up to 16
/// bytes (nearly every key) take two loads from each side that overlap in the middle, as
/// ``copyBytes(to:from:count:)`` does; longer runs go eight bytes at a time.
@usableFromInline
func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    let a = UnsafeRawPointer(a)
    if count >= 8 {
        if count <= 16 {
            return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        }
        var i = 0
        while i &+ 8 <= count {
            guard
                a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            else { return false }
            i &+= 8
        }
        return a.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    }
    if count >= 4 {
        return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
            && a.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
                == b.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
    }
    if count > 0 {
        // 1 to 3 bytes: the first, the middle and the last (some of them the same byte).
        return a.load(as: UInt8.self) == b.load(as: UInt8.self)
            && a.load(fromByteOffset: count >> 1, as: UInt8.self) == b.load(fromByteOffset: count >> 1, as: UInt8.self)
            && a.load(fromByteOffset: count &- 1, as: UInt8.self) == b.load(fromByteOffset: count &- 1, as: UInt8.self)
    }
    return true
}

/// Copies `count` bytes from `source` to `destination` (which must not overlap): `tape.h`'s short
/// copy, shared with the tape's writer. Up to 16 bytes take two loads and two stores that overlap
/// in the middle, without a call to `memcpy`: keys and most strings are that short, and the call
/// cost more than the copy (callgrind, records: 41M instructions in `memcpy` for 2.3M copies).
/// Never reads or writes outside the two ranges.
@inline(__always)
func copyBytes(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
    cyajl_copy_bytes(destination, source, count)
}

/// The text of `bytes` as a `String`, exactly as `String(decoding: bytes, as: UTF8.self)` makes
/// it (invalid UTF-8 repaired the same way), cheaper for short ASCII text, the usual key or value.
///
/// `String(decoding:)` validates every byte, checks again that they are ASCII, then copies them
/// into a small string: about 165 instructions for a short value (callgrind, records decoded on one
/// thread), most of what a `String` value costs. Up to 15 ASCII bytes are a small string, stored
/// inline in the `String`'s two words; ``SmallASCIIString`` writes those words directly (about 20
/// instructions). Longer or non-ASCII text goes the standard library's way.
@inline(__always)
func makeString(_ bytes: UnsafeRawBufferPointer) -> String {
    let count = bytes.count
    if count <= 15, let base = bytes.baseAddress, SmallASCIIString.isAvailable {
        let (low, high) = SmallASCIIString.words(base, count)
        if (low | high) & 0x8080_8080_8080_8080 == 0 { return SmallASCIIString.string(low, high, count: count) }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Small ASCII strings made from their bytes, in the standard library's own representation.
///
/// On 64-bit platforms a `String` of up to 15 UTF-8 bytes is two words holding the bytes in memory
/// order, the last byte holding the count and a discriminator (immortal, small, ASCII: `0xE0`), a
/// layout fixed by the standard library's ABI but not a public API. So it is checked once per
/// process, at first use, against strings the standard library makes itself: for every length from
/// 0 to 15 the bits must be the same, or ``isAvailable`` stays false and `String(decoding:)` is used.
enum SmallASCIIString {
    /// The top byte's high nibble for a small ASCII string.
    private static let discriminator: UInt64 = 0xE0

    /// Whether the representation was checked and matches (checked on the first call).
    @inline(__always)
    static var isAvailable: Bool {
        let state = cyajl_small_string_state()
        return state == 1 || (state == 0 && check())
    }

    /// The string of the ASCII bytes in `low` and `high` (see ``words(_:_:)``), `count` of them.
    @inline(__always)
    static func string(_ low: UInt64, _ high: UInt64, count: Int) -> String {
        unsafeBitCast((low, high | (discriminator | UInt64(truncatingIfNeeded: count)) << 56), to: String.self)
    }

    /// The `count` (≤ 15) bytes at `base` as two little-endian words, zero past the end: bytes 0–7
    /// and 8–14. Overlapping loads, never outside the bytes.
    @inline(__always)
    static func words(_ base: UnsafeRawPointer, _ count: Int) -> (UInt64, UInt64) {
        if count >= 8 {
            let low = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            guard count > 8 else { return (low, 0) }
            // The eight bytes ending at `count`; the ones past byte 7 are its top `count - 8`.
            let last = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
            return (low, last >> UInt64(truncatingIfNeeded: (16 &- count) &* 8))
        }
        if count >= 4 {
            let head = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let tail = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
            return (head | tail << UInt64(truncatingIfNeeded: (count &- 4) &* 8), 0)
        }
        var low: UInt64 = 0
        for index in 0..<count {
            low |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << UInt64(truncatingIfNeeded: index &* 8)
        }
        return (low, 0)
    }

    /// Checks the representation and records the answer for the process.
    @inline(never)
    private static func check() -> Bool {
        let matches = representationMatches()
        cyajl_set_small_string_state(matches ? 1 : 2)
        return matches
    }

    /// Whether ``string(_:_:count:)`` gives exactly the standard library's bits for ASCII text of
    /// every length from 0 to 15 (`package` for the tests).
    package static func representationMatches() -> Bool {
        guard MemoryLayout<String>.size == 16, UInt64(littleEndian: 1) == 1 else { return false }
        let sample = Array("Az09 ~!\"{}\u{7f}_.-/q".utf8)
        for count in 0...15 {
            let text = Array(sample[0..<count])
            let expected = String(decoding: text, as: UTF8.self)
            let (low, high) = count == 0 ? (0, 0) : text.withUnsafeBytes { words($0.baseAddress!, count) }
            let made = string(low, high, count: count)
            guard unsafeBitCast(made, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self),
                made == expected, made.utf8.count == count, made.hashValue == expected.hashValue
            else { return false }
        }
        return true
    }
}
