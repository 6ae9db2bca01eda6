private import CYAJL
private import CYAJLSupport

/// Small byte and text helpers shared by the stages: ASCII classes, JSON white space, a byte
/// comparison and a short copy that call no libc function, zero padding, strings from bytes.

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
/// of the scanners.
@inline(__always)
func bytesBelow(_ limit: UInt8, in word: UInt64) -> UInt64 {
    (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080
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

/// Copies `count` bytes from `source` to `destination` (which must not overlap): the tape writer's
/// short copy (CYAJLSupport.h). Up to 16 bytes take two loads and two stores that overlap in the
/// middle, without a call to `memcpy`: keys and most strings are that short, and the call costs
/// more than the copy. Never reads or writes outside the two ranges.
@inline(__always)
func copyBytes(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
    cyajl_copy_bytes(destination, source, count)
}

/// The text of `bytes` as a `String` (invalid UTF-8 repaired as `String(decoding:as:)` repairs it):
/// the one place where keys, string values and number text become `String`s. Up to 15 bytes are
/// stored inline in the `String` by the standard library; keys repeat, and ``KeyStringCache``
/// keeps the ones a decoding session made.
@inline(__always)
func makeString(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes, as: UTF8.self)
}
