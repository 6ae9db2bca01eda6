/// Small byte and text helpers shared by the stages: ASCII classes, JSON white space, a byte
/// comparison that allocates nothing, zero padding.

extension UInt8 {
    var isASCIILetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
    var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    /// JSON's white space (RFC 8259): space, tab, line feed, carriage return.
    var isJSONWhiteSpace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Whether `count` bytes at `a` and `b` are equal (no `memcmp` call, no allocation).
@usableFromInline
func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    let b = b.assumingMemoryBound(to: UInt8.self)
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}
