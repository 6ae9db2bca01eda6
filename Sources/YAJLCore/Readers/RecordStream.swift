// Readers/: the record readers users hold (JSONRecordReader, JSONRecords, JSONRecordPushParser),
// their options and report, and the parsing thread behind them; calls Parser/, Capture/, Decoding/.

/// The engine behind both public record types: ``JSONRecordReader`` (blocking) and
/// ``JSONRecords`` (async) each wrap one. It chooses, on the first request, between its two modes,
/// and falls back from one to the other in one place:
///
/// - **serial**: a ``RecordParser`` in the caller reads and parses a chunk whenever no record is
///   waiting, and ``RecordDecoder`` decodes the captured records;
/// - **concurrent**: a ``ConcurrentRecordStream`` reads and parses on a thread of its own (a
///   blocking source with ``JSONRecordOptions/parsesConcurrently``); when no thread can be
///   started, the stream goes on serially with the same source.
///
/// Dropping the stream stops its parsing thread and releases the source.
final class RecordStream<Record: Decodable> {
    /// Where the bytes come from.
    enum Input {
        /// A source that blocks the calling thread (a file, a pipe, memory).
        case blocking(any JSONByteSource)
        /// A source read with `await`.
        case async(any AsyncJSONByteSource)
    }

    private enum Mode {
        /// Not started: the first request chooses the mode.
        case idle
        case serial(RecordParser)
        case concurrent(ConcurrentRecordStream<Record>)
        /// An async read failed or was cancelled: every later request throws this.
        case failed(any Error)
    }

    private var mode = Mode.idle
    private let queries: [JSONPathQuery]
    private let options: JSONRecordOptions
    private let decoder: RecordDecoder<Record>
    /// The source, held here (not in `mode`) so that reads mutate it in place; `nil` once the
    /// input is done, so that a file closes as soon as it is read.
    private var blockingSource: (any JSONByteSource)?
    private var asyncSource: (any AsyncJSONByteSource)?
    /// The next waiting record of the serial mode's capture.
    private var head = 0
    /// Where ``nextValue()`` has a record decoded (uninitialized between calls). Allocated last
    /// in `init`, after everything that can throw: a throwing `init` runs no `deinit` to free it.
    private let valueSlot: UnsafeMutablePointer<Record>

    /// A stream of the records at `queries`.
    /// - Throws: ``JSONPathSyntaxError`` for an empty list or more paths than the matcher takes.
    init(queries: [JSONPathQuery], input: Input, options: JSONRecordOptions, report: JSONRecordReport) throws {
        try RecordParser.validate(queries)
        self.queries = queries
        self.options = options
        decoder = RecordDecoder(options: options, report: report)
        switch input {
        case .blocking(let source): blockingSource = source
        case .async(let source): asyncSource = source
        }
        valueSlot = .allocate(capacity: 1)
    }

    deinit {
        if case .concurrent(let stream) = mode { stream.cancel() }
        valueSlot.deallocate()
    }

    // MARK: Blocking

    /// The next record with its metadata; `nil` at the end. Blocks while the source is read.
    func next() throws -> JSONRecord<Record>? {
        switch try started(async: false) {
        case .concurrent(let stream): return try stream.nextRecord()
        case .serial(let parser):
            while true {
                if let record = try dequeueRecord(parser) { return record }
                if let failure = parser.failure { throw failure }
                guard !parser.isDone, blockingSource != nil else {
                    end()
                    return nil
                }
                parser.readAndParse(from: &blockingSource!)
            }
        case .failed(let error): throw error
        case .idle: preconditionFailure("started")
        }
    }

    /// The next record's value decoded into `slot` (uninitialized); `false` at the end. The
    /// record's metadata (path, line, offset) is never built.
    func nextValue(into slot: UnsafeMutablePointer<Record>) throws -> Bool {
        switch try started(async: false) {
        case .concurrent(let stream): return try stream.nextValue(into: slot)
        case .serial(let parser):
            while true {
                if try dequeueValue(parser, into: slot) { return true }
                if let failure = parser.failure { throw failure }
                guard !parser.isDone, blockingSource != nil else {
                    end()
                    return false
                }
                parser.readAndParse(from: &blockingSource!)
            }
        case .failed(let error): throw error
        case .idle: preconditionFailure("started")
        }
    }

    // MARK: Async

    /// The next record with its metadata; `nil` at the end. Suspends (never blocks a thread of the
    /// cooperative pool in the concurrent mode) while the source is read; task cancellation throws
    /// `CancellationError` and releases the source.
    nonisolated(nonsending) func next() async throws -> JSONRecord<Record>? {
        switch try started(async: true) {
        case .concurrent(let stream): return try await stream.awaitNextRecord()
        case .serial(let parser):
            while true {
                if let record = try dequeueRecord(parser) { return record }
                if let failure = parser.failure { throw failure }
                guard !parser.isDone, asyncSource != nil else {
                    end()
                    return nil
                }
                try await readAsync(parser)
            }
        case .failed(let error): throw error
        case .idle: preconditionFailure("started")
        }
    }

    /// The next record's value; `nil` at the end (``next()-async`` without the metadata: no
    /// `JSONRecord` is built).
    nonisolated(nonsending) func nextValue() async throws -> Record? {
        switch try started(async: true) {
        case .concurrent(let stream):
            guard try await stream.awaitNextValue(into: valueSlot) else { return nil }
            return valueSlot.move()
        case .serial(let parser):
            while true {
                if try dequeueValue(parser, into: valueSlot) { return valueSlot.move() }
                if let failure = parser.failure { throw failure }
                guard !parser.isDone, asyncSource != nil else {
                    end()
                    return nil
                }
                try await readAsync(parser)
            }
        case .failed(let error): throw error
        case .idle: preconditionFailure("started")
        }
    }

    /// Reads and parses the next chunk of the async source; a failed read or cancellation
    /// releases the source and fails every later request.
    nonisolated(nonsending) private func readAsync(_ parser: RecordParser) async throws {
        do {
            try await parser.readAndParse(from: &asyncSource!)
        } catch {
            asyncSource = nil  // release the source on cancellation and on a failed read
            mode = .failed(error)
            throw error
        }
    }

    // MARK: The modes

    /// The mode, chosen on the first request: concurrent for a blocking source when
    /// ``JSONRecordOptions/parsesConcurrently`` is set and a thread starts, serial otherwise.
    /// Async requests read a blocking source through ``BlockingAsyncByteSource`` when serial.
    private func started(async: Bool) throws -> Mode {
        guard case .idle = mode else { return mode }
        if options.parsesConcurrently, let source = blockingSource {
            let stream = ConcurrentRecordStream(queries: queries, options: options, decoder: decoder, source: source)
            blockingSource = nil
            if stream.start() {
                mode = .concurrent(stream)
                return mode
            }
            blockingSource = stream.takeSource()  // no thread could be started: parse in the caller
        }
        if async, let source = blockingSource {
            asyncSource = Self.adapted(source)
            blockingSource = nil
        }
        mode = .serial(try RecordParser(queries: queries, options: options, report: decoder.report))
        return mode
    }

    /// A blocking source read from async code (opens the existential for the generic adapter).
    private static func adapted(_ source: some JSONByteSource) -> any AsyncJSONByteSource {
        BlockingAsyncByteSource(source)
    }

    /// The end of the input: releases the source (closing a file at once).
    ///
    /// Returns nothing: the value paths call it too, and a `JSONRecord<Record>?` anywhere in
    /// them costs a lookup of its metadata per record in this unspecialized code.
    private func end() {
        blockingSource = nil
        asyncSource = nil
    }

    /// The next waiting record of the serial mode, decoded; `nil` when none is waiting.
    private func dequeueRecord(_ parser: RecordParser) throws -> JSONRecord<Record>? {
        let capture = parser.capture
        while let position = nextWaiting(capture) {
            if let record = try decoder.decodeRecord(capture.ready, position, from: capture.tape.view) { return record }
        }
        return nil
    }

    /// ``dequeueRecord(_:)`` without the metadata: the value into `slot`; `false` when none is
    /// waiting.
    private func dequeueValue(_ parser: RecordParser, into slot: UnsafeMutablePointer<Record>) throws -> Bool {
        let capture = parser.capture
        while let position = nextWaiting(capture) {
            if try decoder.decodeValue(capture.ready, position, from: capture.tape.view, into: slot) { return true }
        }
        return false
    }

    /// The position of the next waiting record, or `nil` (then the capture's storage is reused:
    /// every waiting record has been handed out).
    private func nextWaiting(_ capture: RecordCapture) -> Int? {
        guard head < capture.ready.count else {
            if head > 0 {
                capture.releaseHandedOutRecords()
                head = 0
            }
            return nil
        }
        head += 1
        return head - 1
    }
}
