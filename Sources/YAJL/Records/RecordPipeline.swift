import Foundation

/// Reads and parses on a thread of its own while the caller decodes: the engine behind
/// ``JSONRecordReader``, and behind ``JSONRecords`` over a blocking source, with
/// ``JSONRecordOptions/parsesConcurrently``.
///
/// The parsing thread owns the source and a ``RecordExtraction`` (parser, selector, feeder), which
/// it builds itself: objects written on every event then come from that thread's allocations, not
/// from memory next to the caller's, which would put the two threads' hot fields on shared cache
/// lines. Whenever the completed records fill a small tape (``RecordSelector/batchFootprint``),
/// and after each read, it hands them over on a tape of their own (a batch, through a
/// ``BatchChannel``); the caller decodes a batch (``RecordDecoding``) while the next one is parsed,
/// and gives the tape back for reuse. The caller waits by blocking (``nextRecord()``) or by
/// suspending (``awaitNextRecord()``), so async code never blocks a thread of the cooperative pool:
/// the blocking reads happen on the parsing thread.
///
/// Errors keep their place: the records completed before a parse or read error are handed out
/// first. ``cancel()`` (the reader's `deinit`, or task cancellation) makes the thread stop and
/// release the source; a read it is blocked in (a pipe, a socket, the network) is interrupted
/// within a tenth of a second for the built-in sources.
final class RecordPipeline<Record: Decodable>: @unchecked Sendable {
    private let channel = BatchChannel()
    /// Interrupts a read the parsing thread is blocked in, when the pipeline is cancelled.
    private let interruption = ReadInterruption()

    // Given to the parsing thread when it starts.
    private let queries: [JSONPathQuery]
    private let options: JSONRecordOptions
    private var source: (any JSONByteSource)?

    // The caller's.
    private let decoding: RecordDecoding<Record>
    private var currentTape: Tape?
    private var currentRecords: [SelectedValue] = []
    private var head = 0

    /// A pipeline for `queries`, validated by the caller (``RecordExtraction/validate(_:)``).
    init(queries: [JSONPathQuery], options: JSONRecordOptions, report: JSONRecordReport, source: any JSONByteSource) {
        self.queries = queries
        self.options = options
        self.source = source
        decoding = RecordDecoding(options: options, report: report)
    }

    /// Starts the parsing thread; `false` if no thread could be created.
    func start() -> Bool {
        // The pipeline is handed to the thread as a whole (see the type's comment on who owns what).
        ThreadBody { [self] in parse() }.start()
    }

    /// The source back, when the parsing thread could not be started.
    func takeSource() -> (any JSONByteSource)? {
        defer { source = nil }
        return source
    }

    /// Stops the parsing thread after its current read; it then releases the source. A caller
    /// waiting for records is woken (and gets no more).
    func cancel() {
        interruption.set()
        channel.cancel()
    }

    // MARK: The parsing thread

    private func parse() {
        let extraction: RecordExtraction<Record>
        do {
            extraction = try RecordExtraction(queries: queries, options: options, report: decoding.report)
        } catch {
            channel.end(failure: error)
            return
        }
        // Batches also end inside a read, once they fill a small tape: three tapes of one read
        // each cost about 1 MiB of resident memory more than small ones.
        extraction.batchIsReady = { [unowned self, unowned(unsafe) extraction] in handOff(from: extraction) }
        if var interruptible = source as? any InterruptibleByteSource {
            interruptible.interruption = interruption
            source = interruptible
        }
        while !extraction.isDone && !channel.isCancelled {
            extraction.readAndParse(from: &source!)
            if extraction.hasCompletedRecords { handOff(from: extraction) }
        }
        source = nil  // close the file as soon as parsing is over
        channel.end(failure: extraction.failure)
    }

    /// Queues the completed records, waiting while the caller is behind.
    private func handOff(from extraction: RecordExtraction<Record>) {
        guard let spare = channel.spareTapeWhenRoom() else { return }
        let (tape, records) = extraction.takeCompletedRecords(into: spare)
        channel.send(BatchChannel.Batch(tape: tape, records: records))
    }

    // MARK: The caller

    /// The next record with its metadata; `nil` at the end. Rethrows a decoding error (with the
    /// stop policy), or the input's error once the records before it are handed out.
    func nextRecord() throws -> JSONRecord<Record>? {
        while let view = try advance() {
            head += 1
            if let record = try decoding.decodeRecord(currentRecords, head - 1, from: view) { return record }
        }
        return nil
    }

    /// The next record's value (``nextRecord()`` without the metadata), decoded into `slot`
    /// (uninitialized); `false` at the end.
    func nextValue(into slot: UnsafeMutablePointer<Record>) throws -> Bool {
        while let view = try advance() {
            head += 1
            if try decoding.decodeValue(currentRecords, head - 1, from: view, into: slot) { return true }
        }
        return false
    }

    /// ``nextRecord()`` for async code: waits for a batch by suspending, not by blocking. Task
    /// cancellation stops the parsing thread and throws `CancellationError`.
    func awaitNextRecord() async throws -> JSONRecord<Record>? {
        while true {
            if head < currentRecords.count, let tape = currentTape {
                head += 1
                if let record = try decoding.decodeRecord(currentRecords, head - 1, from: tape.view) { return record }
                continue
            }
            try Task.checkCancellation()
            switch take(waiting: false) {
            case .batch: continue
            case .ended(let failure):
                if let failure { throw failure }
                return nil
            case .empty:
                let channel = self.channel
                await withTaskCancellationHandler { await channel.waitForBatch() } onCancel: { channel.cancel() }
            }
        }
    }

    /// The tape of the batch that holds record `head`, waiting (blocking) for the next batch when
    /// the current one is done; `nil` at the end. Throws the input's error after the last batch.
    private func advance() throws -> TapeView? {
        while true {
            if head < currentRecords.count, let tape = currentTape { return tape.view }
            switch take(waiting: true) {
            case .batch: continue
            case .ended(let failure):
                if let failure { throw failure }
                return nil
            case .empty: continue
            }
        }
    }

    /// Gives the done batch's tape back and takes the next batch, if there is one.
    private func take(waiting: Bool) -> BatchChannel.Taken {
        let taken = channel.take(returning: currentTape, waiting: waiting)
        currentTape = nil
        if case .batch(let batch) = taken { (currentTape, currentRecords, head) = (batch.tape, batch.records, 0) }
        return taken
    }
}

/// Owns a ``RecordPipeline`` for a reader or an async iterator, starts it on first use, and stops
/// its parsing thread when dropped: with the reader, or with the iterator (a struct, which has no
/// `deinit`) when a `for try await` loop is left early.
final class PipelineOwner<Record: Decodable> {
    let pipeline: RecordPipeline<Record>
    private var started = false

    init(_ pipeline: RecordPipeline<Record>) { self.pipeline = pipeline }

    /// Starts the parsing thread on first use; `false` if it could not be started.
    func start() -> Bool {
        if started { return true }
        started = true
        return pipeline.start()
    }

    deinit { pipeline.cancel() }
}

/// The synchronized hand-over between the parsing thread and the caller: a queue of at most
/// ``maxQueuedBatches`` batches, the tapes given back, the end (with the input's error), and
/// cancellation. The caller waits by blocking on the condition or by suspending (one waiter).
final class BatchChannel: @unchecked Sendable {
    /// Records completed by the parser, on the tape that holds them.
    struct Batch {
        let tape: Tape
        let records: [SelectedValue]
    }

    /// What ``take(returning:waiting:)`` found.
    enum Taken {
        case batch(Batch)
        /// Parsing has ended; the input's error, if any.
        case ended((any Error)?)
        /// Nothing yet (only when not waiting).
        case empty
    }

    /// How many parsed batches may wait for the caller.
    static var maxQueuedBatches: Int { 2 }

    // All guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Batch] = []
    private var spareTapes: [Tape] = []
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false
    private var waiter: CheckedContinuation<Void, Never>?

    var isCancelled: Bool { condition.withLock { cancelled } }

    /// The parsing thread: a tape to move completed records to, once the queue has room; `nil`
    /// when cancelled.
    func spareTapeWhenRoom() -> Tape? {
        condition.withLock {
            while queue.count >= Self.maxQueuedBatches && !cancelled { condition.wait() }
            return cancelled ? nil : spareTapes.popLast() ?? Tape()
        }
    }

    /// The parsing thread: queues a batch.
    func send(_ batch: Batch) {
        wake { queue.append(batch) }
    }

    /// The parsing thread: no more batches; `failure` is the input's error, if any.
    func end(failure: (any Error)?) {
        wake {
            self.failure = failure
            ended = true
        }
    }

    /// Either side: stop.
    func cancel() {
        wake { cancelled = true }
    }

    /// The caller: gives back the tape of the batch it is done with, and takes the next batch,
    /// blocking until there is one (or the end) if `waiting`.
    func take(returning used: Tape?, waiting: Bool) -> Taken {
        condition.withLock {
            if let used { spareTapes.append(used) }
            while waiting && queue.isEmpty && !ended && !cancelled { condition.wait() }
            if !queue.isEmpty {
                let batch = queue.removeFirst()
                condition.broadcast()  // room for the parser
                return .batch(batch)
            }
            if ended || cancelled { return .ended(cancelled && failure == nil && !ended ? CancellationError() : failure) }
            return .empty
        }
    }

    /// The caller, in async code: suspends until a batch, the end or cancellation.
    func waitForBatch() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = condition.withLock {
                if !queue.isEmpty || ended || cancelled { return true }
                waiter = continuation
                return false
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

/// A body for a thread that takes over its state from the thread that starts it.
///
/// A plain POSIX thread with a small stack (the parser does not recurse).
private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }

    /// Runs the body on a new detached thread; `false` if none could be created.
    func start() -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 512 << 10)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return false
        }
        return true
    }
}
