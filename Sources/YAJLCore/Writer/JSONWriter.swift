// Writer/: JSON out, all of it written by yajl_gen (the only file that calls the generator is
// YAJLGeneratorBridge): JSONWriter, MinifiedText (records' and trees' text at any depth), token
// and output sinks, Encodable records; calls Support/.

// About 330 lines: one type, the public writer, with a method and a state check per JSON token;
// the handler that forwards parse events and the token-sink walk live in their own files.

/// A streaming JSON writer over YAJL's generator (`yajl_gen`).
///
/// Output goes through a bounded buffer (64 KiB) to a ``JSONOutputSink`` as it fills, so a document
/// of any size is written in constant memory. Calls are checked against the writer's state, and a
/// misuse throws a ``JSONWriterError`` that names it (`a key where a value is expected`).
///
/// ```swift
/// let writer = JSONWriter(to: .standardOutput, options: .init(beautify: true))
/// try writer.startObject()
/// try writer.key("name"); try writer.string("Zürich")
/// try writer.key("n"); try writer.number(JSONNumber("1E+2")!)   // written exactly as "1E+2"
/// try writer.endObject()
/// try writer.finish()
/// ```
///
/// Limits: YAJL's generator nests at most 127 levels (its compiled-in `YAJL_MAX_DEPTH` is 128);
/// deeper input throws ``JSONWriterError/Kind/depthLimitExceeded``. Doubles are written in their
/// shortest round-trip form; non-finite doubles throw. Numbers that came from the parser
/// (``JSONNumber``, ``JSONNumberView``) are written from their original text, so nothing is rounded.
public final class JSONWriter {
    /// How the output looks.
    public struct Options: Sendable, Hashable {
        /// Indent and put each member and element on its own line. Default `false` (minified).
        public var beautify = false
        /// The indent for one level when beautifying. Default four spaces.
        public var indent = "    "
        /// Reject keys and strings given as raw UTF-8 (``JSONWriter/key(utf8:)``,
        /// ``JSONWriter/string(utf8:)``, a ``JSONFragment``) that are not valid UTF-8, with
        /// ``JSONWriterError/Kind/invalidString``. Default `true`. `String`s are valid by
        /// construction and never checked; turn this off only for bytes already checked, such as
        /// a parser's views with ``JSONParser/Options/validatesUTF8`` on.
        public var validatesUTF8 = true
        /// Write `/` as `\/` (`yajl_gen_escape_solidus`). Default `false`.
        public var escapesSolidus = false
        /// Bytes buffered before they go to the sink. Default 64 KiB.
        public var bufferSize = 64 << 10

        /// Options as given; see ``validate()`` for what is allowed.
        public init(
            beautify: Bool = false,
            indent: String = "    ",
            validatesUTF8: Bool = true,
            escapesSolidus: Bool = false
        ) {
            self.beautify = beautify
            self.indent = indent
            self.validatesUTF8 = validatesUTF8
            self.escapesSolidus = escapesSolidus
        }

        /// The longest ``indent`` accepted, in bytes.
        public static let maxIndentBytes = 64

        /// Checks the options: ``indent`` is white space only (spaces, tabs, newlines; YAJL refuses
        /// anything else) of at most ``maxIndentBytes`` bytes, and ``bufferSize`` is from 1 byte to
        /// 1 GiB.
        ///
        /// - Throws: ``JSONOptionError`` naming the first option out of range.
        public func validate() throws(JSONOptionError) {
            guard indent.utf8.count <= Self.maxIndentBytes, indent.utf8.allSatisfy(\.isJSONWhiteSpace) else {
                throw JSONOptionError(
                    option: "JSONWriter.Options.indent",
                    value: "\"\(MessageText.printable(indent, limit: 64))\"",
                    allowed: "white space only (spaces, tabs, newlines), at most \(Self.maxIndentBytes) bytes"
                )
            }
            guard (1...(1 << 30)).contains(bufferSize) else {
                throw JSONOptionError(
                    option: "JSONWriter.Options.bufferSize",
                    value: "\(bufferSize)",
                    allowed: "from 1 to 1073741824 (1 GiB)"
                )
            }
        }
    }

    /// The most containers YAJL's generator can have open: 127, one less than its compiled-in
    /// `YAJL_MAX_DEPTH` of 128 (it fails when the depth reaches that constant).
    public static let maxDepth = 127

    /// The options the writer was made with.
    public let options: Options
    private let generator: YAJLGeneratorBridge
    @exclusivity(unchecked) private var stack = OpenContainers()
    @exclusivity(unchecked) private var complete = false
    private var separator: String?
    /// Why ``options`` cannot be used; thrown by every call.
    private let optionsError: JSONOptionError?
    /// Whether every call fails: ``optionsError`` is set, or the sink failed (its error is kept by
    /// the generator's output). One flag for the per-token checks to test.
    @exclusivity(unchecked) private var halted: Bool

    /// A writer to `sink`.
    ///
    /// Options out of their ranges (see ``Options/validate()``) make every call throw a
    /// ``JSONOptionError``; nothing is written.
    public init(to sink: some JSONOutputSink, options: Options = Options()) {
        self.options = options
        var usable = options
        do {
            try options.validate()
            optionsError = nil
        } catch {
            optionsError = error
            usable = Options()
        }
        halted = optionsError != nil
        generator = YAJLGeneratorBridge(
            options: usable,
            output: GeneratorOutput(sink: sink, capacity: min(max(1, usable.bufferSize), 1 << 30))
        )
        if !(sink is MemoryOutputSink) { UnfinishedWriters.add(self, rank: 1) }
    }

    /// A writer dropped without ``finish()`` completes what it wrote, so that output never
    /// vanishes in its buffer or stops in the middle of a value: it closes every open container
    /// (a key still waiting for its value gets `null`) and hands its buffer to the sink. Errors
    /// cannot be thrown from here and are lost: call ``finish()`` to see them. A writer whose
    /// options or sink failed writes nothing more, nor does one after ``abandon()``.
    /// The same happens at a normal exit of the process to a writer that is never released (a
    /// global of a `main.swift`), unless it writes to a ``MemoryOutputSink``.
    deinit {
        UnfinishedWriters.remove(self)
        completeAtExit()
    }

    /// Whether ``abandon()`` was called.
    private var abandoned = false

    /// Leaves the output as it is: releasing the writer then neither closes what is open nor
    /// flushes. For output that must show where it stopped (a reformat of input that turned out
    /// to be invalid); call ``flush()`` first to hand over what the writer holds.
    public func abandon() {
        abandoned = true
        UnfinishedWriters.remove(self)
    }

    /// Closes every open container, innermost first, giving a key that waits for its value
    /// `null`; stops at the first error (a failed sink), which the next call throws.
    func closeOpenContainers() {
        do {
            while !halted && !stack.isEmpty {
                switch stack.innermost {
                case .object(expectingKey: false): try null()
                case .object(expectingKey: true): try endObject()
                case .array: try endArray()
                case .none: return
                }
            }
        } catch {
            return
        }
    }

    /// The nesting depth: how many objects and arrays are open.
    public var depth: Int { stack.count }

    /// Allows several top-level values, printing `separator` between them (`"\n"` for NDJSON).
    public func allowMultipleValues(separator: String = "\n") { self.separator = separator }

    // MARK: Values

    /// Opens an object (`{`) where a value may come.
    /// - Throws: `JSONWriterError` where a value is not allowed, or past `maxDepth`.
    @inline(__always)
    public func startObject() throws {
        try beforeValue("an object")
        guard stack.count < Self.maxDepth else { throw Self.depthError }
        try check(generator.openObject())
        stack.push(isArray: false)
    }

    /// Closes the innermost object (`}`).
    /// - Throws: `JSONWriterError` when the innermost container is not an object, or a key has no value yet.
    @inline(__always)
    public func endObject() throws {
        try checkOptions()
        guard case .object(let expectingKey) = stack.innermost else {
            throw stateError(stack.isEmpty ? "closing an object that is not open" : "closing an object inside an array")
        }
        guard expectingKey else { throw stateError("closing an object where a value is expected (after a key)") }
        try check(generator.closeObject())
        stack.pop()
        afterValue()
    }

    /// Opens an array (`[`) where a value may come.
    /// - Throws: `JSONWriterError` where a value is not allowed, or past `maxDepth`.
    @inline(__always)
    public func startArray() throws {
        try beforeValue("an array")
        guard stack.count < Self.maxDepth else { throw Self.depthError }
        try check(generator.openArray())
        stack.push(isArray: true)
    }

    /// Closes the innermost array (`]`).
    /// - Throws: `JSONWriterError` when the innermost container is not an array.
    @inline(__always)
    public func endArray() throws {
        try checkOptions()
        guard case .array = stack.innermost else {
            throw stateError(stack.isEmpty ? "closing an array that is not open" : "closing an array inside an object")
        }
        try check(generator.closeArray())
        stack.pop()
        afterValue()
    }

    /// An object key.
    public func key(_ key: String) throws {
        var key = key
        try key.withUTF8 { try self.key(validUTF8: UnsafeRawBufferPointer($0)) }
    }

    /// An object key from UTF-8 bytes (e.g. a parser's ``JSONStringView/bytes``).
    ///
    /// - Throws: ``JSONWriterError/Kind/invalidString`` when the bytes are not valid UTF-8 and
    ///   ``Options/validatesUTF8`` is on (the default).
    @inline(__always)
    public func key(utf8: UnsafeRawBufferPointer) throws {
        if options.validatesUTF8 { try checkUTF8(utf8, "a key") }
        try key(validUTF8: utf8)
    }

    /// An object key from bytes known to be valid UTF-8 (a parser checked them): no second check.
    @inline(__always)
    func key(validUTF8 utf8: UnsafeRawBufferPointer) throws {
        try checkOptions()
        guard case .object(expectingKey: true) = stack.innermost else {
            throw stateError(stack.isEmpty || isArray ? "a key outside an object" : "a key where a value is expected")
        }
        try check(generator.key(utf8))
        stack.expectingKey = false
    }

    /// A string value; `"`, `\\` and control characters are escaped.
    public func string(_ value: String) throws {
        var value = value
        try value.withUTF8 { try string(validUTF8: UnsafeRawBufferPointer($0)) }
    }

    /// A string from UTF-8 bytes; YAJL escapes `"`, `\` and control characters.
    ///
    /// - Throws: ``JSONWriterError/Kind/invalidString`` when the bytes are not valid UTF-8 and
    ///   ``Options/validatesUTF8`` is on (the default).
    @inline(__always)
    public func string(utf8: UnsafeRawBufferPointer) throws {
        if options.validatesUTF8 { try checkUTF8(utf8, "a string") }
        try string(validUTF8: utf8)
    }

    /// A string from bytes known to be valid UTF-8 (a parser checked them): no second check.
    @inline(__always)
    func string(validUTF8 utf8: UnsafeRawBufferPointer) throws {
        try beforeValue("a string")
        try check(generator.string(utf8))
        afterValue()
    }

    /// A number written exactly as its original text.
    public func number(_ value: JSONNumber) throws {
        var text = value.text
        try text.withUTF8 { try number(text: UnsafeRawBufferPointer($0)) }
    }

    /// A number from its JSON text (e.g. a parser's ``JSONNumberView/bytes``), written verbatim.
    ///
    /// - Throws: ``JSONWriterError/Kind/invalidNumber`` unless `text` is a JSON number (RFC 8259's
    ///   grammar: `-0`, `1.5e3`; not `1]`, `+1`, `01`, `NaN` or empty text).
    public func number(text: UnsafeRawBufferPointer) throws {
        guard JSONNumberGrammar.isValid(text.bindMemory(to: UInt8.self)) else {
            throw JSONWriterError(
                kind: .invalidNumber,
                message:
                    "not a JSON number: \"\(MessageText.printable(String(decoding: text, as: UTF8.self), limit: 64))\""
            )
        }
        try number(validatedText: text)
    }

    /// A number whose text is known to be valid (it came through YAJL's lexer).
    @inline(__always)
    func number(validatedText text: UnsafeRawBufferPointer) throws {
        try beforeValue("a number")
        try check(generator.number(text))
        afterValue()
    }

    /// An integer value.
    public func integer(_ value: Int64) throws {
        try beforeValue("a number")
        try check(generator.integer(value))
        afterValue()
    }

    /// A double in its shortest round-trip form (`0.1`, `1e-07`, `100.0`). Throws for inf and NaN.
    public func double(_ value: Double) throws {
        guard value.isFinite else {
            throw JSONWriterError(kind: .invalidNumber, message: "a non-finite double (\(value)) has no JSON form")
        }
        var text = value.description
        try text.withUTF8 { try number(text: UnsafeRawBufferPointer($0)) }
    }

    /// `true` or `false`.
    @inline(__always)
    public func bool(_ value: Bool) throws {
        try beforeValue("a boolean")
        try check(generator.bool(value))
        afterValue()
    }

    /// `null`.
    @inline(__always)
    public func null() throws {
        try beforeValue("null")
        try check(generator.null())
        afterValue()
    }

    // MARK: Output

    /// Hands the buffered output to the sink.
    public func flush() throws {
        try checkOptions()
        generator.drain(force: true)
        try checkSink()
    }

    /// Checks that every container is closed, then flushes. A writer whose options did not
    /// validate, or whose sink has failed, throws that error instead, as every call does.
    public func finish() throws {
        try checkOptions()
        guard stack.isEmpty else {
            throw stateError("finishing with \(stack.count) container\(stack.count == 1 ? "" : "s") still open")
        }
        try flush()
    }

    // MARK: State

    private var isArray: Bool { if case .array = stack.innermost { return true } else { return false } }

    @inline(__always)
    /// Throws unless a value may come now (for values written in several calls, such as an
    /// `Encodable`, which must not write half of itself first).
    func checkValueAllowed(_ what: String) throws { try beforeValue(what) }

    /// The checks before a value. The common case (options valid, inside a container that takes a
    /// value now) is a few flag tests inline; the rest is `checkBeforeValue`.
    @inline(__always)
    private func beforeValue(_ what: @autoclosure () -> String) throws {
        if _slowPath(halted || stack.isEmpty || stack.expectsKey) { try checkBeforeValue(what) }
    }

    /// Options that did not validate, a value where a key goes, a value at the top level (after a
    /// complete one only with ``allowMultipleValues(separator:)``).
    @inline(never)
    private func checkBeforeValue(_ what: () -> String) throws {
        try checkOptions()
        if case .object(expectingKey: true) = stack.innermost {
            throw stateError("\(what()) where a key is expected")
        }
        if stack.isEmpty && complete {
            guard let separator else {
                throw stateError("\(what()) after the complete top-level value (call allowMultipleValues() for NDJSON)")
            }
            generator.reset(separator: separator)
            complete = false
        }
    }

    /// After a value an enclosing object waits for a key (inside an array the flag means nothing),
    /// and a value at the top level is complete.
    @inline(__always)
    private func afterValue() {
        stack.expectingKey = true
        if stack.isEmpty { complete = true }
    }

    /// Throws the options' validation error, or the sink's, if there was one (every call fails
    /// with it).
    @inline(__always)
    private func checkOptions() throws {
        if _slowPath(halted) { try throwHaltingError() }
    }

    @inline(never)
    private func throwHaltingError() throws {
        if let optionsError { throw optionsError }
        try checkSink()
    }

    private func stateError(_ message: String) -> JSONWriterError {
        JSONWriterError(kind: .invalidState, message: message)
    }

    /// Throws ``JSONWriterError/Kind/invalidString`` unless `bytes` are valid UTF-8.
    private func checkUTF8(_ bytes: UnsafeRawBufferPointer, _ what: String) throws {
        guard let offset = RawUTF8Check.firstInvalidOffset(bytes) else { return }
        try checkOptions()
        throw JSONWriterError(
            kind: .invalidString,
            message:
                "\(what) that is not valid UTF-8 (byte \(offset) of \(bytes.count) is 0x\(String(bytes[offset], radix: 16, uppercase: true))): "
                + "pass valid UTF-8, or set JSONWriter.Options.validatesUTF8 to false for bytes already checked"
        )
    }

    /// A container past ``maxDepth`` (out of line: building the message is no part of the
    /// per-token path).
    private static var depthError: JSONWriterError {
        @inline(never) get {
            JSONWriterError(
                kind: .depthLimitExceeded,
                message: "nesting deeper than \(maxDepth) levels (YAJL's generator limit, YAJL_MAX_DEPTH = 128)"
            )
        }
    }

    /// After each generator call: hands full buffers to the sink, and turns a failed status or a
    /// failed sink into the writer's error (outlined in `fail`). Only a call that handed bytes to
    /// the sink can find it failed; from then on every call fails at its start (``halted``).
    @inline(__always)
    private func check(_ status: YAJLGeneratorBridge.Status) throws {
        if _fastPath(status == .ok) {
            if _slowPath(generator.drain()) { try checkSink() }
            return
        }
        try fail(status)
    }

    @inline(never)
    private func fail(_ status: YAJLGeneratorBridge.Status) throws {
        try checkSink()
        switch status {
        case .ok: return
        case .maxDepthExceeded: throw Self.depthError
        case .invalidNumber: throw JSONWriterError(kind: .invalidNumber, message: "not a JSON number")
        case .invalidString: throw JSONWriterError(kind: .invalidString, message: "a string that is not valid UTF-8")
        case .keysMustBeStrings: throw stateError("a value where a key is expected")
        case .generationComplete: throw stateError("a value after the complete top-level value")
        case .inErrorState, .other: throw stateError("the generator is in an error state after an earlier error")
        }
    }

    private func checkSink() throws {
        if let error = generator.output.pendingError {
            halted = true
            // The sink's own I/O error passes through unchanged (it names the output and errno).
            if error is JSONIOError { throw error }
            throw JSONWriterError(kind: .outputFailed, message: "the output failed: \(error)")
        }
    }
}

@available(*, unavailable, message: "a JSONWriter is used from one thread at a time")
extension JSONWriter: Sendable {}

extension JSONWriter: CompletesAtExit {
    func completeAtExit() {
        guard !abandoned else { return }
        closeOpenContainers()
        if !halted { try? flush() }
    }
}
