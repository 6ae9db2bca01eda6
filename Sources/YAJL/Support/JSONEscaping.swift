/// JSON string escaping over raw UTF-8, shared by the writers of this package.
package enum JSONEscaping {
    private static let hex = Array("0123456789ABCDEF".utf8)  // uppercase, as yajl_gen writes them

    /// Appends `utf8` as a JSON string literal: in quotes, with `"`, `\` and control characters
    /// escaped and everything else (including non-ASCII UTF-8) as is.
    package static func appendQuoted(_ utf8: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        appendQuoted(utf8, escapingSolidus: false, to: &output)
    }

    /// ``appendQuoted(_:to:)``, with `/` written as `\/` when `escapingSolidus` (YAJL's
    /// `yajl_gen_escape_solidus`).
    @inline(__always)
    package static func appendQuoted(_ utf8: UnsafeRawBufferPointer, escapingSolidus: Bool, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            guard
                byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    || (escapingSolidus && byte == UInt8(ascii: "/"))
            else {
                index &+= 1
                continue
            }
            // Runs are copied as raw buffers (one memcpy), not as slices (element by element).
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            index &+= 1
            runStart = index
            output.append(0x5C)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            default:
                output.append(UInt8(ascii: "u"))
                output.append(0x30)
                output.append(0x30)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
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
