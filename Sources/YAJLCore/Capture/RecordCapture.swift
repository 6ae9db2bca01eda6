// Capture/: follows the queries through the parse events and captures each selected value on a
// tape, deciding what the stream could not (filters, negative indices, order) once a value is
// whole; calls Path/, Tape/ and, through the parser bridge, the C capture callbacks.

// About 300 lines: the handler of every parse event, each with its capturing and its following
// branch; what a capture needs once complete lives in RecordCapture+Evaluation.swift.

/// The parser's handler for records: selects values by path while the document streams, and
/// captures each selected value on a ``Tape``.
///
/// Outside a captured value it only follows the paths (one state mask per open container, nothing
/// at all below containers no path can reach); inside one it records events on a ``Tape``. A value
/// is captured when it is selected, when it is a filter's candidate, or when its query needs it
/// whole (see ``PathMatcher``); once complete, what the stream could not decide is decided on it
/// by ``PathEvaluator``, which also finds the matches nested inside it. Memory is the value being
/// captured plus the records of the current chunk not yet handed out.
final class RecordCapture: JSONEventHandler, CaptureLimitReporting {
    private struct Frame {
        var states: UInt64
        var isArray: Bool
        var nextIndex = 0
        /// States of the member whose key was just read.
        var memberStates: UInt64 = 0
        /// Queries whose anchor is this container: exhausted when it ends.
        var anchors: UInt64 = 0
        /// Numbers the frames opened (see ``elementPaths``).
        var serial = 0
    }

    /// Frames opened so far (their ``Frame/serial``).
    private var framesOpened = 0
    /// The path of the array whose elements were selected last, made once for all of them.
    private var elementPaths: (depth: Int, serial: Int, prefix: JSONPath)?

    let matcher: PathMatcher
    private let stopsEarly: Bool
    let limit: Int?
    let order: JSONRecordOptions.Order
    let maxBufferedBytes: Int
    @exclusivity(unchecked)
    private var frames: [Frame] = []
    /// Selected values, recorded flat; cleared by the consumer once its records are handed out.
    let tape = Tape()
    /// The value being captured, and what to do when it is complete.
    var captureInfo: PendingCapture?
    struct PendingCapture {
        var record: SelectedValue
        /// Its live states.
        let states: UInt64
        /// Its parent's live states (whose filters it may be a candidate of).
        let parentStates: UInt64
        let anchors: UInt64
        /// Whether ``PathEvaluator`` decides its records (else: itself, once per query selecting it).
        let evaluates: Bool
    }
    /// The index of the capture being evaluated (its storage reused from capture to capture).
    var capturedTree = CapturedTree()
    /// Whether the capture in progress is held whole for its query's sake (its size is limited
    /// by ``JSONRecordOptions/maxBufferedBytes``).
    var isBuffering = false
    private var exhausted: UInt64 = 0
    private let allQueries: UInt64

    /// Completed records, in order, waiting to be handed out.
    @exclusivity(unchecked)
    var ready: [SelectedValue] = []
    /// Records selected so far.
    var selectedCount = 0
    /// The most records handed out in one batch so far (see ``takeCompletedRecords(into:)``).
    private var largestBatch = 0
    /// Called when a record completes and the tape holds at least ``batchFootprint`` bytes, to
    /// hand the completed records out before the read ends (keeping tapes small). Returns
    /// `false` when nobody takes records any more (the reader was dropped or cancelled): the
    /// parse then stops at once, not at the end of the read.
    var batchIsReady: (() -> Bool)?
    /// See ``batchIsReady``.
    static var batchFootprint: Int { 64 << 10 }

    init(queries: [JSONPathQuery], options: JSONRecordOptions, stopsEarly: Bool) throws {
        matcher = try PathMatcher(queries, rfcOrder: options.order == .rfc)
        self.stopsEarly = stopsEarly
        self.limit = options.limit
        self.order = options.order
        self.maxBufferedBytes = options.maxBufferedBytes
        allQueries = queries.count >= 64 ? ~0 : (1 << UInt64(queries.count)) - 1
    }

    /// Forgets the open containers (a new top-level value follows).
    func resetFrames() { frames.removeAll(keepingCapacity: true) }

    /// With NDJSON lines that may fail (``JSONRecordOptions/BadLinePolicy/skip``), records are
    /// handed out only between lines: never mid-read.
    var holdsBatches = false

    /// Drops the handed-out records from the tape, keeping a record still being recorded.
    func releaseHandedOutRecords() {
        ready.removeAll(keepingCapacity: true)
        if let start = captureInfo?.record.start, tape.isCapturing {
            tape.discard(before: start, positionsBefore: captureInfo!.record.positionStart)
            rebaseCapture()
        } else {
            tape.removeAll()
        }
    }

    /// Hands out the completed records, moved to `spare` (a tape no longer needed), and goes on
    /// recording with a record still being recorded, if any.
    func takeCompletedRecords(into spare: Tape) -> (tape: Tape, records: [SelectedValue]) {
        spare.removeAll()
        if let start = captureInfo?.record.start, tape.isCapturing {
            spare.takeIncompleteRecord(from: tape, at: start, positionsAt: captureInfo!.record.positionStart)
            rebaseCapture()
        }
        // `spare` holds the incomplete record (if any), `tape` the completed ones: exchange them.
        tape.swapContents(with: spare)
        // The records leave with the batch; the next batch's list starts with room for as many as
        // the largest batch so far (batches are cut by size, so full ones hold alike counts):
        // grown from empty, it would be reallocated and moved several times per batch.
        let handedOut = ready
        largestBatch = max(largestBatch, handedOut.count)
        ready = []
        ready.reserveCapacity(largestBatch)
        return (spare, handedOut)
    }

    /// The record being captured now starts the tape.
    private func rebaseCapture() {
        captureInfo?.record.start = 0
        captureInfo?.record.positionStart = 0
        captureInfo?.record.positionRoot = 0
    }

    // MARK: Matching

    /// The states of the value that starts now.
    @inline(__always)
    private func statesOfNewValue() -> UInt64 {
        guard !frames.isEmpty else { return matcher.initial }
        let top = frames.count - 1
        if frames[top].states == 0 { return 0 }
        if frames[top].isArray {
            let index = frames[top].nextIndex
            frames[top].nextIndex += 1
            return matcher.step(frames[top].states, index: index)
        }
        return frames[top].memberStates
    }

    /// A scalar or a container starts outside any capture: capture it, follow it, or skip it.
    private func valueStarts(
        isContainer: Bool,
        isArray: Bool,
        context: JSONEventContext,
        record: (Tape) -> SourcePosition
    ) throws {
        let parentStates = frames.last?.states ?? 0
        let states = statesOfNewValue()
        if let top = frames.last, top.isArray, top.anchors & matcher.indexLimitedQueries != 0 {
            passedIndexLimits(of: top, context: context)
        }
        // A value is a query's anchor when its states reach the anchor state and its parent's did
        // not (a `..` segment after the anchor keeps the state alive below it).
        let anchors = states == 0 ? 0 : matcher.anchoredQueries(states) & ~matcher.anchoredQueries(parentStates)
        let isCandidate =
            parentStates & matcher.filterStates & (isArray ? ~matcher.arrayRejectingFilterStates : ~0) != 0
        let isBuffered =
            states & matcher.bufferStates != 0 || (isArray && states & matcher.arrayBufferStates != 0)
        if states & matcher.accepting != 0 || isCandidate || isBuffered {
            if let limit, selectedCount >= limit {  // `limit: 0` selects nothing
                context.stop()
                return
            }
            let start = tape.count
            let positionStart = tape.positionCount
            let position = record(tape)
            let path = pathOfNewValue(context: context)
            captureInfo = PendingCapture(
                record: SelectedValue(
                    start: start,
                    positionStart: positionStart,
                    positionRoot: start,
                    path: path.prefix,
                    lastComponent: path.last,
                    queryIndex: 0,
                    topLevelIndex: context.topLevelIndex,
                    line: position.line,
                    byteOffset: position.offset
                ),
                states: states,
                parentStates: parentStates,
                anchors: anchors,
                evaluates: isCandidate || isBuffered || matcher.mayRepeat
                    || (isContainer && states & ~matcher.accepting != 0)
            )
            isBuffering = isBuffered && states & matcher.accepting == 0 && !isCandidate
            if !isContainer {
                try emit(context: context)
            } else {
                // Inside, there is only recording left to do: the capture callbacks (capture.h)
                // do it, with the size limit of a value held whole for its query's sake.
                context.recordInside(on: tape, byteLimit: isBuffering ? maxBufferedBytes : .max)
            }
        } else if isContainer {
            framesOpened &+= 1
            frames.append(Frame(states: states, isArray: isArray, anchors: anchors, serial: framesOpened))
        } else if anchors != 0 {
            exhaust(anchors, context: context)
        }
    }

    /// The path of the value starting now, as a prefix and a last step: for an element of an
    /// array, the array's path (made from the parser's path once per array) and its index; else
    /// the parser's path whole.
    private func pathOfNewValue(context: JSONEventContext) -> (prefix: JSONPath, last: JSONPath.Component?) {
        guard let top = frames.indices.last, frames[top].isArray else { return (context.path ?? .root, nil) }
        let index = JSONPath.Component.index(frames[top].nextIndex - 1)
        if let cached = elementPaths, cached.depth == top, cached.serial == frames[top].serial {
            return (cached.prefix, index)
        }
        guard var path = context.path else { return (.root, nil) }
        guard path.components.last == index else { return (path, nil) }
        path.components.removeLast()
        elementPaths = (top, frames[top].serial, path)
        return (path, index)
    }

    private func emit(context: JSONEventContext) throws {
        guard var info = captureInfo.take() else { return }  // moved out: no copy, no release
        isBuffering = false
        let before = ready.count
        let anchors = info.anchors
        if info.evaluates {
            try evaluate(info)
        } else {
            var accepted = info.states & matcher.accepting
            while accepted != 0 {
                let query = matcher.states[accepted.trailingZeroBitCount].query
                accepted &= accepted - 1
                if accepted == 0 {
                    // The last (usually the only) query: the record itself is moved to the list.
                    info.record.queryIndex = query
                    ready.append((consume info).record)
                    break
                }
                ready.append(info.record.selected(by: query))
            }
        }
        selectedCount += ready.count - before
        if let limit, selectedCount >= limit {
            ready.removeLast(selectedCount - limit)
            selectedCount = limit
            context.stop()
            return
        }
        if anchors != 0 { exhaust(anchors, context: context) }
        if tape.footprint >= Self.batchFootprint, !holdsBatches, let batchIsReady, !batchIsReady() { context.stop() }
    }

    /// An element of an anchor array starts: the queries that select nothing at its index or
    /// beyond (`$.a[0:10]` at index 10) are done.
    private func passedIndexLimits(of frame: Frame, context: JSONEventContext) {
        let index = frame.nextIndex - 1
        var queries = frame.anchors & matcher.indexLimitedQueries
        var done: UInt64 = 0
        while queries != 0 {
            let query = queries.trailingZeroBitCount
            queries &= queries - 1
            if let limit = matcher.anchorIndexLimits[query], index >= limit { done |= 1 << UInt64(query) }
        }
        if done != 0 { exhaust(done, context: context) }
    }

    private func exhaust(_ queries: UInt64, context: JSONEventContext) {
        guard stopsEarly else { return }
        exhausted |= queries
        if exhausted & allQueries == allQueries {
            context.stop()
        }
    }

    private func containerEnds(context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.endContainer()
            if !tape.isCapturing { try emit(context: context) }
            return
        }
        guard let frame = frames.popLast() else { return }
        if frame.anchors != 0 { exhaust(frame.anchors, context: context) }
    }

    // MARK: Events

    // Every event below comes from outside a capture, but for the one that closes it: the
    // capture callbacks record what is inside (see ``valueStarts(isContainer:isArray:context:record:)``).

    func startObject(context: JSONEventContext) throws {
        try valueStarts(isContainer: true, isArray: false, context: context) {
            let position = context.start(ofTokenLength: 1)
            $0.startContainer(.object, at: position)
            return position
        }
    }

    func startArray(context: JSONEventContext) throws {
        try valueStarts(isContainer: true, isArray: true, context: context) {
            let position = context.start(ofTokenLength: 1)
            $0.startContainer(.array, at: position)
            return position
        }
    }

    func endObject(context: JSONEventContext) throws { try containerEnds(context: context) }
    func endArray(context: JSONEventContext) throws { try containerEnds(context: context) }

    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        if let top = frames.indices.last, frames[top].states != 0 {
            frames[top].memberStates = matcher.step(frames[top].states, key: key.bytes)
        }
    }

    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        try valueStarts(isContainer: false, isArray: false, context: context) {
            let position = context.start(ofString: value)
            $0.text(.string, value.bytes, at: position)
            return position
        }
    }

    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        try valueStarts(isContainer: false, isArray: false, context: context) {
            let position = context.start(ofTokenLength: value.bytes.count)
            $0.number(value.bytes, at: position)
            return position
        }
    }

    func bool(_ value: Bool, context: JSONEventContext) throws {
        try valueStarts(isContainer: false, isArray: false, context: context) {
            let position = context.start(ofTokenLength: value ? 4 : 5)
            $0.scalar(.bool, value, at: position)
            return position
        }
    }

    func null(context: JSONEventContext) throws {
        try valueStarts(isContainer: false, isArray: false, context: context) {
            let position = context.start(ofTokenLength: 4)
            $0.scalar(.null, at: position)
            return position
        }
    }
}
