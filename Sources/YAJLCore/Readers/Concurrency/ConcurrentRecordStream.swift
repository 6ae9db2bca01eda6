#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and parses on a thread of its own while the caller decodes: the concurrent mode of
/// ``RecordStream`` (a blocking source with ``JSONRecordOptions/parsesConcurrently``).
///
/// The parsing thread owns the source and a ``RecordParser`` (parser, capture, feeder), which
/// it builds itself: objects written on every event then come from that thread's allocations, not
/// from memory next to the caller's, which would put the two threads' hot fields on shared cache
/// lines. Whenever the completed records fill a small tape (``RecordCapture/batchFootprint``),
/// and after each read, it hands them over on a tape of their own (a batch, through a
/// ``BatchChannel``); the caller decodes a batch (``RecordDecoder``) while the next one is parsed,
/// and gives the tape back for reuse. When the caller falls behind
/// (``JSONRecordOptions/helpAfterQueuedBatches`` batches wait) and the record type is `Sendable`
/// (``JSONRecordOptions/parsingThreadHelpsDecode``), the parsing thread decodes the batch it hands
/// over itself, with a ``RecordDecoder`` of its own, instead of soon waiting idle for room: the
/// caller then only takes the values (``DecodedBatch``), and counts, skips or throws each one as
/// if it had decoded it. The caller waits by blocking (``nextRecord()``) or by suspending
/// (``awaitNextRecord()``), so async code never blocks a thread of the cooperative pool:
/// the blocking reads happen on the parsing thread.
///
/// Errors keep their place: the records completed before a parse or read error are handed out
/// first. ``cancel()`` (the reader's `deinit`, or task cancellation) makes the thread stop and
/// release the source; a read it is blocked in (a pipe, a socket, the network) is interrupted
/// within a tenth of a second for the built-in sources.
final class ConcurrentRecordStream<Record: Decodable>: @unchecked Sendable {
    private let channel = BatchChannel()
    /// Interrupts a read the parsing thread is blocked in, when the pipeline is cancelled.
    private let interruption = ReadInterruption()

    // Given to the parsing thread when it starts.
    private let queries: [JSONPathQuery]
    private let options: JSONRecordOptions
    private var source: (any JSONByteSource)?
    /// The parsing thread's decoder, when it helps decode (made on that thread).
    private var helper: RecordDecoder<Record>?

    // The caller's.
    private let decoder: RecordDecoder<Record>
    private var currentTape: Tape?
    private var currentRecords: [SelectedValue] = []
    /// The current batch's records, when the parsing thread decoded them.
    private var currentDecoded: DecodedBatch<Record>?
    private var head = 0

    /// A stream for `queries`, validated by the caller (``RecordParser/validate(_:)``).
    init(
        queries: [JSONPathQuery],
        options: JSONRecordOptions,
        decoder: RecordDecoder<Record>,
        source: any JSONByteSource
    ) {
        self.queries = queries
        self.options = options
        self.source = source
        self.decoder = decoder
    }

    /// Starts the parsing thread; `false` if no thread could be created.
    func start() -> Bool {
        // The stream is handed to the thread as a whole (see the type's comment on who owns what).
        // 8 MiB, as a main thread has: the thread may decode records (a recursive `init(from:)`
        // up to JSONRecordDecodingOptions.maxDepth levels); only the pages used become resident.
        Syscalls.startDetachedThread(stackSize: 8 << 20) { [self] in parse() }
    }

    /// The source back, when the parsing thread could not be started.
    func takeSource() -> (any JSONByteSource)? {
        defer { source = nil }
        return source
    }

    /// Stops the parsing thread after its current read; it then releases the source. A caller
    /// waiting for records is woken (and gets no more). Called when the stream is dropped.
    func cancel() {
        interruption.set()
        channel.cancel()
    }

    // MARK: The parsing thread

    private func parse() {
        let parser: RecordParser
        do {
            parser = try RecordParser(queries: queries, options: options, report: decoder.report)
        } catch {
            channel.end(failure: error)
            return
        }
        if options.parsingThreadHelpsDecode { helper = RecordDecoder(options: options, report: decoder.report) }
        // Batches also end inside a read, once they fill a small tape: three tapes of one read
        // each cost about 1 MiB of resident memory more than small ones.
        parser.capture.batchIsReady = { [unowned self, unowned(unsafe) parser] in handOff(from: parser) }
        if var interruptible = source as? any InterruptibleByteSource {
            interruptible.interruption = interruption
            source = interruptible
        }
        while !parser.isDone && !channel.isCancelled {
            parser.readAndParse(from: &source!)
            if !parser.capture.ready.isEmpty { handOff(from: parser) }
        }
        source = nil  // close the file as soon as parsing is over
        channel.end(failure: parser.failure)
    }

    /// Queues the completed records, waiting while the caller is behind; when it is and this
    /// thread helps decode, decodes them first. `false` when the stream was cancelled (or has
    /// ended): nothing more is queued.
    @discardableResult
    private func handOff(from parser: RecordParser) -> Bool {
        var decoded: AnyObject?
        if let helper, channel.queuedBatches >= options.helpAfterQueuedBatches {
            decoded = DecodedBatch(parser.capture.ready, from: parser.capture.tape.view, with: helper)
        }
        guard let spare = channel.spareTapeWhenRoom() else { return false }
        let (tape, records) = parser.capture.takeCompletedRecords(into: spare)
        channel.send(RecordBatch(tape: tape, records: records, decoded: decoded))
        return true
    }

    // MARK: The caller

    /// The next record with its metadata; `nil` at the end. Rethrows a decoding error (with the
    /// stop policy), or the input's error once the records before it are handed out.
    func nextRecord() throws -> JSONRecord<Record>? {
        while let view = try advance() {
            head += 1
            if let record = try record(head - 1, from: view) { return record }
        }
        return nil
    }

    /// The next record's value (``nextRecord()`` without the metadata), decoded into `slot`
    /// (uninitialized); `false` at the end.
    func nextValue(into slot: UnsafeMutablePointer<Record>) throws -> Bool {
        while let view = try advance() {
            head += 1
            if try value(head - 1, from: view, into: slot) { return true }
        }
        return false
    }

    /// ``nextRecord()`` for async code: waits for a batch by suspending, not by blocking. Task
    /// cancellation stops the parsing thread and throws `CancellationError`.
    nonisolated(nonsending) func awaitNextRecord() async throws -> JSONRecord<Record>? {
        while true {
            if head < currentRecords.count, let tape = currentTape {
                head += 1
                if let record = try record(head - 1, from: tape.view) { return record }
                continue
            }
            guard try await awaitBatch() else { return nil }
        }
    }

    /// ``nextValue(into:)`` for async code (``awaitNextRecord()`` without the metadata).
    nonisolated(nonsending) func awaitNextValue(into slot: UnsafeMutablePointer<Record>) async throws -> Bool {
        while true {
            if head < currentRecords.count, let tape = currentTape {
                head += 1
                if try value(head - 1, from: tape.view, into: slot) { return true }
                continue
            }
            guard try await awaitBatch() else { return false }
        }
    }

    /// Record `position` of the current batch with its metadata: decoded now, or taken from what
    /// the parsing thread decoded; `nil` when it failed and failures are skipped.
    private func record(_ position: Int, from view: TapeView) throws -> JSONRecord<Record>? {
        if let currentDecoded { return try decoder.takeRecord(currentDecoded, currentRecords, position) }
        return try decoder.decodeRecord(currentRecords, position, from: view)
    }

    /// ``record(_:from:)`` without the metadata, into `slot`; `false` when it failed and failures
    /// are skipped.
    private func value(_ position: Int, from view: TapeView, into slot: UnsafeMutablePointer<Record>) throws -> Bool {
        if let currentDecoded { return try decoder.takeValue(currentDecoded, position, into: slot) }
        return try decoder.decodeValue(currentRecords, position, from: view, into: slot)
    }

    /// Waits (suspending) until a batch is current; `false` at the end.
    nonisolated(nonsending) private func awaitBatch() async throws -> Bool {
        while true {
            try Task.checkCancellation()
            switch take(waiting: false) {
            case .batch: return true
            case .ended(let failure):
                if let failure { throw failure }
                return false
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
        currentDecoded = nil
        if case .batch(let batch) = taken {
            (currentTape, currentRecords, head) = (batch.tape, batch.records, 0)
            if let decoded = batch.decoded { currentDecoded = unsafeDowncast(decoded, to: DecodedBatch<Record>.self) }
        }
        return taken
    }
}
