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
        // Visited with an explicit stack: no recursion, whatever the depth (the writer's own
        // depth limit applies).
        try value.walk { step in
            switch step {
            case .scalar(.bool(let flag)): try bool(flag)
            case .scalar(.number(let number)): try self.number(number)
            case .scalar(.string(let text)): try string(text)
            case .scalar: try null()
            case .key(let text): try key(text)
            case .startArray: try startArray()
            case .startObject: try startObject()
            case .endArray: try endArray()
            case .endObject: try endObject()
            }
        }
    }

    /// Encodes `value` where a value may come, as `JSONEncoder` encodes it, with the same
    /// strategies as ``JSONRecordWriter``.
    ///
    /// The value is encoded whole before any of it is written (an `Encodable` may come back to a
    /// container it wrote to), so memory grows with the value: for many records, write them one
    /// by one with ``JSONRecordWriter``. A value that fails to encode writes nothing.
    /// - Throws: ``JSONWriterError`` where a value is not allowed; `EncodingError` as
    ///   `JSONEncoder` throws it (a non-finite float, a value that encodes nothing, containers
    ///   nested deeper than the ``maxDepth`` left at this position); or what `encode(to:)` throws,
    ///   unchanged.
    public func encode<T: Encodable>(
        _ value: T,
        options: JSONRecordEncodingOptions = JSONRecordEncodingOptions()
    ) throws {
        try checkValueAllowed("a \(T.self) value")
        let tree = try EncodingContext.encode(value, options: options, maxDepth: Self.maxDepth - depth)
        try tree.write(to: self, sortedKeys: options.sortsKeys)
    }
}
