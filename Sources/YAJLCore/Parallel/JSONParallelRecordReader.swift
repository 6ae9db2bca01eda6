/// A block's record parser and decoder, as a ``ParallelBlockTask``: it decodes on the worker.
final class RecordBlockTask<Record: Decodable>: ParallelBlockTask {
    private let parser: RecordParser?
    private let decoder: RecordDecoder<Record>
    /// What this block skipped; added to the reader's report in input order.
    let report: JSONRecordReport
    /// Records decoded and not yet taken by the reader.
    var records: [JSONRecord<Record>] = []
    /// The error that ends the input here, after ``records``.
    private(set) var failure: (any Error)?

    /// The values before the block (strict NDJSON, unordered: its non-blank lines before it).
    let valuesBefore: Int

    init(block: LineBlock, queries: [JSONPathQuery], options: JSONRecordOptions, unordered: Bool) {
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
        decoder = RecordDecoder(options: options, report: report)
        valuesBefore = block.valuesBefore
        do {
            let parser = try RecordParser(queries: queries, options: options, report: report, strictLines: unordered)
            parser.reportsNoMatch = false  // the reader decides over all blocks
            if block.index > 0 { parser.rebase(offset: block.offset, line: block.line) }
            self.parser = parser
        } catch {
            parser = nil
            failure = error
        }
        parse(block.bytes)
        if unordered { finish() }  // every line stands alone: the block is its own input
    }

    func parse(_ bytes: UnsafeRawBufferPointer) {
        guard !hasEnded, !bytes.isEmpty, let parser else { return }
        parser.push(bytes)
        drain(parser)
    }

    func finish() {
        guard !hasEnded, let parser else { return }
        parser.push(UnsafeRawBufferPointer(start: nil, count: 0))
        drain(parser)
    }

    /// Decodes the records the parser completed, then takes its error, if any.
    private func drain(_ parser: RecordParser) {
        let capture = parser.capture
        defer { capture.releaseHandedOutRecords() }
        var position = 0
        while position < capture.ready.count {
            do {
                if let record = try decoder.decodeRecord(capture.ready, position, from: capture.tape.view) {
                    records.append(record)
                }
            } catch {
                failure = error
                return
            }
            position += 1
        }
        if let error = parser.failure { failure = error }
    }

    var isBetweenValues: Bool { parser?.isBetweenValues ?? true }
    var hasEnded: Bool { failure != nil || parser?.isDone ?? true }
    var hasFailed: Bool { failure != nil }
    var topLevelValueCount: Int { parser?.topLevelValueCount ?? 0 }
}

/// NDJSON records on every core, behind `JSONRecordReader(_:at:from:options:parallel:)`:
/// the values at JSONPath queries in each line, decoded into `Record` on worker threads and handed
/// out **in input order**, with exact paths, lines, byte offsets and value indices, the same
/// records and errors as a reader on one thread gives.
///
/// The input is cut into blocks at newlines (``JSONParallelOptions``); every block is parsed,
/// selected and decoded by a worker, so `Record.init(from:)` and the strategies' closures run on
/// the workers (hence `Sendable`). Memory: the blocks in flight and their decoded records.
/// ``JSONParser/Options/allowMultipleValues`` is turned on; comments and trailing garbage are
/// refused (``JSONOptionError``). Everything else of ``JSONRecordOptions`` applies:
/// ``JSONRecordOptions/onBadLine`` `.skip` (each block skips its own bad lines, reported in
/// order), ``JSONRecordOptions/onDecodingFailure``, ``JSONRecordOptions/limit``.
///
/// With ``JSONParallelOptions/ordered`` off, each block's records come as soon as the block is
/// parsed, for strict NDJSON (one whole value per non-blank line); see that option.
///
/// Dropping the reader stops the workers after their current block and releases the source.
final class ParallelRecordReader<Record: Decodable & Sendable> {
    private let engine: ParallelBlockEngine<RecordBlockTask<Record>>
    /// What the reader has done so far: records delivered and skipped, bytes parsed.
    let report: JSONRecordReport
    private let limit: Int?
    private var open: RecordBlockTask<Record>?
    private var head = 0
    private var valuesBefore = 0
    private var delivered = 0
    private var ended = false
    private let unordered: Bool
    /// The queries as written, when an input without any selected value is an error
    /// (``JSONRecordOptions/requireMatch``).
    private let queriesThatMustMatch: [String]?

    /// A reader of the values at any of `paths` in the NDJSON of `source`.
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path, ``JSONOptionError`` for options out
    ///   of range or that cannot be split at lines.
    init(
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions,
        parallel: JSONParallelOptions,
        report: JSONRecordReport? = nil
    ) throws {
        var options = options
        options.parser.allowMultipleValues = true
        options.parsesConcurrently = false
        try options.validate()
        try options.parser.checkSplittable()
        try parallel.validate()
        if !parallel.ordered && options.onBadLine != .stop {
            throw JSONOptionError(
                option: "JSONRecordOptions.onBadLine",
                value: "skip",
                allowed: "stop to read unordered (or set JSONParallelOptions.ordered)"
            )
        }
        unordered = !parallel.ordered
        let queries = try paths.map(JSONPathQuery.init)
        try RecordParser.validate(queries)
        self.report = report ?? JSONRecordReport(maxKept: options.maxKeptFailures)
        limit = options.limit
        // Each block selects its own part: whether anything matched is decided over all of them.
        var blockOptions = options
        blockOptions.requireMatch = false
        queriesThatMustMatch = RecordParser.queriesThatMustMatch(queries, options: options)
        let (unordered, blockOptionsCopy) = (self.unordered, blockOptions)
        engine = ParallelBlockEngine(source: source, options: parallel) { block in
            RecordBlockTask(block: block, queries: queries, options: blockOptionsCopy, unordered: unordered)
        }
    }

    /// The next record with its path, value index, line and byte offset; `nil` at the end.
    /// - Throws: ``JSONParseError`` (after the records before it), ``JSONRecordDecodingError``,
    ///   or the source's read error.
    func nextRecord() throws -> JSONRecord<Record>? {
        while !ended {
            if let limit, delivered >= limit { return end() }
            if let task = open {
                if head < task.records.count {
                    let record = task.records[head]
                    head += 1
                    delivered += 1
                    report.delivered()
                    return JSONRecord(
                        value: record.value,
                        path: record.path,
                        queryIndex: record.queryIndex,
                        topLevelIndex: record.topLevelIndex + (unordered ? task.valuesBefore : valuesBefore),
                        line: record.line,
                        byteOffset: record.byteOffset
                    )
                }
                // All handed out: a task that goes on into the next block starts a new batch.
                task.records.removeAll(keepingCapacity: true)
                head = 0
                if let failure = task.failure {
                    _ = end()
                    throw failure
                }
                if inputFinished { return try endOfInput() }
            }
            guard let step = try engine.next() else { return try endOfInput() }
            switch step {
            case .parsed(let task, let continued):
                if !continued || open !== task { switchTo(task) }
            case .finished(let task):
                if open !== task { switchTo(task) }
                inputFinished = true
            }
        }
        return nil
    }

    /// The engine has finished the input: once the open task's records are out, the reader ends.
    private var inputFinished = false

    /// Makes `task` the one whose records are handed out, closing the one before.
    private func switchTo(_ task: RecordBlockTask<Record>) {
        close()
        open = task
        head = 0
    }

    private func close() {
        guard let task = open else { return }
        open = nil
        report.absorbSkips(of: task.report)
        report.setBytesRead(max(report.bytesRead, task.report.bytesRead))
        valuesBefore += task.topLevelValueCount
        task.records = []
    }

    /// Ends the reader at the end of its input: with a ``JSONNoMatchError`` when no block selected
    /// any value and ``JSONRecordOptions/requireMatch`` asks for one.
    private func endOfInput() throws -> JSONRecord<Record>? {
        _ = end()
        if limit != 0, delivered == 0, report.skippedCount == 0 {
            report.endedWithoutMatch()
            if let queries = queriesThatMustMatch {
                throw JSONNoMatchError(queries: queries, bytesRead: report.bytesRead)
            }
        }
        return nil
    }

    private func end() -> JSONRecord<Record>? {
        close()
        ended = true
        return nil
    }
}

/// NDJSON records on every core: now an option of ``JSONRecordReader``.
@available(
    *,
    deprecated,
    message: "parallel NDJSON is an option of the record reader: JSONRecordReader(_:at:from:options:parallel:)"
)
public final class JSONParallelRecordReader<Record: Decodable & Sendable> {
    private let reader: JSONRecordReader<Record>
    /// What the reader has done so far: records delivered and skipped, bytes parsed.
    public var report: JSONRecordReport { reader.report }

    /// `JSONRecordReader(type, at: paths, from: source, options: options, parallel: parallel)`.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions = JSONParallelOptions()
    ) throws {
        reader = try JSONRecordReader(type, at: paths, from: source, options: options, parallel: parallel)
    }

    /// `JSONRecordReader(type, at: path, from: source, options: options, parallel: parallel)`.
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions = JSONParallelOptions()
    ) throws {
        try self.init(type, at: [path], from: source, options: options, parallel: parallel)
    }

    /// ``JSONRecordReader/next()``.
    public func next() throws -> Record? { try reader.next() }

    /// ``JSONRecordReader/nextRecord()``.
    public func nextRecord() throws -> JSONRecord<Record>? { try reader.nextRecord() }
}
