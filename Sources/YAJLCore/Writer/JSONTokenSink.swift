/// Where a JSON value is written token by token: ``JSONWriter`` (over `yajl_gen`: indentation,
/// state checks, a byte sink) or ``MinifiedEmitter`` (bytes in an array, for ``JSONFragment`` and
/// ``JSONValue/description``).
///
/// The two representations of a captured value each have one walk that writes to any sink:
/// ``JSONValue/write(to:)`` over the tree and ``TapeView/write(_:to:)`` over the tape. Punctuation
/// (commas, colons, brackets) and escaping live in the sinks, once.
protocol JSONTokenSink {
    /// What the sink's writes can throw (`Never` for the emitter).
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

/// Minified JSON into a byte array: numbers as written, strings escaped as `yajl_gen` escapes
/// them (``JSONEscaping``), a comma between values and a colon after each key.
struct MinifiedEmitter: JSONTokenSink {
    typealias Failure = Never

    /// The JSON written so far.
    private(set) var output: [UInt8] = []
    /// Whether the next value or key follows another one at its level.
    private var needsComma = false

    /// An emitter whose output is allocated once for `capacity` bytes.
    init(capacity: Int = 0) { output.reserveCapacity(capacity) }

    @inline(__always)
    private mutating func separate() {
        if needsComma { output.append(UInt8(ascii: ",")) }
    }

    @inline(__always)
    private mutating func scalar(_ bytes: some Sequence<UInt8>) {
        separate()
        output.append(contentsOf: bytes)
        needsComma = true
    }

    mutating func startObject() {
        separate()
        output.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        output.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func startArray() {
        separate()
        output.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        output.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func key(_ key: String) {
        var key = key
        key.withUTF8 { self.key(utf8: UnsafeRawBufferPointer($0)) }
    }

    mutating func key(utf8: UnsafeRawBufferPointer) {
        separate()
        JSONEscaping.appendQuoted(utf8, to: &output)
        output.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    mutating func string(utf8: UnsafeRawBufferPointer) {
        separate()
        JSONEscaping.appendQuoted(utf8, to: &output)
        needsComma = true
    }

    mutating func number(_ value: JSONNumber) { scalar(value.text.utf8) }
    mutating func number(validatedText text: UnsafeRawBufferPointer) {
        separate()
        output.append(contentsOf: text)
        needsComma = true
    }
    mutating func bool(_ value: Bool) { scalar(value ? "true".utf8 : "false".utf8) }
    mutating func null() { scalar("null".utf8) }
}
