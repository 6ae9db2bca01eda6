/// A JSONPath query needed to hold more of the document in memory than
/// ``JSONRecordOptions/maxBufferedBytes`` allows.
///
/// Most queries stream in bounded memory: what they keep is the selected value, or a filter's
/// candidate. Three kinds of query must first see a whole value before they can answer: an index
/// or slice that counts from the end of an array (`[-1]`, `[-3:]`, `[::-1]`) buffers the array;
/// ``JSONRecordOptions/Order/rfc`` buffers the value a union or a descendant segment applies to;
/// an absolute query inside a filter (`[?@.price < $.limit]`) buffers the document. Rather than
/// grow without bound, such a buffer ends the stream with this error past the limit.
public struct JSONPathBufferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The query that needed the buffer.
    public let query: String
    /// Where the buffered value starts.
    public let path: JSONPath
    /// Why it is buffered, in words.
    public let reason: String
    /// The limit that was passed, in bytes (or, for a query that selects too many values within
    /// one value, in values).
    public let limit: Int
    /// Whether the limit counts values selected within one value, not bytes.
    let countsValues: Bool

    init(query: String, path: JSONPath, reason: String, limit: Int, countsValues: Bool = false) {
        self.query = query
        self.path = path
        self.reason = reason
        self.limit = limit
        self.countsValues = countsValues
    }

    /// The whole message, with the option to change.
    public var description: String {
        if countsValues {
            return "\(query) selects more than \(limit) values within the value at \(path.abbreviated()) "
                + "(RFC 9535 counts a node once per way of reaching it): narrow the query"
        }
        return "\(query) needs the value at \(path.abbreviated()) in memory (\(reason)), and it is larger than "
            + "\(limit) bytes: raise JSONRecordOptions.maxBufferedBytes (yajl extract --max-buffered-bytes), "
            + "or select it without that"
    }
}
