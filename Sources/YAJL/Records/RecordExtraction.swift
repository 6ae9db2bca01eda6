/// The engine behind ``JSONRecordReader`` and ``JSONRecords``: a parser with a ``RecordSelector``,
/// a read buffer, and decoding of the captured values (``RecordDecoding``) as they are handed out.
///
/// The wrappers only supply the reads (blocking or `async`); everything else is here. With
/// concurrent parsing, ``RecordPipeline`` uses one on its thread for the reading and parsing only.
final class RecordExtraction<Record: Decodable> {
    private let parser: JSONParser
    private let selector: RecordSelector
    private let decoding: RecordDecoding<Record>
    private var feeder: ChunkFeeder
    private var head = 0
    /// An input error, held back until the records completed before it have been handed out.
    private(set) var failure: (any Error)?
    let report: JSONRecordReport

    init(queries: [JSONPathQuery], options: JSONRecordOptions, report: JSONRecordReport) throws {
        try Self.validate(queries)
        selector = try RecordSelector(
            queries: queries, stopsEarly: options.stopsEarly && !options.parser.allowMultipleValues, limit: options.limit)
        // Records carry their paths (and decoding errors name them), so paths are always tracked.
        var parserOptions = options.parser
        parserOptions.tracksPath = true
        parser = JSONParser(options: parserOptions, handler: selector)
        decoding = RecordDecoding(options: options, report: report)
        feeder = ChunkFeeder(options: options.parser)
        self.report = report
    }

    /// Throws what `init` would throw for `queries`: an empty list, or more paths than the
    /// matcher takes.
    static func validate(_ queries: [JSONPathQuery]) throws {
        guard !queries.isEmpty else {
            throw JSONPathSyntaxError(expression: "", position: 0, message: "no path to select")
        }
        _ = try PathMatcher(queries)
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

    /// Reads the next chunk from `source` (filling the buffer while a long token spans reads) and
    /// parses it; a read error is held back like a parse error.
    func readAndParse(from source: inout some JSONByteSource) {
        let (buffer, fill) = nextBuffer()
        do {
            let count = fill ? try source.readFully(into: buffer) : try source.read(into: buffer)
            consume(count, of: buffer)
        } catch {
            fail(error)
        }
    }

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
            if let record = try decoding.decodeRecord(selector.ready, position, from: selector.tape.view) { return record }
        }
        return nil
    }

    /// Called while parsing when the completed records fill a batch (see ``RecordSelector/batchIsReady``).
    var batchIsReady: (() -> Void)? {
        get { selector.batchIsReady }
        set { selector.batchIsReady = newValue }
    }

    /// Whether completed records wait to be handed out.
    var hasCompletedRecords: Bool { !selector.ready.isEmpty }

    /// The completed records, moved to `spare` (a tape no longer needed), for decoding elsewhere
    /// (``RecordDecoding/decodeRecord(_:_:from:)``).
    func takeCompletedRecords(into spare: Tape) -> (tape: Tape, records: [SelectedValue]) {
        selector.takeCompletedRecords(into: spare)
    }
}
