/// The check of raw UTF-8 handed to ``JSONWriter`` (``JSONWriter/key(utf8:)``,
/// ``JSONWriter/string(utf8:)``) while ``JSONWriter/Options/validatesUTF8`` is on: Unicode's
/// strict definition (no overlong forms, no surrogates, nothing past U+10FFFF), decided by the
/// standard library's decoder after a run of ASCII is skipped.
enum RawUTF8Check {
    /// The offset of the first byte of the first ill-formed sequence; `nil` when all is valid.
    static func firstInvalidOffset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var offset = 0
        while offset < bytes.count && bytes[offset] < 0x80 { offset += 1 }
        guard offset < bytes.count else { return nil }
        var iterator = bytes[offset...].makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
