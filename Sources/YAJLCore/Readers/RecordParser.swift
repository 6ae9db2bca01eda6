/// Bytes in, captured records out: a parser with a ``RecordCapture`` as its handler and the
/// ``ChunkFeeder`` that reads for it. It decodes nothing (``RecordDecoder`` does, on the thread
/// that asks for records); ``RecordStream`` drives it in the caller, ``ConcurrentRecordStream``
/// on a thread of its own.
///
/// Errors keep their place: a parse error, or a read error of a blocking source, is held back in
/// ``failure`` until the records completed before it have been handed out.
final class RecordParser {
    private var parser: JSONParser
    /// The selected values captured so far, on its tape.
    let capture: RecordCapture
    private var feeder: ChunkFeeder
    /// An input error, held back until the records completed before it have been handed out.
    private(set) var failure: (any Error)?
    private let report: JSONRecordReport

    /// NDJSON read line by line, malformed lines skipped (``JSONRecordOptions/BadLinePolicy/skip``).
    private let lineMode: Bool
    /// Strict NDJSON (unordered parallel blocks): line by line, exactly one value per non-blank
    /// line, and the first bad line ends the input instead of being skipped.
    private let strictLines: Bool
    private let parserOptions: JSONParser.Options
    private let maxLineBytes: Int
    /// The start of a line whose end has not been read yet.
    private var remainder: [UInt8] = []
    /// The number and offset of the next line to parse.
    private var lineNumber = 1
    private var lineStart = 0
    /// Values the current parser had started when it took over (it may have seen none since).
    private var valuesAtTakeover = 0
    /// The input has ended without anything for the current parser to finish (blank lines).
    private var inputEnded = false
    /// The queries as written, when an input without any selected value is an error
    /// (``JSONRecordOptions/requireMatch``); `nil` when it is not.
    private let queriesThatMustMatch: [String]?
    /// Whether an input without any selected value is noted in the report (not with `limit: 0`,
    /// which selects nothing on purpose, nor for a block of parallel NDJSON, whose reader decides).
    var reportsNoMatch: Bool

    init(
        queries: [JSONPathQuery],
        options: JSONRecordOptions,
        report: JSONRecordReport,
        strictLines: Bool = false
    ) throws {
        try Self.validate(queries)
        try options.validate()
        capture = try RecordCapture(
            queries: queries,
            options: options,
            stopsEarly: options.stopsEarly && !options.parser.allowMultipleValues && options.onBadLine == .stop
        )
        // Records carry their paths (and decoding errors name them), so paths are always tracked.
        var parserOptions = options.parser
        parserOptions.tracksPath = true
        self.strictLines = strictLines
        lineMode = options.onBadLine == .skip || strictLines
        if lineMode { parserOptions.allowMultipleValues = true }
        self.parserOptions = parserOptions
        maxLineBytes = options.maxBufferedBytes
        capture.holdsBatches = lineMode
        parser = JSONParser(options: parserOptions, handler: capture)
        feeder = ChunkFeeder(options: options.parser)
        self.report = report
        queriesThatMustMatch = Self.queriesThatMustMatch(queries, options: options)
        reportsNoMatch = options.limit != 0
    }

    /// Throws what `init` would throw for `queries`: an empty list, or more paths than the
    /// matcher takes.
    static func validate(_ queries: [JSONPathQuery]) throws {
        guard !queries.isEmpty else {
            throw JSONPathSyntaxError(expression: "", position: 0, message: "no path to select")
        }
        _ = try PathMatcher(queries)
    }

    /// The queries as written when ``JSONRecordOptions/requireMatch`` applies to them: not to
    /// `$`, which cannot be misspelt, nor with `limit: 0`, which selects nothing on purpose.
    static func queriesThatMustMatch(_ queries: [JSONPathQuery], options: JSONRecordOptions) -> [String]? {
        guard options.requireMatch, options.limit != 0, !queries.contains(where: { $0.segments.isEmpty }) else {
            return nil
        }
        return queries.map(\.expression)
    }

    deinit { feeder.deallocate() }

    /// Whether the input is done (finished, stopped early, or failed).
    var isDone: Bool { parser.state != .parsing || failure != nil || inputEnded }

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
        defer {
            report.setBytesRead(parser.bytesConsumed)
            failIfNothingMatched()
        }
        if lineMode {
            parseLines(chunk)
            return
        }
        do {
            try feeder.feed(chunk, to: parser)
        } catch {
            failure = error
        }
    }

    /// Once the input is done without an error and without a selected value, notes it in the
    /// report, and ends the stream with a ``JSONNoMatchError`` if
    /// ``JSONRecordOptions/requireMatch`` asks for a match.
    private func failIfNothingMatched() {
        guard reportsNoMatch, failure == nil, isDone, capture.selectedCount == 0 else { return }
        reportsNoMatch = false  // once
        report.endedWithoutMatch()
        if let queries = queriesThatMustMatch {
            failure = JSONNoMatchError(queries: queries, bytesRead: parser.bytesConsumed)
        }
    }

    // MARK: NDJSON line by line

    /// Feeds the complete lines of `chunk` one at a time, keeping the start of an unfinished one.
    private func parseLines(_ chunk: UnsafeRawBufferPointer) {
        if chunk.isEmpty {  // the end of the input: the last line, if it has no newline
            let last = remainder
            remainder = []
            last.withUnsafeBytes { feedLine($0, endsInput: true) }
            return
        }
        var rest = chunk
        if !remainder.isEmpty {
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                keep(rest)
                return
            }
            keep(UnsafeRawBufferPointer(rebasing: rest[...newline]))
            guard failure == nil else { return }  // the line is over the limit: none of it is parsed
            rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
            let line = remainder
            remainder.removeAll(keepingCapacity: true)
            line.withUnsafeBytes { feedLine($0, endsInput: false) }
        }
        while failure == nil, parser.state == .parsing, let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            feedLine(UnsafeRawBufferPointer(rebasing: rest[...newline]), endsInput: false)
            rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
        }
        if failure == nil, parser.state == .parsing, !rest.isEmpty { keep(rest) }
    }

    /// Holds the start of a line until its end is read, up to ``JSONRecordOptions/maxBufferedBytes``.
    private func keep(_ bytes: UnsafeRawBufferPointer) {
        guard remainder.count + bytes.count <= maxLineBytes else {
            failure = JSONParseError(
                kind: .documentLimitExceeded,
                message: "line \(lineNumber) is longer than \(maxLineBytes) bytes and has no end yet",
                limitOption: "JSONRecordOptions.maxBufferedBytes",
                byteOffset: lineStart + remainder.count + bytes.count,
                line: lineNumber,
                column: remainder.count + bytes.count + 1,
                path: nil
            )
            return
        }
        remainder.append(contentsOf: bytes)
    }

    /// Parses one line (with its newline, or the input's last bytes); a line that fails, or ends
    /// inside its value, is skipped and reported, and a new parser takes over at the next line.
    private func feedLine(_ line: UnsafeRawBufferPointer, endsInput: Bool) {
        let mark = capture.lineMark
        let number = lineNumber
        let start = lineStart
        let valuesBefore = parser.topLevelValueCount
        lineStart += line.count
        if line.last == UInt8(ascii: "\n") { lineNumber += 1 }
        do {
            if !line.isEmpty { try feeder.feed(line, to: parser) }
            if strictLines && parser.topLevelValueCount - valuesBefore > 1 {
                throw JSONParseError(
                    kind: .unexpectedToken,
                    message:
                        "line \(number) holds \(parser.topLevelValueCount - valuesBefore) values (unordered parallel parsing needs one value per line: set JSONParallelOptions.ordered)",
                    byteOffset: start,
                    line: number,
                    column: 1,
                    path: nil
                )
            }
            guard parser.state == .parsing else { return }  // stopped: a limit, or nothing more can match
            if endsInput {
                if parser.topLevelValueCount == valuesAtTakeover && parser.openDepth == 0 {
                    inputEnded = true  // only blank lines since the last parser took over
                    return
                }
                try feeder.feed(UnsafeRawBufferPointer(start: nil, count: 0), to: parser)  // finishes
            } else if parser.openDepth > 0 {
                throw JSONParseError(
                    kind: .prematureEndOfInput,
                    message: "the line ends inside its value (NDJSON has one value per line)",
                    byteOffset: lineStart - 1,
                    line: number,
                    column: line.count,
                    path: nil
                )
            }
        } catch let error as JSONParseError where strictLines {
            failure = error  // strict: the first bad line ends the input, after the lines before it
        } catch let error as JSONParseError {
            capture.dropLine(since: mark)
            report.skippedLine(JSONBadLine(line: number, byteOffset: start, error: error))
            guard !endsInput else { return }
            // A new parser takes over at the next line, counting offsets and lines from there.
            let next = JSONParser(options: parserOptions, handler: capture)
            next.rebase(offset: lineStart, line: lineNumber, topLevelValues: parser.topLevelValueCount)
            valuesAtTakeover = parser.topLevelValueCount
            parser = next
        } catch {
            failure = error  // not the input's fault (a buffer limit, an option): the stream ends
        }
    }

    // MARK: Parallel NDJSON blocks

    /// Makes this parser continue an input at `offset`, the start of line `line`, with value
    /// indices counted from 0 (a block of parallel NDJSON). Before the first chunk only.
    func rebase(offset: Int, line: Int) {
        parser.rebase(offset: offset, line: line, topLevelValues: 0)
        lineNumber = line
        lineStart = offset
    }

    /// Whether the input so far ends between two top-level values, with no line held back.
    var isBetweenValues: Bool { parser.openDepth == 0 && remainder.isEmpty }

    /// The top-level values started so far (counted from the rebase).
    var topLevelValueCount: Int { parser.topLevelValueCount }

    /// Records that an input error ended the stream, after the waiting records.
    func fail(_ error: any Error) { failure = error }
}
