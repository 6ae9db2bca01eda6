/// A selected value as minified JSON text, written by `yajl_gen` at any depth: numbers exactly as
/// written, strings re-escaped, keys in document order. The fastest way to pass records through
/// (to NDJSON, a queue, another tool): with ``JSONRecordReader`` it is written straight from the
/// recorded events, with no tree.
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
    /// The value at `index` as minified JSON, written by `yajl_gen` through `text` (a decoding
    /// session keeps one, so that its generator is made once per reader, not once per record).
    /// A large value's bytes are allocated once, at their length without escapes.
    func minified(_ index: Int, using text: inout MinifiedText) -> [UInt8] {
        if next(index) - index > 1 << 16 { text.reserve(minifiedLengthWithoutEscapes(index)) }
        write(index, to: &text)
        return text.finish()
    }

    /// The length of the value at `index` as minified JSON, less whatever `yajl_gen` adds to
    /// escape its strings: the texts, quotes, colons, commas and brackets. One pass over its
    /// entries, which the tape holds in document order (no recursion, whatever the depth).
    func minifiedLengthWithoutEscapes(_ index: Int) -> Int {
        let end = next(index)
        var length = 0
        var entry = index
        while entry < end {
            switch kind(entry) {
            case .null: length += 4
            case .bool: length += bool(entry) ? 4 : 5
            case .number: length += text(entry).count
            case .string: length += text(entry).count + 2
            case .key: length += text(entry).count + 3  // its quotes and colon
            case .array, .object:
                // Brackets, and a comma between values.
                length += 2 + max(0, count(entry) - 1)
                entry = firstChild(entry)
                continue
            }
            entry = next(entry)
        }
        return length
    }

    /// Writes the value at `index` to `sink`, token by token: one pass over its entries, with
    /// the ends of the open containers on an explicit stack.
    func write<Sink: JSONTokenSink>(_ index: Int, to sink: inout Sink) throws(Sink.Failure) {
        let end = next(index)
        var open: [(end: Int, isObject: Bool)] = []
        var entry = index
        while true {
            while let top = open.last, top.end <= entry {
                open.removeLast()
                if top.isObject { try sink.endObject() } else { try sink.endArray() }
            }
            guard entry < end else { return }
            switch kind(entry) {
            case .null: try sink.null()
            case .bool: try sink.bool(bool(entry))
            case .number: try sink.number(validatedText: text(entry))
            case .string: try sink.string(utf8: text(entry))
            case .key: try sink.key(utf8: text(entry))
            case .array, .object:
                let isObject = kind(entry) == .object
                if isObject { try sink.startObject() } else { try sink.startArray() }
                open.append((self.end(entry), isObject))
                entry = firstChild(entry)
                continue
            }
            entry = next(entry)
        }
    }
}
