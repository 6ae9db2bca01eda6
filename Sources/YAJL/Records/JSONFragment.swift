/// A selected value as minified JSON text: numbers exactly as written, strings re-escaped, keys in
/// document order. The fastest way to pass records through (to NDJSON, a queue, another tool):
/// with ``JSONRecordReader`` it is written straight from the recorded events, with no tree.
///
/// ```swift
/// let lines = try JSONRecordReader(JSONFragment.self, at: "$.results[*]", from: .file(path))
/// while let line = try lines.next() { output.write(line.bytes + [0x0A]) }
/// ```
public struct JSONFragment: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The minified JSON, UTF-8.
    public let bytes: [UInt8]

    /// Wraps minified JSON bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The JSON text.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Decodes through any decoder (slower than ``JSONRecordReader``'s direct path: via ``JSONValue``).
    public init(from decoder: any Decoder) throws {
        self.bytes = Array(try JSONValue(from: decoder).description.utf8)
    }
}

/// JSON string escaping over raw UTF-8, shared by the writers of this package.
public enum JSONEscaping {
    private static let hex = Array("0123456789ABCDEF".utf8)  // uppercase, as yajl_gen writes them

    /// Appends `utf8` as a JSON string literal: in quotes, with `"`, `\` and control characters
    /// escaped and everything else (including non-ASCII UTF-8) as is.
    public static func appendQuoted(_ utf8: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            output.append(contentsOf: utf8[runStart..<index])
            runStart = index + 1
            output.append(0x5C)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
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
        output.append(contentsOf: utf8[runStart...])
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
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? result + "…" : result
    }
}

extension TapeView {
    /// The value at `index` as minified JSON. A large value is measured first, so that its bytes
    /// are allocated once at their size (growing by doubling would peak at three times it).
    func minified(_ index: Int) -> [UInt8] {
        var output: [UInt8] = []
        if next(index) - index > 1 << 16 { output.reserveCapacity(minifiedLength(index)) }
        appendMinified(index, to: &output)
        return output
    }

    /// The length of ``appendMinified(_:to:)``'s output for the value at `index`.
    func minifiedLength(_ index: Int) -> Int {
        switch kind(index) {
        case .null: return 4
        case .bool: return bool(index) ? 4 : 5
        case .number: return text(index).count
        case .string, .key: return JSONEscaping.quotedLength(text(index))
        case .array, .object:
            // Brackets, a comma between values, a colon after each key.
            let end = end(index)
            var length = 2 + max(0, count(index) - 1), child = firstChild(index)
            while child < end {
                length += minifiedLength(child) + (kind(child) == .key ? 1 : 0)
                child = next(child)
            }
            return length
        }
    }

    /// Appends the value at `index` as minified JSON.
    func appendMinified(_ index: Int, to output: inout [UInt8]) {
        switch kind(index) {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool: output.append(contentsOf: bool(index) ? "true".utf8 : "false".utf8)
        case .number: output.append(contentsOf: text(index))
        case .string, .key: JSONEscaping.appendQuoted(text(index), to: &output)
        case .array:
            output.append(UInt8(ascii: "["))
            let first = firstChild(index), end = end(index)
            var child = first
            while child < end {
                if child > first { output.append(UInt8(ascii: ",")) }
                appendMinified(child, to: &output)
                child = next(child)
            }
            output.append(UInt8(ascii: "]"))
        case .object:
            output.append(UInt8(ascii: "{"))
            let first = firstChild(index), end = end(index)
            var child = first
            while child < end {
                if child > first { output.append(UInt8(ascii: ",")) }
                JSONEscaping.appendQuoted(text(child), to: &output)
                output.append(UInt8(ascii: ":"))
                let value = next(child)
                appendMinified(value, to: &output)
                child = next(value)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
