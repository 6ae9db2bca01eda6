#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Records completed by the parsing thread, on the tape that holds them.
struct RecordBatch {
    let tape: Tape
    let records: [SelectedValue]
    /// The records decoded, when the parsing thread decoded them (a ``DecodedBatch`` of the
    /// stream's record type).
    let decoded: AnyObject?
}

/// The synchronized hand-over between the parsing thread and the caller of a
/// ``ConcurrentRecordStream``: a queue of at most ``maxQueuedBatches`` batches, the tapes given
/// back for reuse, and the stream's state. The caller waits by blocking on the condition or by
/// suspending (one waiter).
final class BatchChannel: @unchecked Sendable {
    /// Where the stream is. Only ever leaves ``running``: the first of ``end(failure:)`` and
    /// ``cancel()`` decides how the caller's stream ends.
    enum State {
        case running
        /// The parsing thread has finished; the input's error, if any.
        case ended((any Error)?)
        /// Either side asked to stop before the end.
        case cancelled
    }

    /// What ``take(returning:waiting:)`` found.
    enum Taken {
        case batch(RecordBatch)
        /// No more batches; the error that ends the stream, if any (`CancellationError` when it
        /// was cancelled).
        case ended((any Error)?)
        /// Nothing yet (only when not waiting).
        case empty
    }

    /// How many parsed batches may wait for the caller: eight, about half a megabyte of tapes.
    ///
    /// The caller is the slower side when decoding; with a short queue it finds the queue empty
    /// whenever the parsing thread is late to wake up, and waits. Eight batches cover those
    /// wake-ups while bounding what is held (Docs/Performance.md, `records-decodable`).
    static var maxQueuedBatches: Int { 8 }

    // All guarded by `condition`.
    private let condition = ConditionLock()
    private var queue: [RecordBatch] = []
    private var spareTapes: [Tape] = []
    private var state = State.running
    private var waiter: CheckedContinuation<Void, Never>?

    /// Whether the stream was cancelled (the parsing thread then stops after its current read).
    var isCancelled: Bool {
        condition.withLock {
            if case .cancelled = state { return true }
            return false
        }
    }

    /// The parsing thread: a tape to move completed records to, once the queue has room; `nil`
    /// when cancelled.
    func spareTapeWhenRoom() -> Tape? {
        condition.withLock {
            while true {
                switch state {
                case .cancelled, .ended: return nil
                case .running:
                    if queue.count < Self.maxQueuedBatches { return spareTapes.popLast() ?? Tape() }
                    condition.wait()
                }
            }
        }
    }

    /// The parsing thread: how many batches wait for the caller now.
    var queuedBatches: Int { condition.withLock { queue.count } }

    /// The parsing thread: queues a batch.
    func send(_ batch: RecordBatch) {
        wake { queue.append(batch) }
    }

    /// The parsing thread: no more batches; `failure` is the input's error, if any.
    func end(failure: (any Error)?) {
        wake { if case .running = state { state = .ended(failure) } }
    }

    /// Either side: stop.
    func cancel() {
        wake { if case .running = state { state = .cancelled } }
    }

    /// The caller: gives back the tape of the batch it is done with, and takes the next batch,
    /// blocking until there is one (or the end) if `waiting`.
    func take(returning used: Tape?, waiting: Bool) -> Taken {
        condition.withLock {
            if let used { spareTapes.append(used) }
            while true {
                if !queue.isEmpty {
                    let batch = queue.removeFirst()
                    condition.broadcast()  // room for the parser
                    return .batch(batch)
                }
                switch state {
                case .ended(let failure): return .ended(failure)
                case .cancelled: return .ended(CancellationError())
                case .running:
                    guard waiting else { return .empty }
                    condition.wait()
                }
            }
        }
    }

    /// The caller, in async code: suspends until a batch, the end or cancellation.
    func waitForBatch() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = condition.withLock {
                if case .running = state, queue.isEmpty {
                    waiter = continuation
                    return false
                }
                return true
            }
            if ready { continuation.resume() }
        }
    }

    /// Changes the state under the lock, then wakes whoever waits: threads on the condition, and
    /// the suspended caller (resumed outside the lock).
    private func wake(_ change: () -> Void) {
        let resumed: CheckedContinuation<Void, Never>? = condition.withLock {
            change()
            condition.broadcast()
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume()
    }
}
