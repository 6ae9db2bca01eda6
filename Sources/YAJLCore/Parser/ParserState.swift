private import CYAJL
private import CYAJLSupport

/// The mutable state the C callbacks work on. Lives at a fixed address for the parser's lifetime.
struct ParserState {
    var path: PathStack
    let maxDepth: Int
    /// Events delivered so far (used to detect reads that produced no event).
    var eventCount = 0
    /// Of those, the events recorded by the capture callbacks (capture.h).
    var eventsRecordedInC = 0
    /// Deepest nesting seen: the most containers open at once.
    var maxDepthSeen = 0
    /// Top-level values started so far (several with `allowMultipleValues`).
    var topLevelValues = 0
    /// An error to rethrow once YAJL returns (handler error or a limit hit inside a callback).
    var pendingError: (any Error)?
    /// Set by `JSONEventContext.stop()`.
    var stopRequested = false
    /// Absolute offset of the first byte of the chunk being parsed.
    var chunkBase = 0
    /// Length of the chunk being parsed (offsets reported during `finish` are clamped to the input).
    var chunkLength = 0
    /// The YAJL handle, for byte offsets during callbacks.
    var handle: OpaquePointer?
    /// The chunk being parsed (for line numbers during callbacks).
    var chunkStart: UnsafeRawPointer?
    /// Lines and the recent bytes, across chunks.
    var position = TextPosition()
    /// Whether keys are kept, so that paths can be materialized.
    let tracksPath: Bool
    /// Whether every byte of the input was checked as strict UTF-8 (with surrogate escapes)
    /// before YAJL saw it, so that the strings and keys it delivers are valid UTF-8.
    let deliversValidUTF8: Bool
    /// The tape (its `cyajl_tape`) on which the handler asked, during a container start, to have
    /// the inside of that container recorded by the capture callbacks (capture.h).
    var captureRequest: UnsafeMutableRawPointer?
    /// The bytes that container may take on the tape (see ``JSONEventContext/recordInside(on:byteLimit:)``).
    var captureByteLimit = Int.max

    /// The 1-based line of the token being delivered.
    mutating func currentLine() -> Int {
        let chunk = UnsafeRawBufferPointer(start: chunkStart, count: chunkStart == nil ? 0 : chunkLength)
        return position.line(at: currentOffset, in: chunk, base: chunkBase)
    }

    /// Where the token being delivered starts: `length` bytes before its end (a number, a
    /// literal, a container's bracket), or for a string or key (`length` nil, `string` its
    /// bytes) at its opening quote. Tokens hold no newline, so the start's line is the end's.
    @inline(__always)
    mutating func tokenStart(length: Int?, string: UnsafeRawBufferPointer) -> SourcePosition {
        let end = currentOffset
        let base = chunkBase
        let chunk = UnsafeRawBufferPointer(start: chunkStart, count: chunkStart == nil ? 0 : chunkLength)
        let (line, endColumn) = position.lineAndColumn(forwardTo: end, in: chunk, base: base)
        let start = length.map { end &- $0 } ?? self.start(ofString: string, end: end)
        return SourcePosition(offset: start, line: line, column: max(1, endColumn &- (end &- start)))
    }

    /// Where the string or key token ending at absolute `end` starts: its opening quote.
    func start(ofString string: UnsafeRawBufferPointer, end: Int) -> Int {
        let base = chunkBase
        let chunk = UnsafeRawBufferPointer(start: chunkStart, count: chunkStart == nil ? 0 : chunkLength)
        if let bytes = string.baseAddress, let first = chunk.baseAddress, bytes > first, bytes < first + chunk.count {
            // Without escapes and inside the chunk, YAJL passes the bytes in place, after the quote.
            return base &+ (bytes - first) &- 1
        }
        return Self.openingQuote(of: string, end: end, chunk: chunk, base: base, position: position)
    }

    /// The opening quote of a string token ending at `end` that YAJL did not pass in place.
    private static func openingQuote(
        of string: UnsafeRawBufferPointer,
        end: Int,
        chunk: UnsafeRawBufferPointer,
        base: Int,
        position: borrowing TextPosition
    ) -> Int {
        // Escaped (decoded elsewhere): the last unescaped quote before the closing one.
        let closing = end - 1 - base
        if closing > 0,
            let quote = TextPosition.openingQuote(in: chunk, before: closing, precededBy: position.trailingBackslashes)
        {
            return base + quote
        }
        // Begun in an earlier read: the last unescaped quote of the input before this chunk.
        return position.lastUnescapedQuote ?? max(0, end - string.count - 2)
    }

    /// Absolute offset just past the token being delivered.
    var currentOffset: Int {
        guard let handle else { return chunkBase }
        return chunkBase + min(yajl_get_bytes_consumed(handle), chunkLength)
    }
}
