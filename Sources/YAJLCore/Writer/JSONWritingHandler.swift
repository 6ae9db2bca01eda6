/// Re-emits parse events to a ``JSONWriter``: parse then write. Strings and keys are passed as
/// bytes and numbers as their original text, so a minified document comes out byte for byte as
/// YAJL's own `json_reformat -m` writes it. Strings are checked as UTF-8 once: by the parser when
/// its ``JSONParser/Options/validatesUTF8`` is on, else by the writer (its own option).
public final class JSONWritingHandler: JSONEventHandler {
    /// The writer the events go to.
    public let writer: JSONWriter

    /// A handler that writes every event it receives to `writer`.
    public init(writer: JSONWriter) { self.writer = writer }

    // Each method inlines the writer's call (itself inlined), so that the witness the parser calls
    // is the whole path down to the output buffer: one call per event instead of three.
    @inline(__always)
    public func startObject(context: JSONEventContext) throws { try writer.startObject() }
    @inline(__always)
    public func endObject(context: JSONEventContext) throws { try writer.endObject() }
    @inline(__always)
    public func startArray(context: JSONEventContext) throws { try writer.startArray() }
    @inline(__always)
    public func endArray(context: JSONEventContext) throws { try writer.endArray() }
    @inline(__always)
    public func key(_ key: JSONStringView, context: JSONEventContext) throws {
        // Bytes the parser already checked as UTF-8 are not checked again (the writer's
        // `validatesUTF8` guards bytes of unknown origin).
        if context.stringsAreValidUTF8 {
            try writer.key(validUTF8: key.bytes)
        } else {
            try writer.key(utf8: key.bytes)
        }
    }
    @inline(__always)
    public func string(_ value: JSONStringView, context: JSONEventContext) throws {
        if context.stringsAreValidUTF8 {
            try writer.string(validUTF8: value.bytes)
        } else {
            try writer.string(utf8: value.bytes)
        }
    }
    @inline(__always)
    public func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        try writer.number(validatedText: value.bytes)
    }
    @inline(__always)
    public func bool(_ value: Bool, context: JSONEventContext) throws { try writer.bool(value) }
    @inline(__always)
    public func null(context: JSONEventContext) throws { try writer.null() }
}
