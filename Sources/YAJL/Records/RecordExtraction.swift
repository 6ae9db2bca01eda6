/// The engine behind ``JSONRecordReader`` and ``JSONRecords``: a parser with a ``RecordSelector``,
/// a read buffer, and decoding of the captured values as they are handed out.
///
/// The wrappers only supply the reads (blocking or `async`); everything else is here.
final class RecordExtraction<Record: Decodable> {
    private let parser: JSONParser
    private let selector: RecordSelector
    private let session: DecodingSession
    private let policy: JSONRecordOptions.DecodingFailurePolicy
    private var feeder: ChunkFeeder
    private var head = 0
    /// An input error, held back until the records completed before it have been handed out.
    private(set) var failure: (any Error)?
    let report: JSONRecordReport

    init(queries: [JSONPathQuery], options: JSONRecordOptions, report: JSONRecordReport) throws {
        guard !queries.isEmpty else {
            throw JSONPathSyntaxError(expression: "", position: 0, message: "no path to select")
        }
        selector = try RecordSelector(
            queries: queries, stopsEarly: options.stopsEarly && !options.parser.allowMultipleValues, limit: options.limit)
        // Records carry their paths (and decoding errors name them), so paths are always tracked.
        var parserOptions = options.parser
        parserOptions.tracksPath = true
        parser = JSONParser(options: parserOptions, handler: selector)
        session = DecodingSession(options: options.decoding)
        policy = options.onDecodingFailure
        feeder = ChunkFeeder(options: options.parser)
        self.report = report
    }

    deinit { feeder.deallocate() }

    /// Whether the input is done (finished, stopped early, or failed).
    var isDone: Bool { parser.state != .parsing || failure != nil }

    /// The buffer for the next read, and whether it must be filled completely (a long token spans reads).
    func nextBuffer() -> (buffer: UnsafeMutableRawBufferPointer, fill: Bool) {
        (feeder.nextBuffer(), feeder.isGrowing)
    }

    /// Parses `count` bytes just read into the buffer; 0 means the end of the input. A parse
    /// error is held back: the records completed before it are handed out first.
    func consume(_ count: Int, of buffer: UnsafeMutableRawBufferPointer) {
        defer { report.setBytesRead(parser.bytesConsumed) }
        do {
            if count == 0 {
                try parser.finish()
                return
            }
            try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            feeder.adapt(producedEvents: parser.lastChunkProducedEvents)
        } catch {
            failure = error
        }
    }

    /// Records that an input error (e.g. a failed read) ended the stream, after the waiting records.
    func fail(_ error: any Error) { failure = error }

    /// The next record: a waiting one, decoded; else the held-back input error; else `nil`.
    func next() throws -> JSONRecord<Record>? {
        if let record = try dequeue() { return record }
        if let failure { throw failure }
        return nil
    }

    /// The next captured record, decoded; `nil` when none is waiting.
    private func dequeue() throws -> JSONRecord<Record>? {
        while head < selector.ready.count {
            let position = head
            head += 1
            defer {
                if head == selector.ready.count {
                    // Every waiting record is handed out: reuse the storage.
                    selector.releaseHandedOutRecords()
                    head = 0
                }
            }
            if let record = try decodeRecord(selector.ready, position, from: selector.tape.view) { return record }
        }
        return nil
    }

    /// Whether completed records wait to be handed out.
    var hasCompletedRecords: Bool { !selector.ready.isEmpty }

    /// The completed records, moved to `spare` (a tape no longer needed), for decoding elsewhere
    /// with ``decode(_:from:)``.
    func takeCompletedRecords(into spare: Tape) -> (tape: Tape, records: [SelectedValue]) {
        selector.takeCompletedRecords(into: spare)
    }

    /// Record `position` of `records` with its metadata, decoded from `view`; `nil` when it fails
    /// to decode and failures are skipped.
    func decodeRecord(_ records: [SelectedValue], _ position: Int, from view: TapeView) throws -> JSONRecord<Record>? {
        guard let value = try decodeValue(records, position, from: view) else { return nil }
        let raw = records[position]
        return JSONRecord(
            value: value, path: raw.path, queryIndex: raw.queryIndex, topLevelIndex: raw.topLevelIndex,
            line: raw.line, byteOffset: raw.byteOffset)
    }

    /// The value of record `position` of `records`, decoded from `view`; `nil` when it fails to
    /// decode and failures are skipped. (The record's metadata is read only for an error.)
    func decodeValue(_ records: [SelectedValue], _ position: Int, from view: TapeView) throws -> Record? {
        do {
            let value = try session.decode(Record.self, from: view, at: records[position].start)
            report.delivered()
            return value
        } catch {
            let failure = Self.describe(error, record: records[position])
            guard policy == .skip else { throw failure }
            report.skipped(failure)
            return nil
        }
    }

    /// A decoding error with the record's path, the coding path and a plain message.
    static func describe(_ error: any Error, record: SelectedValue) -> JSONRecordDecodingError {
        guard let decodingError = error as? DecodingError else {
            return JSONRecordDecodingError(
                recordPath: record.path, path: record.path, message: "\(error)", line: record.line, underlying: nil)
        }
        let codingPath: [any CodingKey]
        let message: String
        switch decodingError {
        case .typeMismatch(let type, let context):
            codingPath = context.codingPath
            message = type == Any.self ? context.debugDescription : "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            codingPath = context.codingPath
            message = context.debugDescription.isEmpty ? "expected \(type), found nothing" : context.debugDescription
        case .keyNotFound(let key, let context):
            codingPath = context.codingPath
            message = "missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            codingPath = context.codingPath
            message = context.debugDescription
        @unknown default:
            codingPath = []
            message = "\(decodingError)"
        }
        let components = codingPath.map { key -> JSONPath.Component in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return .index(index) }
            return .key(key.stringValue)
        }
        return JSONRecordDecodingError(
            recordPath: record.path, path: JSONPath(record.path.components + components), message: message,
            line: record.line, underlying: decodingError)
    }
}
