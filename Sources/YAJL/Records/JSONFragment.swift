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
