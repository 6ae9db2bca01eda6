import Foundation

/// Reads and parses on a thread of its own while the caller decodes: the engine behind
/// ``JSONRecordReader`` with ``JSONRecordOptions/parsesConcurrently``.
///
/// The parsing thread owns the source and a ``RecordExtraction`` (parser, selector, feeder), which
/// it builds itself: objects written on every event then come from that thread's allocations, not
/// from memory next to the caller's, which would put the two threads' hot fields on shared cache
/// lines. Whenever the completed records fill a small tape (``RecordSelector/batchFootprint``),
/// and after each read, it hands them over on a tape of their own (a batch); the caller decodes a
/// batch (``RecordDecoding``) while the next one is parsed, and gives the tape back for reuse. At
/// most ``maxQueuedBatches`` batches wait, so the parser waits for a slow caller and memory stays
/// a few small tapes.
///
/// Errors keep their place: the records completed before a parse or read error are handed out
/// first. Dropping the pipeline (``cancel()``) makes the thread stop after its current read and
/// release the source.
final class RecordPipeline<Record: Decodable>: @unchecked Sendable {
    /// Records completed by the parser, on the tape that holds them.
    private struct Batch {
        let tape: Tape
        let records: [SelectedValue]
    }

    /// How many parsed batches may wait for the caller.
    static var maxQueuedBatches: Int { 2 }

    // Shared, guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Batch] = []
    private var spareTapes: [Tape] = []
    private var parsingEnded = false
    /// The input's error (parse or read), once parsing has ended.
    private var failure: (any Error)?
    private var cancelled = false

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

    /// Stops the parsing thread after its current read; it then releases the source.
    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }

    // MARK: The parsing thread

    private func parse() {
        let extraction: RecordExtraction<Record>
        do {
            extraction = try RecordExtraction(queries: queries, options: options, report: decoding.report)
        } catch {
            end(failure: error)
            return
        }
        // Batches also end inside a read, once they fill a small tape: three tapes of one read
        // each cost about 1 MiB of resident memory more than small ones.
        extraction.batchIsReady = { [unowned self, unowned(unsafe) extraction] in handOff(from: extraction) }
        while !extraction.isDone && !condition.withLock({ cancelled }) {
            let (buffer, fill) = extraction.nextBuffer()
            do {
                let count = fill ? try source!.readFully(into: buffer) : try source!.read(into: buffer)
                extraction.consume(count, of: buffer)
            } catch {
                extraction.fail(error)
            }
            if extraction.hasCompletedRecords { handOff(from: extraction) }
        }
        source = nil  // close the file as soon as parsing is over
        end(failure: extraction.failure)
    }

    private func end(failure: (any Error)?) {
        condition.withLock {
            self.failure = failure
            parsingEnded = true
            condition.broadcast()
        }
    }

    /// Queues the completed records, waiting while the caller is ``maxQueuedBatches`` behind.
    private func handOff(from extraction: RecordExtraction<Record>) {
        let spare: Tape? = condition.withLock {
            while queue.count >= Self.maxQueuedBatches && !cancelled { condition.wait() }
            return cancelled ? nil : spareTapes.popLast() ?? Tape()
        }
        guard let spare else { return }
        let (tape, records) = extraction.takeCompletedRecords(into: spare)
        condition.withLock {
            queue.append(Batch(tape: tape, records: records))
            condition.broadcast()
        }
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

    /// The tape of the batch that holds record `head`, waiting for the next batch when the
    /// current one is done; `nil` at the end. Throws the input's error after the last batch.
    private func advance() throws -> TapeView? {
        while true {
            if head < currentRecords.count, let tape = currentTape { return tape.view }
            let (ended, failure): (Bool, (any Error)?) = condition.withLock {
                if let used = currentTape {
                    spareTapes.append(used)
                    currentTape = nil
                }
                while queue.isEmpty && !parsingEnded { condition.wait() }
                guard !queue.isEmpty else { return (true, self.failure) }
                let batch = queue.removeFirst()
                (currentTape, currentRecords, head) = (batch.tape, batch.records, 0)
                condition.broadcast()
                return (false, nil)
            }
            if ended {
                if let failure { throw failure }
                return nil
            }
        }
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
