/// JSON string escaping over raw UTF-8, shared by the writers of this package: the one place
/// that knows how `yajl_gen` escapes.
package enum JSONEscaping {
    private static let hex: StaticString = "0123456789ABCDEF"  // uppercase, as yajl_gen writes them

    /// Appends `utf8` as a JSON string literal, quoted and escaped as `yajl_gen` does: `"`, `\`,
    /// `\b \f \n \r \t`, other control characters as `\u00XX` (upper case), everything else
    /// (including non-ASCII UTF-8) as is. Runs without escapes are copied whole, found 16 bytes at
    /// a time (``firstQuoteBackslashOrControl(_:_:from:)``).
    package static func appendQuoted(_ utf8: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let count = utf8.count
        var runStart = 0
        var index = 0
        if let bytes = utf8.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            while true {
                index = firstQuoteBackslashOrControl(bytes, count, from: index)
                if index == count { break }
                let byte = bytes[index]
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
                index &+= 1
                runStart = index
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                default:
                    output.append(UInt8(ascii: "u"))
                    output.append(UInt8(ascii: "0"))
                    output.append(UInt8(ascii: "0"))
                    output.append(hex.utf8Start[Int(byte >> 4)])
                    output.append(hex.utf8Start[Int(byte & 0xF)])
                }
            }
        }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart...]))
        output.append(UInt8(ascii: "\""))
    }

    /// The length of ``appendQuoted(_:to:)``'s output for `utf8`.
    package static func quotedLength(_ utf8: UnsafeRawBufferPointer) -> Int {
        var length = utf8.count + 2
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: length += 1
            default: length += 5
            }
        }
        return length
    }

    /// `text` with control characters shown as escapes (`\n`, `\u{1b}`), cut after `limit`
    /// scalars (marked `…`), for error messages and excerpts: a message never prints a raw
    /// control character.
    package static func printable(_ text: String, limit: Int = .max) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? result + "…" : result
    }
}
