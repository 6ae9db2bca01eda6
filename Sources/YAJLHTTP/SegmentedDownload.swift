import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One segment of a segmented download: its bytes as they arrive, and how its fetch ended.
final class SegmentSlot: @unchecked Sendable {
    let index: Int
    let range: Range<Int>
    /// The segment's bytes. The worker writes past `filled`, the reader reads before it; `filled`,
    /// `failure` and `resumes` are guarded by the window's condition.
    let buffer: UnsafeMutableRawBufferPointer
    var filled = 0
    var failure: (any Error)?
    var resumes = 0

    init(index: Int, range: Range<Int>) {
        self.index = index
        self.range = range
        buffer = .allocate(byteCount: range.count, alignment: 16)
    }

    deinit { buffer.deallocate() }
}

/// The segments being fetched and not yet read, shared by the reader and the worker threads
/// under one condition: at most `window` of them exist at once (memory: `window × segmentSize`).
final class SegmentWindow: @unchecked Sendable {
    private let condition = ConditionLock()
    // Guarded by `condition`.
    private var slots: [Int: SegmentSlot] = [:]
    private var nextToStart = 1
    private var reading = 0
    private var cancelled = false
    let count: Int
    let segmentSize: Int
    let total: Int
    let window: Int

    init(first: SegmentSlot, total: Int, segmentSize: Int, window: Int) {
        self.total = total
        self.segmentSize = segmentSize
        self.window = window
        count = (total + segmentSize - 1) / segmentSize
        slots[0] = first
    }

    /// A worker: the next segment to fetch, once the window has room; `nil` when all are taken
    /// or the download is cancelled.
    func nextSlot() -> SegmentSlot? {
        condition.withLock {
            while !cancelled && nextToStart < count && nextToStart >= reading + window { condition.wait() }
            guard !cancelled, nextToStart < count else { return nil }
            let index = nextToStart
            nextToStart += 1
            let start = index * segmentSize
            let slot = SegmentSlot(index: index, range: start..<min(total, start + segmentSize))
            slots[index] = slot
            return slot
        }
    }

    /// A worker: `n` more bytes of `slot` are in its buffer.
    func arrived(_ n: Int, in slot: SegmentSlot, resumes: Int) {
        condition.withLock {
            slot.filled += n
            slot.resumes = resumes
            condition.broadcast()
        }
    }

    /// A worker: `slot`'s fetch failed.
    func failed(_ slot: SegmentSlot, _ error: any Error) {
        condition.withLock {
            slot.failure = error
            condition.broadcast()
        }
    }

    /// The reader: segment `index` once it has bytes past `offset` (or has failed); `nil` when
    /// `interrupted` says to stop.
    func slot(_ index: Int, past offset: Int, interrupted: () -> Bool) -> SegmentSlot? {
        condition.withLock {
            while true {
                if let slot = slots[index], slot.filled > offset || slot.failure != nil { return slot }
                if interrupted() { return nil }
                condition.wait(seconds: 0.1)
            }
        }
    }

    /// The reader: segment `index` is read; its room goes to the next.
    func release(_ index: Int) {
        condition.withLock {
            slots[index] = nil
            reading = index + 1
            condition.broadcast()
        }
    }

    /// Retries and resumes of the segments still held.
    var resumes: Int { condition.withLock { slots.values.reduce(0) { $0 + $1.resumes } } }

    /// Stops the workers (they end after their current read).
    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }

    /// Fetches `slot` with `connection`, publishing its bytes as they arrive.
    func fetch(_ slot: SegmentSlot, with connection: HTTPByteSource) {
        var filled = condition.withLock { slot.filled }
        do {
            while filled < slot.range.count {
                let n = try connection.read(into: UnsafeMutableRawBufferPointer(rebasing: slot.buffer[filled...]))
                guard n > 0 else {
                    throw HTTPError(
                        kind: .cannotResume,
                        url: connection.url.absoluteString,
                        byteOffset: slot.range.lowerBound + filled,
                        reason: "the segment \(slot.range.lowerBound)-\(slot.range.upperBound - 1) ended early"
                    )
                }
                filled += n
                arrived(n, in: slot, resumes: connection.retries)
            }
        } catch {
            failed(slot, error)
        }
    }
}

/// ``HTTPOptions/segments`` connections for one document: it is read as ranges of
/// ``HTTPOptions/segmentSize`` bytes, each fetched by a connection of its own (an
/// ``HTTPByteSource`` for one segment, which resumes and validates like any) on a worker thread,
/// into a ``SegmentWindow``; ``read(into:)`` hands the bytes out in order as soon as the next ones
/// are there.
///
/// The first connection is an ordinary request for the whole body; its response defines the
/// resource (length, validator, ranges). When the server does not accept ranges, gives no
/// validator (without ``HTTPOptions/resumesWithoutValidator``), compresses the body, or the
/// document fits in one segment, that connection goes on with the whole body and nothing else
/// starts; otherwise it reads the first segment and is closed. Dropping the source stops the
/// workers.
final class SegmentedDownload {
    private unowned let source: HTTPByteSource
    private let stop = ReadInterruption()
    private enum Mode {
        case idle
        /// One connection reads everything.
        case single(HTTPByteSource)
        case segmented(SegmentWindow)
        case failed(any Error)
    }
    private var mode = Mode.idle
    /// The resource, as the first connection's response defined it.
    private(set) var identity: ResourceIdentity?
    private var current = 0
    private var consumed = 0
    private var delivered = 0

    init(source: HTTPByteSource) {
        self.source = source
    }

    deinit {
        stop.set()
        if case .segmented(let window) = mode { window.cancel() }
    }

    /// The next bytes of the document, in order; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch mode {
        case .idle: return try start(reading: buffer)
        case .single(let connection): return handOut(try connection.read(into: buffer), resumes: connection.retries)
        case .failed(let error): throw error
        case .segmented(let window):
            if current == window.count { return 0 }
            guard let slot = window.slot(current, past: consumed, interrupted: { source.isInterrupted }) else {
                throw CancellationError()
            }
            if slot.filled == consumed, let failure = slot.failure {
                mode = .failed(failure)
                window.cancel()
                stop.set()
                throw failure
            }
            let n = min(buffer.count, slot.filled - consumed)
            buffer.baseAddress!.copyMemory(from: slot.buffer.baseAddress! + consumed, byteCount: n)
            consumed += n
            if consumed == slot.range.count {
                window.release(current)
                current += 1
                consumed = 0
            }
            return handOut(n, resumes: window.resumes)
        }
    }

    private func handOut(_ n: Int, resumes: Int) -> Int {
        delivered += n
        let total: Int? =
            switch mode {
            case .segmented(let window): window.total
            case .single(let connection): connection.resourceLength
            default: nil
            }
        source.options.onProgress?(HTTPProgress(receivedBytes: delivered, expectedBytes: total, resumes: resumes))
        return n
    }

    /// Opens the first connection and reads its first bytes into `buffer`; its response tells
    /// whether the document can be segmented. Then starts the workers, or keeps that connection.
    private func start(reading buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let options = source.options
        let first = HTTPByteSource(url: source.url, options: options, segment: nil, identity: nil)
        first.interruption = stop
        first.parent = source
        let n: Int
        do {
            n = try first.read(into: buffer)
        } catch {
            mode = .failed(error)
            throw error
        }
        identity = first.identity
        guard let identity = first.identity, identity.acceptsRanges, let length = identity.totalLength,
            length > options.segmentSize, identity.validator != nil || options.resumesWithoutValidator,
            !identity.compressed, n <= options.segmentSize
        else {
            mode = .single(first)  // no ranges, no validator, or one segment: one connection
            return handOut(n, resumes: first.retries)
        }
        // The first connection reads the first segment (it stops there and is closed; a resume
        // asks for the rest of that segment only).
        let range = 0..<options.segmentSize
        first.segment = range
        let firstSlot = SegmentSlot(index: 0, range: range)
        firstSlot.filled = n  // already handed out
        consumed = n
        let window = SegmentWindow(
            first: firstSlot,
            total: length,
            segmentSize: options.segmentSize,
            window: options.segments
        )
        let (url, stop, parent) = (source.url, stop, WeakSource(source))
        let fetchRest: @Sendable () -> Void = {
            while let slot = window.nextSlot() {
                let connection = HTTPByteSource(url: url, options: options, segment: slot.range, identity: identity)
                connection.interruption = stop
                connection.parent = parent.value
                window.fetch(slot, with: connection)
            }
        }
        let handOff = FirstConnection(first)
        guard
            Syscalls.startDetachedThread(
                stackSize: 1 << 20,
                {
                    if let connection = handOff.take() { window.fetch(firstSlot, with: connection) }
                    fetchRest()  // the first connection is closed by now, not held while the rest runs
                }
            )
        else {
            first.segment = nil  // no thread: one connection, for the whole body
            mode = .single(first)
            return handOut(n, resumes: first.retries)
        }
        mode = .segmented(window)
        for _ in 1..<min(options.segments, window.count) {
            _ = Syscalls.startDetachedThread(stackSize: 1 << 20, fetchRest)
        }
        if consumed == range.count {
            window.release(0)
            current = 1
            consumed = 0
        }
        return handOut(n, resumes: 0)
    }
}

/// The first connection, handed to the worker that reads the first segment, which lets it go
/// (closing it) once that segment is read.
final class FirstConnection: @unchecked Sendable {
    private var connection: HTTPByteSource?
    init(_ connection: HTTPByteSource) { self.connection = connection }
    /// The connection, once; the box no longer holds it.
    func take() -> HTTPByteSource? {
        defer { connection = nil }
        return connection
    }
}

/// A weak reference to the source a worker's connections belong to (workers must not keep it alive).
final class WeakSource: @unchecked Sendable {
    weak var value: HTTPByteSource?
    init(_ value: HTTPByteSource) { self.value = value }
}
