// Parser/: the push parser over libyajl, its options, the UTF-8 and surrogate checks, positions and
// validation; the only folder that calls YAJL's parser (through YAJLParserBridge). Calls Feeder/,
// Events/, Path/.

// About 350 lines: the public push parser, its one-call validation and its feeding steps (byte order mark, limits, UTF-8
// check, pieces). Its error construction is in JSONParser+Errors.swift, YAJL calls in the bridge.

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
    public internal(set) var state: State = .parsing
    /// Bytes accepted so far (input after a stop or an error is not counted).
    public internal(set) var bytesConsumed = 0

    /// The handler, strongly held here (the C bridge holds it unowned).
    let handler: any JSONEventHandler
    let bridge: YAJLParserBridge
    var failure: (any Error)?
    /// Why ``options`` cannot be used, found when the parser was made; thrown by the first call.
    private let optionsError: JSONOptionError?
    /// ``Options/maxTokenBytes``, within its valid range (so that no arithmetic on it can trap).
    private let tokenLimit: Int
    /// Bytes of the token being buffered (a string, key, number or comment spanning pieces):
    /// white space and separators before it do not count; 0 while no token has started.
    private var tokenBytes = 0
    /// Whether the parser is inside `parse`/`finish` (a handler calling them back is refused).
    private var isBusy = false
    /// Strict UTF-8 validation across chunks (when ``Options/validatesUTF8`` is on).
    private var utf8 = UTF8Validator()
    /// The first bytes of the input while they may still be a byte order mark (`EF BB BF`).
    private var byteOrderMark: [UInt8]? = []
    /// Whether the last chunk produced at least one event (the feeders grow their reads when not).
    private(set) var lastChunkProducedEvents = true

    /// Creates a parser that delivers events to `handler`.
    ///
    /// Options out of their ranges (see ``Options/validate()``) are reported by the first call to
    /// ``parse(_:)-(UnsafeRawBufferPointer)`` or ``finish()`` as a ``JSONOptionError``.
    public convenience init(options: Options = Options(), handler: some JSONEventHandler) {
        self.init(options: options, handler: handler, deliversEvents: true)
    }

    /// A parser that calls `handler` for every event, or (`deliversEvents` off) never: then only
    /// the input's validity, the limits and error locations are worked out.
    init(options: Options, handler: any JSONEventHandler, deliversEvents: Bool) {
        self.options = options
        self.handler = handler
        self.bridge = YAJLParserBridge(options: options, handler: handler, deliversEvents: deliversEvents)
        do {
            try options.validate()
            optionsError = nil
        } catch {
            optionsError = error
        }
        tokenLimit = min(max(options.maxTokenBytes, 1), Options.maxTokenBytesRange.upperBound)
    }

    /// Checks that `source` holds valid JSON, within the limits of `options`, at the speed of YAJL
    /// itself: no event is delivered, yet an error has the same message, offset, line, column and
    /// path as with a handler.
    ///
    /// ```swift
    /// try JSONParser.validate(.file("export.json"))
    /// ```
    ///
    /// YAJL is the grammar, as in `json_verify`: it runs with only the callbacks the depth and
    /// token limits need, behind the same UTF-8 and surrogate checks as a parse, in one pass. A
    /// source that can be read again from its start (bytes in memory, or a regular file not yet
    /// opened) is checked that way without position or path bookkeeping, and read a second time,
    /// with full tracking, only when something is wrong, to locate the error; past 4 MiB, its
    /// reads and UTF-8 check run ahead on a second thread while YAJL parses. Any other source (a
    /// pipe, standard input, HTTP) is read once, with full tracking throughout.
    ///
    /// - Throws: ``JSONParseError`` for invalid input or a limit, or the source's I/O error.
    public static func validate(_ source: some JSONByteSource, options: Options = Options()) throws {
        if let again = restartableCopy(of: source) {
            if try LeanValidation.run(source, options: options) == .valid { return }
            try validateWithTracking(again, options: options)
            return
        }
        try validateWithTracking(source, options: options)
    }

    /// A copy of `source` that reads it again from the start, when it is a ``RestartableByteSource``.
    ///
    /// Cast to the conforming types, not to the protocol: the first cast to a protocol in a
    /// process makes the runtime scan every conformance record of the binary, a large share of a
    /// short run's start-up.
    private static func restartableCopy(of source: some JSONByteSource) -> (any JSONByteSource)? {
        if let file = source as? FileByteSource { return file.restartableCopy() }
        if let memory = source as? MemoryByteSource { return memory.restartableCopy() }
        return nil
    }

    /// Validation in one pass with the depth, path and position bookkeeping of a parse.
    static func validateWithTracking(_ source: some JSONByteSource, options: Options) throws {
        try JSONParser(options: options, handler: DiscardingEventHandler(), deliversEvents: false).parse(from: source)
    }

    /// Creates a parser that delivers owned ``JSONEvent``s to a closure: convenient, but it makes a
    /// `String` for every key and string.
    public convenience init(
        options: Options = Options(),
        onEvent: @escaping (JSONEvent, JSONEventContext) throws -> Void
    ) {
        self.init(options: options, handler: ClosureEventHandler(onEvent))
    }

    /// Makes a new parser continue an input at `offset`, the start of line `line`, after
    /// `topLevelValues` values: its offsets, lines and value indices count from there. Before the
    /// first chunk only.
    func rebase(offset: Int, line: Int, topLevelValues: Int) {
        precondition(bytesConsumed == 0, "rebase before the first chunk")
        bytesConsumed = offset
        byteOrderMark = nil
        bridge.state.pointee.position.rebase(newlines: line - 1, lineStart: offset)
        bridge.state.pointee.topLevelValues = topLevelValues
    }

    /// How many objects and arrays are open now.
    var openDepth: Int { bridge.state.pointee.path.depth + bridge.depthInsideCapture }

    /// The events recorded on a tape by the capture callbacks (capture.h), not by the handler.
    package var eventsRecordedInC: Int { bridge.state.pointee.eventsRecordedInC }

    /// The deepest nesting seen so far: the most objects and arrays open at once.
    public var maxDepthSeen: Int { bridge.state.pointee.maxDepthSeen }

    /// The number of top-level values started so far (more than one only with
    /// ``Options/allowMultipleValues``).
    public var topLevelValueCount: Int { bridge.state.pointee.topLevelValues }

    // MARK: Feeding

    /// Parses the next chunk of input. Chunks may split the text anywhere, even inside a
    /// multi-byte character or an escape.
    ///
    /// A UTF-8 byte order mark at the very start of the input is skipped (RFC 8259 allows
    /// parsers to); offsets still count its three bytes.
    ///
    /// - Returns: ``State/parsing``, or ``State/stopped`` if the handler stopped the parse (later
    ///   calls then do nothing).
    /// - Throws: ``JSONParseError`` for invalid input or a limit, the handler's own error
    ///   unchanged, ``JSONOptionError`` for options out of range, and ``JSONParserUsageError`` when
    ///   called after ``finish()`` or from inside the parser's own handler.
    @discardableResult
    public func parse(_ chunk: UnsafeRawBufferPointer) throws -> State {
        try enter("parse")
        defer { isBusy = false }
        switch state {
        case .parsing: break
        case .stopped: return .stopped
        case .finished:
            throw JSONParserUsageError(
                message: "parse called after finish(): the input had already ended (make a new parser for more input)"
            )
        case .failed: throw failure!
        }
        try rejectInvalidOptions()
        guard !chunk.isEmpty else { return .parsing }
        var input = chunk
        if byteOrderMark != nil {
            guard let rest = try skipByteOrderMark(chunk) else { return state }
            input = rest
        }
        return try feed(input)
    }

    /// Throws the options' error, found when the parser was made, and fails the parser with it.
    /// The feeders call it before they allocate their read buffer.
    func rejectInvalidOptions() throws {
        if let optionsError { throw fail(optionsError) }
    }

    /// Skips a byte order mark at the start of the input, holding its first bytes while a chunk
    /// boundary splits it. Returns the rest of `chunk` to parse, or `nil` when all of it was held.
    private func skipByteOrderMark(_ chunk: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        var held = byteOrderMark ?? []
        var used = 0
        while held.count < 3 && used < chunk.count && chunk[used] == mark[held.count] {
            held.append(chunk[used])
            used += 1
        }
        if held.count == 3 {
            byteOrderMark = nil
            held.withUnsafeBytes { bridge.state.pointee.position.advance(over: $0, base: 0) }
            bytesConsumed = 3
            return UnsafeRawBufferPointer(rebasing: chunk[used...])
        }
        if used == chunk.count {
            byteOrderMark = held  // all of the chunk may still be the start of the mark
            return nil
        }
        // Not a byte order mark: the held bytes are input like any other.
        byteOrderMark = held
        guard try feedHeldByteOrderMark() == .parsing else { return nil }
        return UnsafeRawBufferPointer(rebasing: chunk[used...])
    }

    /// Feeds the bytes held as a possible byte order mark, which turned out not to be one (the
    /// input went on differently, or ended), as ordinary input.
    private func feedHeldByteOrderMark() throws -> State {
        guard let held = byteOrderMark else { return state }
        byteOrderMark = nil
        return held.isEmpty ? state : try held.withUnsafeBytes { try feed($0) }
    }

    /// Marks the parser busy; a call from inside its own handler is a usage error (libyajl would
    /// abort on it).
    private func enter(_ call: String) throws {
        guard !isBusy else {
            throw JSONParserUsageError(
                message: "\(call) called from inside the parser's own handler (re-entrant use of a JSONParser)"
            )
        }
        isBusy = true
    }

    /// Feeds accepted input to YAJL, piece by piece, enforcing the limits and strict UTF-8.
    private func feed(_ chunk: UnsafeRawBufferPointer) throws -> State {
        var accepted = chunk
        var overLimit = false
        if let limit = options.maxDocumentBytes, chunk.count > limit - bytesConsumed {
            accepted = UnsafeRawBufferPointer(rebasing: chunk[..<max(0, limit - bytesConsumed)])
            overLimit = true
        }
        if options.validatesUTF8, let invalid = utf8.validate(accepted, base: bytesConsumed) {
            // Feed up to where the failure says (an error YAJL finds before it is reported first).
            let end = max(0, invalid.feedEnd - bytesConsumed)
            let fed = UnsafeRawBufferPointer(rebasing: accepted[..<min(end, accepted.count)])
            if try feedPieces(fed) == .stopped { return .stopped }
            let rest = UnsafeRawBufferPointer(rebasing: accepted[fed.count...])
            throw fail(
                parseError(
                    .invalidUTF8,
                    "invalid bytes in UTF8 string (\(invalid.reason))",
                    offset: invalid.leadOffset,
                    chunk: rest,
                    base: bytesConsumed
                )
            )
        }
        if try feedPieces(accepted) == .stopped { return .stopped }
        if overLimit {
            throw fail(
                limitError(
                    .documentLimitExceeded,
                    "the document is longer than \(options.maxDocumentBytes!) bytes",
                    option: "maxDocumentBytes",
                    offset: bytesConsumed,
                    chunk: UnsafeRawBufferPointer(start: nil, count: 0),
                    base: bytesConsumed
                )
            )
        }
        return .parsing
    }

    /// Feeds `accepted` to YAJL in pieces that end where the token limit would be passed, so YAJL
    /// never buffers more of one token than the limit (plus the piece where it began), whatever
    /// the read size. Only the bytes of a token count: white space between tokens is free (an
    /// endless run of it is stopped by ``Options/maxDocumentBytes``).
    private func feedPieces(_ accepted: UnsafeRawBufferPointer) throws -> State {
        var rest = accepted
        var producedEvents = false
        while !rest.isEmpty {
            let room = tokenLimit + 1 - tokenBytes
            let piece = rest.count > room ? UnsafeRawBufferPointer(rebasing: rest[..<room]) : rest
            rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
            let base = bytesConsumed
            let eventsBefore = bridge.state.pointee.eventCount
            try check(bridge.parse(piece, base: base), chunk: piece, base: base)
            if state == .stopped { return .stopped }
            bridge.state.pointee.position.advance(over: piece, base: base)
            bytesConsumed += piece.count
            let pieceProducedEvents = bridge.state.pointee.eventCount != eventsBefore
            producedEvents = producedEvents || pieceProducedEvents
            countTokenBytes(in: piece, producedEvents: pieceProducedEvents)
            // Limit errors are at `bytesConsumed`, which the position has already passed: they
            // are located with an empty chunk there (the piece's lines are counted already).
            if tokenBytes > tokenLimit {
                throw fail(
                    limitError(
                        .tokenLimitExceeded,
                        "a single token (string, key or number) is longer than \(options.maxTokenBytes) bytes",
                        option: "maxTokenBytes",
                        offset: bytesConsumed,
                        chunk: UnsafeRawBufferPointer(start: nil, count: 0),
                        base: bytesConsumed
                    )
                )
            }
        }
        lastChunkProducedEvents = producedEvents
        return .parsing
    }

    /// Updates ``tokenBytes`` after a piece: an event ends the token; otherwise the piece's bytes
    /// from the first one that is not white space or a separator belong to a token YAJL buffers.
    @inline(__always)
    private func countTokenBytes(in piece: UnsafeRawBufferPointer, producedEvents: Bool) {
        if producedEvents {
            tokenBytes = 0
        } else if tokenBytes > 0 {
            tokenBytes += piece.count
        } else {
            // A loop of its own: `firstIndex(where:)` is not specialized in debug and sanitizer
            // builds, where it cost an allocation per byte of white space.
            var first = 0
            while first < piece.count && Self.isSeparator(piece[first]) { first += 1 }
            if first < piece.count { tokenBytes = piece.count - first }
        }
    }

    /// White space as YAJL's lexer skips it (JSON's, and vertical tab and form feed: 0x20 and
    /// 0x09 to 0x0D) and the separators `,` and `:`: bytes YAJL never buffers.
    @inline(__always)
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte &- 0x09 < 5 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":")
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
        try enter("finish")
        defer { isBusy = false }
        switch state {
        case .parsing: break
        case .stopped: return .stopped
        case .finished: return .finished
        case .failed: throw failure!
        }
        try rejectInvalidOptions()
        // The input may have been only the start of a byte order mark: parse it as input.
        if try feedHeldByteOrderMark() == .stopped { return .stopped }
        try check(
            bridge.complete(end: bytesConsumed),
            chunk: UnsafeRawBufferPointer(start: nil, count: 0),
            base: bytesConsumed
        )
        if state == .stopped { return .stopped }
        try rejectOpenStringAtEnd()
        state = .finished
        return .finished
    }

    /// What ``YAJLParserBridge/endsInsideString()`` feeds YAJL once the input has ended: a
    /// space and a quote. Inside a string, the space is text (or an invalid escape or hexadecimal
    /// digit) and the quote ends it; after white space, they open a string that nothing follows.
    static let openStringProbe: StaticString = " \""

    /// YAJL accepts input that ends inside a string opened after a complete value: `[1] "abc`
    /// (trailing garbage, which it rejects once it sees the token end), or with
    /// ``Options/allowMultipleValues`` a last value cut inside a string, which would be lost
    /// without a word. Both are errors here, unless the options accept them
    /// (``Options/allowTrailingGarbage``; ``Options/allowPartialValues`` with several values).
    /// LeanValidation asks YAJL the same after its own `yajl_complete_parse`.
    private func rejectOpenStringAtEnd() throws {
        guard !options.allowTrailingGarbage, !(options.allowMultipleValues && options.allowPartialValues),
            bridge.state.pointee.topLevelValues > 0, bridge.state.pointee.path.depth == 0,
            bridge.endsInsideString()
        else { return }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        if options.allowMultipleValues {
            throw fail(
                parseError(
                    .prematureEndOfInput,
                    "premature EOF: the input ends inside a string (Options.allowPartialValues accepts a cut last value)",
                    offset: bytesConsumed,
                    chunk: empty,
                    base: bytesConsumed
                )
            )
        }
        throw fail(
            parseError(
                .trailingGarbage,
                "trailing garbage: a string is opened after the document's value and never closed",
                offset: bytesConsumed,
                chunk: empty,
                base: bytesConsumed
            )
        )
    }
}

@available(*, unavailable, message: "a JSONParser is used from one thread at a time")
extension JSONParser: Sendable {}

/// The handler of a validating parser: never called (the bridge delivers nothing).
private final class DiscardingEventHandler: JSONEventHandler {}
