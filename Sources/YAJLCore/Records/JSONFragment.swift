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

    /// Decodes the fragment as `T`, with the same decoder and strategies as ``JSONRecordReader``:
    /// how to read several paths as different types in one pass (read them as fragments, then
    /// decode each by its ``JSONRecord/queryIndex``).
    ///
    /// ```swift
    /// let reader = try JSONRecordReader(JSONFragment.self, at: ["$.meta", "$.results[*]"], from: source)
    /// while let record = try reader.nextRecord() {
    ///     if record.queryIndex == 0 { meta = try record.value.decode(Meta.self) }
    ///     else { users.append(try record.value.decode(User.self)) }
    /// }
    /// ```
    /// - Throws: ``JSONRecordDecodingError`` when it does not decode.
    public func decode<T: Decodable>(_ type: T.Type, options: JSONRecordDecodingOptions = .init()) throws -> T {
        var recordOptions = JSONRecordOptions()
        recordOptions.decoding = options
        recordOptions.parsesConcurrently = false
        let reader = try JSONRecordReader(T.self, at: "$", from: .bytes(bytes), options: recordOptions)
        guard let value = try reader.next() else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the fragment holds no JSON value")
            )
        }
        _ = try reader.next()  // anything after the value is an error
        return value
    }

    /// Decodes through any decoder (slower than ``JSONRecordReader``'s direct path: via ``JSONValue``).
    public init(from decoder: any Decoder) throws {
        self.bytes = Array(try JSONValue(from: decoder).description.utf8)
    }
}

extension TapeView {
    /// The value at `index` as minified JSON. A large value is measured first, so that its bytes
    /// are allocated once at their size (growing by doubling would peak at three times it).
    func minified(_ index: Int) -> [UInt8] {
        var emitter = MinifiedEmitter(capacity: next(index) - index > 1 << 16 ? minifiedLength(index) : 0)
        write(index, to: &emitter)
        return emitter.output
    }

    /// The length of ``minified(_:)``'s output for the value at `index`.
    func minifiedLength(_ index: Int) -> Int {
        switch kind(index) {
        case .null: return 4
        case .bool: return bool(index) ? 4 : 5
        case .number: return text(index).count
        case .string, .key: return JSONEscaping.quotedLength(text(index))
        case .array, .object:
            // Brackets, a comma between values, a colon after each key.
            let end = end(index)
            var length = 2 + max(0, count(index) - 1)
            var child = firstChild(index)
            while child < end {
                length += minifiedLength(child) + (kind(child) == .key ? 1 : 0)
                child = next(child)
            }
            return length
        }
    }

    /// Writes the value at `index` to `sink`, token by token.
    func write<Sink: JSONTokenSink>(_ index: Int, to sink: inout Sink) throws(Sink.Failure) {
        switch kind(index) {
        case .null: try sink.null()
        case .bool: try sink.bool(bool(index))
        case .number: try sink.number(validatedText: text(index))
        case .string: try sink.string(utf8: text(index))
        case .key: try sink.key(utf8: text(index))
        case .array, .object:
            let isObject = kind(index) == .object
            if isObject { try sink.startObject() } else { try sink.startArray() }
            let end = end(index)
            var child = firstChild(index)
            while child < end {
                try write(child, to: &sink)
                child = next(child)
            }
            if isObject { try sink.endObject() } else { try sink.endArray() }
        }
    }
}
