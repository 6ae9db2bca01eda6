/// Whole values inside a streamed document: a ``JSONValue`` or an `Encodable` where a value may
/// come, so that `{"meta":…,"results":[…]}` is written with one writer.
///
/// ```swift
/// let writer = JSONWriter(to: .standardOutput)
/// try writer.startObject()
/// try writer.key("meta")
/// try writer.encode(meta)                       // an Encodable
/// try writer.key("results")
/// try writer.startArray()
/// let records = JSONRecordWriter<User>(into: writer)
/// for user in users { try records.write(user) }
/// try writer.endArray()
/// try writer.endObject()
/// try writer.finish()
/// ```
extension JSONWriter {
    /// Writes `value` where a value may come (numbers exactly as their text).
    /// - Throws: ``JSONWriterError`` where a value is not allowed.
    public func write(_ value: JSONValue) throws {
        // Through the checked calls: the value is the caller's, placed where the caller says.
        switch value {
        case .null: try null()
        case .bool(let flag): try bool(flag)
        case .number(let number): try self.number(number)
        case .string(let text): try string(text)
        case .array(let elements):
            try startArray()
            for element in elements { try write(element) }
            try endArray()
        case .object(let object):
            try startObject()
            for member in object.members {
                try key(member.key)
                try write(member.value)
            }
            try endObject()
        }
    }

    /// Encodes `value` where a value may come, with the same strategies as ``JSONRecordWriter``.
    /// - Throws: ``JSONWriterError`` where a value is not allowed, or what `encode(to:)` throws.
    public func encode<T: Encodable>(
        _ value: T,
        options: JSONRecordEncodingOptions = JSONRecordEncodingOptions()
    ) throws {
        try checkValueAllowed("a \(T.self) value")
        try StreamingEncoder(writer: self, options: options).encodeValue(value, at: .root)
    }
}
