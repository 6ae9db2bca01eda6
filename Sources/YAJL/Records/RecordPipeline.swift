import Foundation

/// Reads and parses on a thread of its own while the caller decodes: the engine behind
/// ``JSONRecordReader`` with ``JSONRecordOptions/parsesConcurrently``.
///
/// The parsing thread owns the source, the parser and the selector. After each read it hands the
/// completed records over on a tape of their own (a batch); the caller decodes a batch while the
/// next one is parsed, and gives the tape back for reuse.
/// At most ``maxQueuedBatches`` batches wait, so memory is a few reads' worth of records, and
/// the parser waits for the caller, never the other way round for longer than one read.
///
/// Errors keep their place: the records completed before a parse or read error are handed out
/// first. Dropping the pipeline (``cancel()``) makes the thread stop after its current read and
/// release the source.
final class RecordPipeline<Record: Decodable>: @unchecked Sendable {
    /// Records completed by one read, on the tape that holds them.
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
    private var cancelled = false

    // The parsing thread's: `extraction`'s parser, selector and feeder, and the source. (The
    // caller uses only `extraction`'s decoding session, and `failure` once parsing has ended.)
    private let extraction: RecordExtraction<Record>
    private var source: (any JSONByteSource)?

    // The caller's: the batch being decoded.
    private var currentTape: Tape?
    private var currentRecords: [SelectedValue] = []
    private var head = 0

    init(extraction: RecordExtraction<Record>, source: any JSONByteSource) {
        self.extraction = extraction
        self.source = source
    }

    /// Starts the parsing thread.
    func start() {
        // The pipeline is handed to the thread as a whole (see the type's comment on who owns what).
        let body = ThreadBody { [self] in parse() }
        let thread = Thread { body.run() }
        thread.name = "swift-yajl record parser"
        thread.start()
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
        while !extraction.isDone && !condition.withLock({ cancelled }) {
            let (buffer, fill) = extraction.nextBuffer()
            do {
                let count = fill ? try source!.readFully(into: buffer) : try source!.read(into: buffer)
                extraction.consume(count, of: buffer)
            } catch {
                extraction.fail(error)
            }
            if extraction.hasCompletedRecords { handOff() }
        }
        source = nil  // close the file as soon as parsing is over
        condition.withLock {
            parsingEnded = true
            condition.broadcast()
        }
    }

    /// Queues the completed records, waiting while the caller is ``maxQueuedBatches`` behind.
    private func handOff() {
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
            if let record = try extraction.decodeRecord(currentRecords, head - 1, from: view) { return record }
        }
        return nil
    }

    /// The next record's value (``nextRecord()`` without the metadata).
    func nextValue() throws -> Record? {
        while let view = try advance() {
            head += 1
            if let value = try extraction.decodeValue(currentRecords, head - 1, from: view) { return value }
        }
        return nil
    }

    /// The tape of the batch that holds record `head`, waiting for the next batch when the
    /// current one is done; `nil` at the end. Throws the input's error after the last batch.
    private func advance() throws -> TapeView? {
        while true {
            if head < currentRecords.count, let tape = currentTape { return tape.view }
            let ended: Bool = condition.withLock {
                if let used = currentTape {
                    spareTapes.append(used)
                    currentTape = nil
                }
                while queue.isEmpty && !parsingEnded { condition.wait() }
                guard !queue.isEmpty else { return true }
                let batch = queue.removeFirst()
                (currentTape, currentRecords, head) = (batch.tape, batch.records, 0)
                condition.broadcast()
                return false
            }
            if ended {
                if let failure = extraction.failure { throw failure }
                return nil
            }
        }
    }
}

/// A body for a thread that takes over its state from the thread that starts it.
private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
