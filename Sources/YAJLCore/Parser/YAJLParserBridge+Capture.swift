private import CYAJL
private import CYAJLSupport

/// The bridge's side of the C capture callbacks (capture.h): entering a capture when the handler
/// asks, what the callbacks counted, and the path stack rebuilt from the tape when an error must
/// be located inside a capture.
extension YAJLParserBridge {
    private var capture: UnsafeMutablePointer<cyajl_capture> {
        captureStorage.assumingMemoryBound(to: cyajl_capture.self)
    }

    /// Where a string token ending at `end` starts, for the capture callbacks (YAJL did not pass its
    /// bytes in place).
    fileprivate static let captureStringStart: cyajl_string_start = { context, bytes, length, end in
        callbackState(context).pointee.start(ofString: UnsafeRawBufferPointer(start: bytes, count: length), end: end)
    }

    /// Sets up the capture callbacks' state: `capture` is uninitialized, `table` the bridge's
    /// callback table (holding the Swift set), `target` the callback target, `state` the state its
    /// callbacks update.
    static func initializeCapture(
        _ storage: UnsafeMutableRawPointer,
        target: CallbackTarget,
        state: UnsafeMutablePointer<ParserState>,
        table: UnsafeMutableRawPointer,
        maxDepth: Int
    ) {
        let capture = storage.bindMemory(to: cyajl_capture.self, capacity: 1)
        capture.initialize(to: cyajl_capture())
        capture.pointee.target = Unmanaged.passUnretained(target).toOpaque()
        capture.pointee.state = UnsafeMutableRawPointer(state)
        capture.pointee.live = table.assumingMemoryBound(to: yajl_callbacks.self)
        capture.pointee.swift_callbacks = capture.pointee.live.pointee
        capture.pointee.max_depth = maxDepth
        capture.pointee.depth_error_offset = -1
        capture.pointee.string_start = captureStringStart
        cyajl_line_cursor_reset(&capture.pointee.cursor)
    }

    /// Tells the capture callbacks about the chunk YAJL is given next.
    func chunkStarts(_ chunk: UnsafeRawBufferPointer, base: Int) {
        capture.pointee.chunk = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self)
        capture.pointee.chunk_length = chunk.count
        capture.pointee.chunk_base = base
        capture.pointee.newlines_before = state.pointee.position.newlinesBefore
        capture.pointee.line_start_before = state.pointee.position.lineStartBefore
    }

    /// Adds what the capture callbacks counted to the parser's state, and turns a limit they hit
    /// into the error to rethrow: the depth limit's, or the handler's for its byte limit.
    func takeCaptureCounts() {
        state.pointee.eventCount &+= capture.pointee.event_count
        state.pointee.eventsRecordedInC &+= capture.pointee.event_count
        capture.pointee.event_count = 0
        state.pointee.maxDepthSeen = max(state.pointee.maxDepthSeen, capture.pointee.max_depth_seen)
        if capture.pointee.depth_error_offset >= 0 {
            state.pointee.pendingError = LimitViolation.depth(offset: capture.pointee.depth_error_offset)
            capture.pointee.depth_error_offset = -1
        }
        if capture.pointee.over_byte_limit != 0 {
            capture.pointee.over_byte_limit = 0
            state.pointee.pendingError = LimitViolation.captureBytes
        }
    }

    /// The open containers inside the capture that the path stack does not hold.
    var depthInsideCapture: Int {
        guard let tape = capture.pointee.tape else { return 0 }
        return max(0, tape.pointee.open_count - 1)
    }

    /// Ends a capture in progress (the parse has failed), first bringing the path stack level with
    /// the tape: for each container open on it, its current key or index, as the Swift callbacks
    /// would have kept them.
    func leaveCapture() {
        guard let tape = capture.pointee.tape else { return }
        let view = TapeView(
            bytes: UnsafeRawBufferPointer(start: tape.pointee.bytes, count: tape.pointee.count),
            positions: UnsafeRawBufferPointer(start: nil, count: 0)
        )
        let openCount = tape.pointee.open_count
        for level in 0..<openCount {
            let container = tape.pointee.open[level]
            let isArray = view.kind(container.start) == .array
            // The captured container is on the stack already; those inside it are not.
            if level > 0 { state.pointee.path.push(isArray: isArray) }
            if isArray {
                if container.values > 0 { state.pointee.path.setIndex(container.values - 1) }
                continue
            }
            // The last key among its members, which end where the next open container starts.
            let end = level + 1 < openCount ? tape.pointee.open[level + 1].start : tape.pointee.count
            var child = view.firstChild(container.start)
            var lastKey: Int?
            while child < end {
                if view.kind(child) == .key { lastKey = child }
                child = view.next(child)
            }
            if let lastKey { state.pointee.path.setKey(view.text(lastKey)) }
        }
        cyajl_capture_finish(capture)
    }
}

/// Starts the capture callbacks when the handler asked for them during the container start just
/// delivered (``JSONEventContext/recordInside(on:)``) and the parse goes on.
@inline(__always)
func beginCaptureIfAsked(
    _ s: UnsafeMutablePointer<ParserState>,
    _ context: UnsafeMutableRawPointer?,
    _ result: Int32
) -> Int32 {
    guard let tape = s.pointee.captureRequest else { return result }
    s.pointee.captureRequest = nil
    if result != 0 {
        cyajl_capture_begin(
            context.unsafelyUnwrapped.assumingMemoryBound(to: cyajl_capture.self),
            tape.assumingMemoryBound(to: cyajl_tape.self),
            s.pointee.path.depth,
            s.pointee.captureByteLimit
        )
    }
    return result
}
