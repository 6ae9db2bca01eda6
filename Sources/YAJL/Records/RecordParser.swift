/// Bytes in, captured records out: a parser with a ``RecordCapture`` as its handler and the
/// ``ChunkFeeder`` that reads for it. It decodes nothing (``RecordDecoder`` does, on the thread
/// that asks for records); ``RecordStream`` drives it in the caller, ``ConcurrentRecordStream``
/// on a thread of its own.
///
/// Errors keep their place: a parse error, or a read error of a blocking source, is held back in
/// ``failure`` until the records completed before it have been handed out.
final class RecordParser {
    private let parser: JSONParser
    /// The selected values captured so far, on its tape.
    let capture: RecordCapture
    private var feeder: ChunkFeeder
    /// An input error, held back until the records completed before it have been handed out.
    private(set) var failure: (any Error)?
    private let report: JSONRecordReport

    init(queries: [JSONPathQuery], options: JSONRecordOptions, report: JSONRecordReport) throws {
        try Self.validate(queries)
        capture = try RecordCapture(
            queries: queries,
            options: options,
            stopsEarly: options.stopsEarly && !options.parser.allowMultipleValues
        )
        // Records carry their paths (and decoding errors name them), so paths are always tracked.
        var parserOptions = options.parser
        parserOptions.tracksPath = true
        parser = JSONParser(options: parserOptions, handler: capture)
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

    /// Reads the next chunk from `source` and parses it; a read error is held back like a parse
    /// error.
    func readAndParse(from source: inout some JSONByteSource) {
        do {
            parse(try feeder.read(from: &source))
        } catch {
            failure = error
        }
    }

    /// Reads the next chunk from an asynchronous source and parses it. A read error (and task
    /// cancellation) is thrown at once; a parse error is held back.
    nonisolated(nonsending) func readAndParse(from source: inout some AsyncJSONByteSource) async throws {
        parse(try await feeder.read(from: &source))
    }

    /// Parses bytes pushed by the caller (``JSONRecordPushParser``); empty at the end of the input.
    func push(_ chunk: UnsafeRawBufferPointer) { parse(chunk) }

    /// Parses a chunk just read (empty at the end of the input).
    private func parse(_ chunk: UnsafeRawBufferPointer) {
        defer { report.setBytesRead(parser.bytesConsumed) }
        do {
            try feeder.feed(chunk, to: parser)
        } catch {
            failure = error
        }
    }

    /// Records that an input error ended the stream, after the waiting records.
    func fail(_ error: any Error) { failure = error }
}
