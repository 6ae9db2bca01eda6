/// Where an event happened, and a way to stop: handed to every ``JSONEventHandler`` call.
///
/// A context is a view of the parser's state at the moment of one call; use it during that call
/// only. Reading ``depth`` or calling ``stop()`` costs nothing; ``path`` builds a ``JSONPath``
/// from the parser's path stack each time you read it, so read it when you need it, not per event.
public struct JSONEventContext {
    let state: UnsafeMutablePointer<ParserState>

    init(state: UnsafeMutablePointer<ParserState>) { self.state = state }

    /// How many containers enclose the event's value: 0 at the top level. Always equals
    /// `path.count`. For `startObject`/`endObject` (and arrays) it is the container's own depth.
    public var depth: Int { state.pointee.path.depth }

    /// The event's JSON path, e.g. `$.results[3].name`; `nil` when
    /// ``JSONParser/Options/tracksPath`` is off.
    ///
    /// For a key, the path ends with that key; for `startObject`/`endObject` and arrays, it is the
    /// container's own path.
    public var path: JSONPath? {
        state.pointee.tracksPath ? state.pointee.path.materialize() : nil
    }

    /// Whether the event's string or key bytes are known to be valid UTF-8: the parser checked
    /// every input byte (``JSONParser/Options/validatesUTF8``), so a writer need not check again.
    package var stringsAreValidUTF8: Bool { state.pointee.deliversValidUTF8 }

    /// The absolute byte offset just past the event's token in the input.
    public var byteOffset: Int { state.pointee.currentOffset }

    /// The 1-based line of the event's token. Cheap when asked for events in document order (a
    /// forward-only scan of the current chunk); use it per record, not per event.
    public var line: Int { state.pointee.currentLine() }

    /// Where the event's token starts, when it is `length` bytes long (a number's text, a
    /// literal, `1` for a container's opening bracket). Costs a forward newline scan.
    @inline(__always)
    package func start(ofTokenLength length: Int) -> SourcePosition {
        state.pointee.tokenStart(length: length, string: UnsafeRawBufferPointer(start: nil, count: 0))
    }
    /// Where the event's string or key token starts (its opening quote).
    @inline(__always)
    package func start(ofString string: JSONStringView) -> SourcePosition {
        state.pointee.tokenStart(length: nil, string: string.bytes)
    }
    /// During a `startObject` or `startArray` that began recording its container on `tape`:
    /// records every event inside it there too, without calling the handler, until the event
    /// that closes it (delivered as usual). The container may take at most `byteLimit` bytes of
    /// the tape: past them the parse stops, and the parser asks the handler
    /// (``CaptureLimitReporting``) for the error to throw.
    func recordInside(on tape: Tape, byteLimit: Int) {
        state.pointee.captureRequest = tape.storage
        state.pointee.captureByteLimit = byteLimit
    }

    /// Zero-based index of the top-level value this event belongs to: always 0 unless
    /// ``JSONParser/Options/allowMultipleValues`` is on (then it numbers NDJSON lines' values).
    public var topLevelIndex: Int { max(0, state.pointee.topLevelValues - 1) }

    /// Ends the parse after this event, without an error: the parser reports
    /// ``JSONParser/State/stopped`` and a feeder reads no further input.
    public func stop() { state.pointee.stopRequested = true }
}

@available(*, unavailable, message: "a JSONEventContext is valid only during one handler call")
extension JSONEventContext: Sendable {}
