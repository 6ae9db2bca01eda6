/// Where a JSON value is written token by token, by `yajl_gen` either way: ``JSONWriter``
/// (indentation, state checks, a byte sink, at most 127 levels) or ``MinifiedText`` (a
/// well-formed value's minified bytes at any depth, for ``JSONFragment`` and
/// ``JSONValue/description``).
///
/// The two representations of a captured value each have one walk that writes to any sink:
/// ``JSONValue/write(to:)`` over the tree and ``TapeView/write(_:to:)`` over the tape. Punctuation
/// (commas, colons, brackets) and escaping are `yajl_gen`'s.
protocol JSONTokenSink {
    /// What the sink's writes can throw (`Never` for ``MinifiedText``).
    associatedtype Failure: Error

    mutating func startObject() throws(Failure)
    mutating func endObject() throws(Failure)
    mutating func startArray() throws(Failure)
    mutating func endArray() throws(Failure)
    mutating func key(_ key: String) throws(Failure)
    mutating func key(utf8: UnsafeRawBufferPointer) throws(Failure)
    mutating func string(_ value: String) throws(Failure)
    mutating func string(utf8: UnsafeRawBufferPointer) throws(Failure)
    /// A number, written as its text.
    mutating func number(_ value: JSONNumber) throws(Failure)
    /// Number text known to be valid (it came through YAJL's lexer).
    mutating func number(validatedText text: UnsafeRawBufferPointer) throws(Failure)
    mutating func bool(_ value: Bool) throws(Failure)
    mutating func null() throws(Failure)
}

extension JSONWriter: JSONTokenSink {
    typealias Failure = any Error
}
