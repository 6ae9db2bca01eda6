/// A selected value waiting on the tape: where it starts, and where it came from.
struct SelectedValue {
    var start: Int
    /// Where the record's source positions begin on the tape (for errors).
    var positionStart: Int
    let path: JSONPath
    let queryIndex: Int
    let topLevelIndex: Int
    let line: Int
    let byteOffset: Int
}

/// The parser's handler for records: selects values by path while the document streams, and
/// captures each selected value on a ``Tape``.
///
/// Outside a selected value it only follows the path (one state mask per open container, nothing
/// at all below containers no path can reach); inside one it records events on a ``Tape``. Memory
/// is the selected value being recorded plus the records of the current chunk not yet handed out.
final class RecordCapture: JSONEventHandler {
    private struct Frame {
        var states: UInt64
        var isArray: Bool
        var nextIndex = 0
        /// States of the member whose key was just read.
        var memberStates: UInt64 = 0
        /// Queries whose anchor is this container: exhausted when it ends.
        var anchors: UInt64 = 0
    }

    private let matcher: PathMatcher
    private let stopsEarly: Bool
    private let limit: Int?
    @exclusivity(unchecked)
    private var frames: [Frame] = []
    /// Selected values, recorded flat; cleared by the consumer once its records are handed out.
    let tape = Tape()
    /// The value being captured: its record (complete when the value ends) and the queries it
    /// anchors.
    private var captureInfo: PendingCapture?
    private struct PendingCapture {
        var record: SelectedValue
        let anchors: UInt64
    }
    private var exhausted: UInt64 = 0
    private let allQueries: UInt64

    /// Completed records, in document order, waiting to be handed out.
    @exclusivity(unchecked)
    var ready: [SelectedValue] = []
    /// Records selected so far.
    private(set) var selectedCount = 0
    /// Called when a record completes and the tape holds at least ``batchFootprint`` bytes, to
    /// hand the completed records out before the read ends (keeping tapes small).
    var batchIsReady: (() -> Void)?
    /// See ``batchIsReady``.
    static var batchFootprint: Int { 64 << 10 }

    init(queries: [JSONPathQuery], stopsEarly: Bool, limit: Int?) throws {
        matcher = try PathMatcher(queries)
        self.stopsEarly = stopsEarly
        self.limit = limit
        allQueries = queries.count >= 64 ? ~0 : (1 << UInt64(queries.count)) - 1
    }

    /// Drops the handed-out records from the tape, keeping a record still being recorded.
    func releaseHandedOutRecords() {
        ready.removeAll(keepingCapacity: true)
        if let start = captureInfo?.record.start, tape.isCapturing {
            tape.discard(before: start, positionsBefore: captureInfo!.record.positionStart)
            captureInfo?.record.start = 0
            captureInfo?.record.positionStart = 0
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
            captureInfo?.record.start = 0
            captureInfo?.record.positionStart = 0
        }
        // `spare` holds the incomplete record (if any), `tape` the completed ones: exchange them.
        tape.swapContents(with: spare)
        defer { ready = [] }
        return (spare, ready)
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

    /// A scalar or a container starts outside any capture: select it, or follow it.
    private func valueStarts(isContainer: Bool, isArray: Bool, context: JSONEventContext, record: (Tape) -> Void) {
        let parentStates = frames.last?.states ?? 0
        let states = statesOfNewValue()
        // A value is a query's anchor when its states reach the anchor state and its parent's did
        // not (a `..` segment after the anchor keeps the state alive below it).
        let anchors = states == 0 ? 0 : matcher.anchoredQueries(states) & ~matcher.anchoredQueries(parentStates)
        if states & matcher.accepting != 0 {
            if let limit, selectedCount >= limit {  // `limit: 0` selects nothing
                context.stop()
                return
            }
            captureInfo = PendingCapture(
                record: SelectedValue(
                    start: tape.count,
                    positionStart: tape.positionCount,
                    path: context.path ?? .root,
                    queryIndex: matcher.matchedQuery(states),
                    topLevelIndex: context.topLevelIndex,
                    line: context.line,
                    byteOffset: context.byteOffset
                ),
                anchors: anchors
            )
            record(tape)
            if !isContainer { emit(context: context) }
        } else if isContainer {
            frames.append(Frame(states: states, isArray: isArray, anchors: anchors))
        } else if anchors != 0 {
            exhaust(anchors, context: context)
        }
    }

    private func emit(context: JSONEventContext) {
        guard let info = captureInfo else { return }
        captureInfo = nil
        ready.append(info.record)
        selectedCount += 1
        if let limit, selectedCount >= limit {
            context.stop()
            return
        }
        if info.anchors != 0 { exhaust(info.anchors, context: context) }
        if tape.footprint >= Self.batchFootprint, let batchIsReady { batchIsReady() }
    }

    private func exhaust(_ queries: UInt64, context: JSONEventContext) {
        guard stopsEarly else { return }
        exhausted |= queries
        if exhausted & allQueries == allQueries {
            context.stop()
        }
    }

    private func containerEnds(context: JSONEventContext) {
        if tape.isCapturing {
            tape.endContainer()
            if !tape.isCapturing { emit(context: context) }
            return
        }
        guard let frame = frames.popLast() else { return }
        if frame.anchors != 0 { exhaust(frame.anchors, context: context) }
    }

    // MARK: Events

    func startObject(context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.startContainer(.object, at: context.start(ofTokenLength: 1))
        } else {
            valueStarts(isContainer: true, isArray: false, context: context) {
                $0.startContainer(.object, at: context.start(ofTokenLength: 1))
            }
        }
    }

    func startArray(context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.startContainer(.array, at: context.start(ofTokenLength: 1))
        } else {
            valueStarts(isContainer: true, isArray: true, context: context) {
                $0.startContainer(.array, at: context.start(ofTokenLength: 1))
            }
        }
    }

    func endObject(context: JSONEventContext) throws { containerEnds(context: context) }
    func endArray(context: JSONEventContext) throws { containerEnds(context: context) }

    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.text(.key, key.bytes)
        } else if let top = frames.indices.last, frames[top].states != 0 {
            frames[top].memberStates = matcher.step(frames[top].states, key: key.bytes)
        }
    }

    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.text(.string, value.bytes, at: context.start(ofString: value))
        } else {
            valueStarts(isContainer: false, isArray: false, context: context) {
                $0.text(.string, value.bytes, at: context.start(ofString: value))
            }
        }
    }

    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.number(value.bytes, at: context.start(ofTokenLength: value.bytes.count))
        } else {
            valueStarts(isContainer: false, isArray: false, context: context) {
                $0.number(value.bytes, at: context.start(ofTokenLength: value.bytes.count))
            }
        }
    }

    func bool(_ value: Bool, context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.scalar(.bool, value, at: context.start(ofTokenLength: value ? 4 : 5))
        } else {
            valueStarts(isContainer: false, isArray: false, context: context) {
                $0.scalar(.bool, value, at: context.start(ofTokenLength: value ? 4 : 5))
            }
        }
    }

    func null(context: JSONEventContext) throws {
        if tape.isCapturing {
            tape.scalar(.null, at: context.start(ofTokenLength: 4))
        } else {
            valueStarts(isContainer: false, isArray: false, context: context) {
                $0.scalar(.null, at: context.start(ofTokenLength: 4))
            }
        }
    }
}
