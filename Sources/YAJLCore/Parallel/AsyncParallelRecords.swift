/// Parallel NDJSON records for async code, behind `JSONRecords(_:at:from:options:parallel:)`: a
/// ``ParallelRecordReader`` runs on a thread of its own (its workers parse and decode in input
/// order), and hands the iterating task batches of decoded records; the task suspends, never
/// blocks, while it waits. At most ``maxQueuedBatches`` batches of ``batchSize`` records wait.
/// Releasing the iterator or cancelling the task stops that thread after its current record and
/// releases the reader, its workers and the source.
final class AsyncParallelRecords<Record: Decodable & Sendable>: ParallelRecordsIterating {
    /// Records per batch handed over (a batch also goes when the input ends).
    static var batchSize: Int { 256 }
    /// Batches that may wait for the task before the thread waits.
    static var maxQueuedBatches: Int { 4 }

    private let channel = ParallelRecordChannel<Record>()
    private var current: [JSONRecord<Record>] = []
    private var head = 0

    /// Starts the thread, which makes the reader with `makeReader` (its error is the first
    /// `next()`'s).
    init(makeReader: @escaping () throws -> ParallelRecordReader<Record>) {
        let channel = self.channel
        let box = UncheckedBox(makeReader)
        // 8 MiB, as a main thread has: the reader's decoding may run here (workers decode, but a
        // record's init(from:) may also be called by the thread that hands records over).
        let started = Syscalls.startDetachedThread(stackSize: 8 << 20) { channel.produce(box.value) }
        if !started {
            channel.end(JSONParserUsageError(message: "no thread could be started for parallel NDJSON records"))
        }
    }

    deinit { channel.cancel() }

    /// The next record, `nil` at the end; the input's error after the records before it.
    nonisolated(nonsending) func next() async throws -> JSONRecord<Record>? {
        try Task.checkCancellation()
        while true {
            if head < current.count {
                defer { head += 1 }
                return current[head]
            }
            switch channel.take() {
            case .batch(let batch):
                (current, head) = (batch, 0)
            case .ended(let failure):
                current = []
                if let failure { throw failure }
                return nil
            case .cancelled:
                throw CancellationError()
            case .empty:
                let channel = self.channel
                await withTaskCancellationHandler {
                    await channel.waitForBatch()
                } onCancel: {
                    channel.cancel()
                }
            }
        }
    }
}

/// What ``JSONRecords`` iterates for parallel NDJSON, whatever its `Record` (the engine needs a
/// `Sendable` one, which the initializer that makes it has).
protocol ParallelRecordsIterating<Record>: AnyObject {
    associatedtype Record: Decodable
    nonisolated(nonsending) func next() async throws -> JSONRecord<Record>?
}

/// A value moved to the parsing thread and never touched by the starting one again.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Batches from the reader's thread to the task: a queue under a ``ConditionLock`` that the
/// thread waits on when it is full, and a continuation that the task suspends on when it is empty.
final class ParallelRecordChannel<Record: Decodable & Sendable>: @unchecked Sendable {
    enum Taken {
        case batch([JSONRecord<Record>])
        case empty
        /// The input has ended, with its error (handed out once).
        case ended((any Error)?)
        case cancelled
    }

    private enum State {
        case running
        case ended((any Error)?)
        case cancelled
    }

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [[JSONRecord<Record>]] = []
    private var state = State.running
    private var waiter: CheckedContinuation<Void, Never>?

    /// The thread's loop: reads records in batches until the end, an error or cancellation.
    func produce(_ makeReader: () throws -> ParallelRecordReader<Record>) {
        var batch: [JSONRecord<Record>] = []
        do {
            let reader = try makeReader()
            while let record = try reader.nextRecord() {
                batch.append(record)
                if batch.count == AsyncParallelRecords<Record>.batchSize {
                    guard send(batch) else { return }
                    batch = []
                }
            }
            if !batch.isEmpty { guard send(batch) else { return } }
            end(nil)
        } catch {
            if !batch.isEmpty { guard send(batch) else { return } }
            end(error)
        }
    }

    /// Queues `batch`, waiting while the queue is full; `false` once cancelled.
    private func send(_ batch: [JSONRecord<Record>]) -> Bool {
        let (sent, resumed): (Bool, CheckedContinuation<Void, Never>?) = lock.withLock {
            while case .running = state, queue.count >= AsyncParallelRecords<Record>.maxQueuedBatches { lock.wait() }
            guard case .running = state else { return (false, nil) }
            queue.append(batch)
            defer { waiter = nil }
            return (true, waiter)
        }
        resumed?.resume()
        return sent
    }

    /// Ends the input (the thread's last call).
    func end(_ failure: (any Error)?) {
        let resumed: CheckedContinuation<Void, Never>? = lock.withLock {
            if case .running = state { state = .ended(failure) }
            lock.broadcast()
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume()
    }

    /// Stops the thread after its current record, and the task's waiting.
    func cancel() {
        let resumed: CheckedContinuation<Void, Never>? = lock.withLock {
            if case .running = state { state = .cancelled }
            lock.broadcast()
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume()
    }

    /// The next batch, or why there is none.
    func take() -> Taken {
        lock.withLock {
            if !queue.isEmpty {
                lock.broadcast()  // room for the thread
                return .batch(queue.removeFirst())
            }
            switch state {
            case .running: return .empty
            case .cancelled: return .cancelled
            case .ended(let failure):
                state = .ended(nil)  // the error is handed out once
                return .ended(failure)
            }
        }
    }

    /// Suspends until a batch, the end or cancellation.
    func waitForBatch() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if case .running = state, queue.isEmpty {
                    waiter = continuation
                    return false
                }
                return true
            }
            if ready { continuation.resume() }
        }
    }
}
