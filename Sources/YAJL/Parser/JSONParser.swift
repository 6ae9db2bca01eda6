/// A streaming (push) JSON parser over YAJL: feed it bytes in chunks of any size, and it calls
/// your ``JSONEventHandler`` for every event, each with its path.
///
/// Memory does not grow with the document: YAJL keeps only its state stack and any token that spans
/// chunks, and this layer keeps only the path stack. Call ``finish()`` when the input ends so that
/// truncated input is reported as an error instead of passing silently.
///
/// ```swift
/// let parser = JSONParser(handler: myHandler)
/// for chunk in chunks { try parser.parse(chunk) }
/// try parser.finish()
/// ```
///
/// Or let a feeder read a whole source in bounded chunks:
///
/// ```swift
/// try JSONParser(handler: myHandler).parse(from: .file("/data/export.json"))
/// ```
///
/// After an error, every further call throws that error again. A parser is used from one thread
/// at a time and is not `Sendable`.
public final class JSONParser {
    /// Where a parser is in its life.
    public enum State: Sendable, Hashable {
        /// Accepting input.
        case parsing
        /// The handler called ``JSONEventContext/stop()``: not an error; no further input is read.
        case stopped
        /// ``finish()`` succeeded: the input was complete and valid.
        case finished
        /// The input was rejected or the handler threw; the error is rethrown by every call.
        case failed
    }

    /// The options this parser was created with.
    public let options: Options
    /// Where the parser is in its life.
    public private(set) var state: State = .parsing
    /// Bytes accepted so far (input after a stop or an error is not counted).
    public private(set) var bytesConsumed = 0

    /// The handler, strongly held here (the C bridge holds it unowned).
    private let handler: any JSONEventHandler
    private let bridge: YAJLParserBridge
    private var failure: (any Error)?
    /// Bytes fed since the last chunk that produced an event: the most a buffered token can hold.
    private var bytesWithoutEvent = 0
    /// Whether the last chunk produced at least one event (the feeders grow their reads when not).
    private(set) var lastChunkProducedEvents = true

    /// Creates a parser that delivers events to `handler`.
    public init(options: Options = Options(), handler: some JSONEventHandler) {
        self.options = options
        self.handler = handler
        self.bridge = YAJLParserBridge(options: options, handler: handler)
    }

    /// Creates a parser that delivers owned ``JSONEvent``s to a closure: convenient, but it makes a
    /// `String` for every key and string.
    public convenience init(options: Options = Options(), onEvent: @escaping (JSONEvent, JSONEventContext) throws -> Void) {
        self.init(options: options, handler: ClosureEventHandler(onEvent))
    }

    /// The deepest nesting seen so far: the most objects and arrays open at once.
    public var maxDepthSeen: Int { bridge.state.pointee.maxDepthSeen }

    /// The number of top-level values started so far (more than one only with
    /// ``Options/allowMultipleValues``).
    public var topLevelValueCount: Int { bridge.state.pointee.topLevelValues }

    // MARK: Feeding

    /// Parses the next chunk of input. Chunks may split the text anywhere, even inside a
    /// multi-byte character or an escape.
    ///
    /// - Returns: ``State/parsing``, or ``State/stopped`` if the handler stopped the parse (later
    ///   calls then do nothing).
    /// - Throws: ``JSONParseError`` for invalid input or a limit, or the handler's own error unchanged.
    @discardableResult
    public func parse(_ chunk: UnsafeRawBufferPointer) throws -> State {
        switch state {
        case .parsing: break
        case .stopped: return .stopped
        case .finished: return .finished
        case .failed: throw failure!
        }
        guard !chunk.isEmpty else { return .parsing }
        var accepted = chunk
        var overLimit = false
        if let limit = options.maxDocumentBytes, bytesConsumed + chunk.count > limit {
            accepted = UnsafeRawBufferPointer(rebasing: chunk[..<max(0, limit - bytesConsumed)])
            overLimit = true
        }
        // A token may not run past `maxTokenBytes` bytes without an event: the input is fed in
        // pieces that end where the limit would be passed, so YAJL never buffers more of one
        // token than the limit (plus the chunk where it began), whatever the read size.
        var rest = accepted
        var producedEvents = false
        repeat {
            let room = options.maxTokenBytes + 1 - bytesWithoutEvent
            let piece = rest.count > room ? UnsafeRawBufferPointer(rebasing: rest[..<room]) : rest
            rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
            let base = bytesConsumed
            let eventsBefore = bridge.state.pointee.eventCount
            try check(bridge.parse(piece, base: base), chunk: piece, base: base)
            if state == .stopped { return .stopped }
            bridge.state.pointee.position.advance(over: piece, base: base)
            bytesConsumed += piece.count
            // Limit errors below are at `bytesConsumed`, which the position has already passed:
            // they are located with an empty chunk there (the piece's lines are counted already).
            let pieceProducedEvents = bridge.state.pointee.eventCount != eventsBefore
            producedEvents = producedEvents || pieceProducedEvents
            bytesWithoutEvent = pieceProducedEvents ? 0 : bytesWithoutEvent + piece.count
            if bytesWithoutEvent > options.maxTokenBytes {
                throw fail(limitError(
                    .tokenLimitExceeded,
                    "a single token (string, key or number) is longer than \(options.maxTokenBytes) bytes",
                    option: "maxTokenBytes", offset: bytesConsumed, chunk: UnsafeRawBufferPointer(start: nil, count: 0), base: bytesConsumed))
            }
        } while !rest.isEmpty
        lastChunkProducedEvents = producedEvents
        if overLimit {
            throw fail(limitError(
                .documentLimitExceeded, "the document is longer than \(options.maxDocumentBytes!) bytes",
                option: "maxDocumentBytes", offset: bytesConsumed, chunk: UnsafeRawBufferPointer(start: nil, count: 0), base: bytesConsumed))
        }
        return .parsing
    }

    /// Parses the next chunk of input from any contiguous bytes (`[UInt8]`, `Data`, a slice, …).
    @discardableResult
    public func parse(_ chunk: some Collection<UInt8>) throws -> State {
        if let state = try chunk.withContiguousStorageIfAvailable({ try parse(UnsafeRawBufferPointer($0)) }) {
            return state
        }
        return try Array(chunk).withUnsafeBytes { try parse($0) }
    }

    /// Parses the UTF-8 of a string as the next chunk of input.
    @discardableResult
    public func parse(_ text: String) throws -> State {
        var text = text
        return try text.withUTF8 { try parse(UnsafeRawBufferPointer($0)) }
    }

    /// Ends the input (YAJL's `yajl_complete_parse`): delivers a final top-level number, and
    /// throws ``JSONParseError/Kind/prematureEndOfInput`` if the input stopped inside a value
    /// (unless ``Options/allowPartialValues`` is set) or contained no value at all.
    ///
    /// - Returns: ``State/finished``, or ``State/stopped`` if the handler stopped the parse.
    @discardableResult
    public func finish() throws -> State {
        switch state {
        case .parsing: break
        case .stopped: return .stopped
        case .finished: return .finished
        case .failed: throw failure!
        }
        try check(
            bridge.complete(end: bytesConsumed), chunk: UnsafeRawBufferPointer(start: nil, count: 0), base: bytesConsumed,
            atEndOfInput: true)
        if state == .stopped { return .stopped }
        state = .finished
        return .finished
    }

    // MARK: Errors

    /// Turns a bridge status into a state change or a thrown, located error.
    ///
    /// `atEndOfInput` marks `yajl_complete_parse`: a lexical error there is a truncation, whatever
    /// YAJL calls it (a literal cut short is "invalid string in json text" to YAJL).
    private func check(
        _ status: YAJLParserBridge.Status, chunk: UnsafeRawBufferPointer, base: Int, atEndOfInput: Bool = false
    ) throws {
        switch status {
        case .ok:
            return
        case .stopped:
            if let pending = bridge.state.pointee.pendingError {
                bridge.state.pointee.pendingError = nil
                if case LimitViolation.depth(let offset) = pending {
                    throw fail(limitError(
                        .depthLimitExceeded, "nesting is deeper than \(options.maxDepth) levels",
                        option: "maxDepth", offset: offset, chunk: chunk, base: base))
                }
                throw fail(pending)
            }
            // The handler asked to stop: count the input up to the event that stopped it.
            bytesConsumed = bridge.state.pointee.currentOffset
            state = .stopped
        case .error(let message, let consumed):
            var offset = base + min(consumed, chunk.count)
            if consumed == 0 && message.hasPrefix("after key and value") {
                offset -= bridge.state.pointee.position.lengthOfSplitToken(continuingInto: chunk)
            }
            let kind = Self.kind(of: message)
            let lexical: Set<JSONParseError.Kind> = [.invalidCharacter, .invalidNumber, .invalidUTF8, .invalidEscape]
            if atEndOfInput && (kind == .prematureEndOfInput || lexical.contains(kind)) {
                // YAJL ends the input with a space: a lexical error there means a token was cut.
                let text = message == "premature EOF" ? message : "premature EOF (yajl: \(message))"
                throw fail(parseError(.prematureEndOfInput, text, offset: bytesConsumed, chunk: chunk, base: base))
            }
            throw fail(parseError(kind, message, offset: offset, chunk: chunk, base: base))
        }
    }

    private func fail(_ error: any Error) -> any Error {
        state = .failed
        failure = error
        return error
    }

    private func limitError(
        _ kind: JSONParseError.Kind, _ what: String, option: String, offset: Int,
        chunk: UnsafeRawBufferPointer, base: Int
    ) -> JSONParseError {
        parseError(kind, "\(what) (raise Options.\(option))", option: option, offset: offset, chunk: chunk, base: base)
    }

    private func parseError(
        _ kind: JSONParseError.Kind, _ message: String, option: String? = nil, offset: Int,
        chunk: UnsafeRawBufferPointer, base: Int
    ) -> JSONParseError {
        let position = bridge.state.pointee.position
        let (line, column) = position.lineAndColumn(of: offset, in: chunk, base: base)
        let (excerpt, marker) = position.excerpt(around: offset, in: chunk, base: base)
        let path = options.tracksPath ? bridge.state.pointee.path.materialize() : nil
        return JSONParseError(
            kind: kind, message: message, limitOption: option, byteOffset: offset, line: line, column: column,
            path: path, excerpt: excerpt, excerptMarker: marker)
    }

    /// Classifies YAJL's message (it exposes no error codes for lexical errors).
    static func kind(of message: String) -> JSONParseError.Kind {
        switch message {
        case "premature EOF": return .prematureEndOfInput
        case "trailing garbage": return .trailingGarbage
        case "invalid bytes in UTF8 string": return .invalidUTF8
        case "probable comment found in input text, comments are not enabled": return .commentNotAllowed
        case "invalid char in json text", "invalid character inside string", "invalid string in json text":
            return .invalidCharacter
        case _ where message.hasPrefix("malformed number"): return .invalidNumber
        case _ where message.hasPrefix("inside a string, '\\'") || message.hasPrefix("invalid (non-hex) character"):
            return .invalidEscape
        case "unallowed token at this point in JSON text", "invalid object key (must be a string)":
            return .unexpectedToken
        case _ where message.hasPrefix("after ") || message.hasPrefix("object key and value"):
            return .unexpectedToken
        default: return .other
        }
    }
}

@available(*, unavailable, message: "a JSONParser is used from one thread at a time")
extension JSONParser: Sendable {}
