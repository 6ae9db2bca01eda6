// About 300 lines: the bridge and its two callback tables (delivering, and validating only), which
// must stay beside the helpers they inline.

private import CYAJL
private import CYAJLSupport

// The only file that calls libyajl's parser API.
//
// Design (measured figures in Docs/HotPath.md): one `yajl_callbacks` table of capture-free
// closures, made once per process and copied into each parser's own table (YAJL keeps the pointer
// and reads the table at every event, so a parser can switch to the C callbacks of capture.h while
// a selected container is recorded: YAJLParserBridge+Capture.swift). The context pointer is the
// parser's `cyajl_capture`, whose first field is an unretained `CallbackTarget`, a final class
// reached in each callback through `_withUnsafeGuaranteedRef`: its `let` handler is borrowed with
// no retain/release. The second field points to the mutable `ParserState`, which is updated with
// no exclusivity check. Keys, strings and numbers are passed on as borrowed
// buffers. An error thrown by the handler is stored, the callback returns 0 ("stop"), and the error
// is rethrown after `yajl_parse` returns.

/// What the first field of YAJL's context points at: the handler, fixed for the parse (the state
/// is the context's second field). Held strongly by `YAJLParserBridge`, passed to YAJL unretained.
final class CallbackTarget {
    let handler: any JSONEventHandler

    init(handler: any JSONEventHandler) {
        self.handler = handler
    }
}

/// Owns one `yajl_handle` and the state its callbacks use.
final class YAJLParserBridge {
    let state: UnsafeMutablePointer<ParserState>
    private let target: CallbackTarget
    private let handle: OpaquePointer
    /// YAJL's context: the target, and what the capture callbacks keep (a `cyajl_capture`,
    /// capture.h; untyped because the C module is imported privately by each file).
    let captureStorage: UnsafeMutableRawPointer
    private var capture: UnsafeMutablePointer<cyajl_capture> {
        captureStorage.assumingMemoryBound(to: cyajl_capture.self)
    }
    /// The callback table YAJL reads: the Swift set, or the capture set while one is recorded.
    private let table: UnsafeMutablePointer<yajl_callbacks>

    /// A bridge delivering every event to `handler`; with `deliversEvents` off, the handler is
    /// never called: the callbacks keep only what limits and error locations need (depth, path,
    /// the event count), for validation at the speed of YAJL itself.
    init(options: JSONParser.Options, handler: any JSONEventHandler, deliversEvents: Bool = true) {
        state = .allocate(capacity: 1)
        state.initialize(
            to: ParserState(
                path: PathStack(keepsKeys: options.tracksPath),
                maxDepth: options.maxDepth,
                tracksPath: options.tracksPath,
                deliversValidUTF8: options.validatesUTF8
            )
        )
        target = CallbackTarget(handler: handler)
        let callbacks = (deliversEvents ? sharedCallbacks : validatingCallbacks).pointee
        table = .allocate(capacity: 1)
        table.initialize(to: callbacks)
        captureStorage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<cyajl_capture>.size,
            alignment: MemoryLayout<cyajl_capture>.alignment
        )
        Self.initializeCapture(
            captureStorage,
            target: target,
            state: state,
            table: UnsafeMutableRawPointer(table),
            maxDepth: options.maxDepth
        )
        // yajl_alloc only fails when malloc does; there is nothing sensible to do but stop.
        guard let handle = yajl_alloc(table, nil, captureStorage) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        self.handle = handle
        capture.pointee.handle = handle
        state.pointee.handle = handle
        Self.configure(handle, options)
    }

    /// Sets YAJL's options on `handle` from `options`: here and for the lean validation pass,
    /// which must decide validity exactly as a parse does.
    static func configure(_ handle: OpaquePointer, _ options: JSONParser.Options) {
        cyajl_config(handle, yajl_allow_comments, options.allowComments ? 1 : 0)
        // YAJL's own UTF-8 check is weaker than ``UTF8Validator``, which has already seen every
        // byte before YAJL does when `validatesUTF8` is on: running both would pay twice.
        cyajl_config(handle, yajl_dont_validate_strings, 1)
        cyajl_config(handle, yajl_allow_trailing_garbage, options.allowTrailingGarbage ? 1 : 0)
        cyajl_config(handle, yajl_allow_multiple_values, options.allowMultipleValues ? 1 : 0)
        cyajl_config(handle, yajl_allow_partial_values, options.allowPartialValues ? 1 : 0)
    }

    deinit {
        yajl_free(handle)
        captureStorage.deallocate()
        table.deallocate()
        state.pointee.path.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    enum Status {
        case ok
        /// A callback returned 0: the handler threw, asked to stop, or a limit was hit.
        case stopped
        /// YAJL rejected the input.
        case error(YAJLError)
    }

    /// `yajl_parse` over one chunk, which starts at absolute offset `base`.
    func parse(_ chunk: UnsafeRawBufferPointer, base: Int) -> Status {
        state.pointee.chunkBase = base
        state.pointee.chunkLength = chunk.count
        state.pointee.chunkStart = chunk.baseAddress
        chunkStarts(chunk, base: base)
        state.pointee.path.chunkStarts(chunk)
        let bytes = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = yajl_parse(handle, bytes, chunk.count)
        // The chunk may be gone or reused once this returns: the path keeps no pointer into it.
        state.pointee.path.keepKeysBeyondChunk()
        takeCaptureCounts()
        return status(result, chunk: chunk, base: base, atEndOfInput: false)
    }

    /// After ``complete(end:)``: whether YAJL still holds a string that the input ended inside
    /// (after a complete value, which YAJL accepts: it waits for the rest of that token). Fed
    /// ``JSONParser/openStringProbe`` with a table whose only callback stops at a string, YAJL
    /// completes such a string and stops or rejects it; after white space only, the probe opens a
    /// string that nothing follows. Nothing is delivered to the handler; the parser is done with.
    func endsInsideString() -> Bool {
        let saved = table.pointee
        table.pointee = cyajl_probe_callbacks()
        defer { table.pointee = saved }
        let probe = JSONParser.openStringProbe
        return yajl_parse(handle, probe.utf8Start, probe.utf8CodeUnitCount) != yajl_status_ok
    }

    /// `yajl_complete_parse`: the input has ended at absolute offset `end`.
    func complete(end: Int) -> Status {
        state.pointee.chunkBase = end
        state.pointee.chunkLength = 0
        state.pointee.chunkStart = nil
        chunkStarts(UnsafeRawBufferPointer(start: nil, count: 0), base: end)
        let result = yajl_complete_parse(handle)
        takeCaptureCounts()
        return status(
            result,
            chunk: UnsafeRawBufferPointer(start: nil, count: 0),
            base: end,
            atEndOfInput: true
        )
    }

    private func status(_ status: yajl_status, chunk: UnsafeRawBufferPointer, base: Int, atEndOfInput: Bool) -> Status {
        switch status {
        case yajl_status_ok: return .ok
        case yajl_status_client_canceled: return .stopped
        default:
            let consumed = yajl_get_bytes_consumed(handle)
            var message = "unknown error"
            if let raw = yajl_get_error(handle, 0, nil, 0) {
                message = Self.errorMessage(from: UnsafeRawPointer(raw).assumingMemoryBound(to: CChar.self))
                yajl_free_error(handle, raw)
            }
            return .error(
                YAJLError(
                    message: message,
                    consumed: consumed,
                    chunk: chunk,
                    base: base,
                    atEndOfInput: atEndOfInput,
                    end: base,
                    position: state.pointee.position
                )
            )
        }
    }

    /// YAJL renders `"<parse|lexical> error: <text>\n"`; keep `<text>`, without a final period.
    private static func errorMessage(from cString: UnsafePointer<CChar>) -> String {
        var text = String(cString: cString)  // NUL-terminated: YAJL allocated it for us.
        while text.last == "\n" || text.last == " " { text.removeLast() }
        if let range = text.firstRange(of: " error: ") { text = String(text[range.upperBound...]) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

// MARK: - The callbacks

/// Runs `body` with the callback target borrowed from YAJL's context pointer (a `cyajl_capture`
/// whose first field is the target), no retain/release, and the target's state. The state is read
/// from the context (the capture's second field), not through the target: one dependent load fewer
/// before each callback reaches the path stack.
///
/// Not generic over the result: a generic one made each callback's body a function of its own,
/// returning YAJL's answer through memory, called from the C entry point.
@inline(__always)
func withTarget(
    _ context: UnsafeMutableRawPointer?,
    _ body: (CallbackTarget, UnsafeMutablePointer<ParserState>) -> Int32
) -> Int32 {
    let capture = context.unsafelyUnwrapped.assumingMemoryBound(to: cyajl_capture.self)
    let state = capture.pointee.state.unsafelyUnwrapped.assumingMemoryBound(to: ParserState.self)
    return Unmanaged<CallbackTarget>.fromOpaque(capture.pointee.target.unsafelyUnwrapped)
        ._withUnsafeGuaranteedRef { body($0, state) }
}

/// The target's state from YAJL's context pointer (see ``withTarget(_:_:)``).
@inline(__always)
func callbackState(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<ParserState> {
    context.unsafelyUnwrapped.assumingMemoryBound(to: cyajl_capture.self).pointee.state.unsafelyUnwrapped
        .assumingMemoryBound(to: ParserState.self)
}

/// Runs one handler call; turns a thrown error or a stop request into YAJL's "stop" (0).
@inline(__always)
private func deliver(_ s: UnsafeMutablePointer<ParserState>, _ body: (JSONEventContext) throws -> Void) -> Int32 {
    s.pointee.eventCount &+= 1
    do {
        try body(JSONEventContext(state: s))
    } catch {
        s.pointee.pendingError = error
        return 0
    }
    return s.pointee.stopRequested ? 0 : 1
}

@inline(__always)
private func willStartValue(_ s: UnsafeMutablePointer<ParserState>) {
    if s.pointee.path.depth == 0 { s.pointee.topLevelValues &+= 1 }
    s.pointee.path.willStartValue()
}

/// Delivers a container start and opens the container, unless it would be deeper than allowed:
/// then it records a depth-limit error and returns 0 without calling the handler.
@inline(__always)
private func open(
    _ s: UnsafeMutablePointer<ParserState>,
    isArray: Bool,
    _ body: (JSONEventContext) throws -> Void
) -> Int32 {
    let depth = s.pointee.path.depth &+ 1
    if _slowPath(depth > s.pointee.maxDepth) { return tooDeep(s) }
    if depth > s.pointee.maxDepthSeen { s.pointee.maxDepthSeen = depth }
    let result = deliver(s, body)
    s.pointee.path.push(isArray: isArray)
    return result
}

/// Records the depth-limit error of a container that would open too deep; returns YAJL's "stop".
/// Out of line: the error is no part of the per-container path.
@inline(never)
private func tooDeep(_ s: UnsafeMutablePointer<ParserState>) -> Int32 {
    s.pointee.pendingError = LimitViolation.depth(offset: s.pointee.currentOffset - 1)
    return 0
}

/// A limit hit inside a callback; `JSONParser` turns it into a located `JSONParseError`.
enum LimitViolation: Error {
    case depth(offset: Int)
    /// A captured container took more bytes of its tape than its handler allowed.
    case captureBytes
}

/// A handler whose captures have a byte limit (``JSONEventContext/recordInside(on:byteLimit:)``):
/// it says what went over it, once the parse has stopped there.
protocol CaptureLimitReporting: AnyObject {
    func captureByteLimitError() -> any Error
}

private nonisolated(unsafe) let sharedCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { context in
                withTarget(context) { t, s in
                    willStartValue(s)
                    return deliver(s) { try t.handler.null(context: $0) }
                }
            },
            yajl_boolean: { context, value in
                withTarget(context) { t, s in
                    willStartValue(s)
                    return deliver(s) { try t.handler.bool(value != 0, context: $0) }
                }
            },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { context, text, length in
                withTarget(context) { t, s in
                    willStartValue(s)
                    let view = JSONNumberView(bytes: UnsafeRawBufferPointer(start: text, count: length))
                    return deliver(s) { try t.handler.number(view, context: $0) }
                }
            },
            yajl_string: { context, bytes, length in
                withTarget(context) { t, s in
                    willStartValue(s)
                    let view = JSONStringView(bytes: UnsafeRawBufferPointer(start: bytes, count: length))
                    return deliver(s) { try t.handler.string(view, context: $0) }
                }
            },
            yajl_start_map: { context in
                withTarget(context) { t, s in
                    willStartValue(s)
                    let result = open(s, isArray: false) { try t.handler.startObject(context: $0) }
                    return beginCaptureIfAsked(s, context, result)
                }
            },
            yajl_map_key: { context, bytes, length in
                withTarget(context) { t, s in
                    let view = UnsafeRawBufferPointer(start: bytes, count: length)
                    s.pointee.path.setKey(view)
                    return deliver(s) { try t.handler.key(JSONStringView(bytes: view), context: $0) }
                }
            },
            yajl_end_map: { context in
                withTarget(context) { t, s in
                    s.pointee.path.pop()
                    return deliver(s) { try t.handler.endObject(context: $0) }
                }
            },
            yajl_start_array: { context in
                withTarget(context) { t, s in
                    willStartValue(s)
                    let result = open(s, isArray: true) { try t.handler.startArray(context: $0) }
                    return beginCaptureIfAsked(s, context, result)
                }
            },
            yajl_end_array: { context in
                withTarget(context) { t, s in
                    s.pointee.path.pop()
                    return deliver(s) { try t.handler.endArray(context: $0) }
                }
            }
        )
    )
    return table
}()

/// The callbacks of a parser that delivers no events (``JSONParser/validate(_:options:)``): the
/// same path, depth and event bookkeeping as ``sharedCallbacks`` (so limits and error locations are
/// the same), without making contexts or calling a handler.
private nonisolated(unsafe) let validatingCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { context in scalarSeen(callbackState(context)) },
            yajl_boolean: { context, _ in scalarSeen(callbackState(context)) },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { context, _, _ in scalarSeen(callbackState(context)) },
            yajl_string: { context, _, _ in scalarSeen(callbackState(context)) },
            yajl_start_map: { context in
                let s = callbackState(context)
                willStartValue(s)
                return open(s, isArray: false) { _ in }
            },
            yajl_map_key: { context, bytes, length in
                let s = callbackState(context)
                s.pointee.path.setKey(UnsafeRawBufferPointer(start: bytes, count: length))
                s.pointee.eventCount &+= 1
                return 1
            },
            yajl_end_map: { context in containerEnded(callbackState(context)) },
            yajl_start_array: { context in
                let s = callbackState(context)
                willStartValue(s)
                return open(s, isArray: true) { _ in }
            },
            yajl_end_array: { context in containerEnded(callbackState(context)) }
        )
    )
    return table
}()

@inline(__always)
private func scalarSeen(_ s: UnsafeMutablePointer<ParserState>) -> Int32 {
    willStartValue(s)
    s.pointee.eventCount &+= 1
    return 1
}

@inline(__always)
private func containerEnded(_ s: UnsafeMutablePointer<ParserState>) -> Int32 {
    s.pointee.path.pop()
    s.pointee.eventCount &+= 1
    return 1
}
