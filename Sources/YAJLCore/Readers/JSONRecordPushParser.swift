/// Records pushed out as bytes are pushed in: for event-loop code (a swift-nio channel handler
/// receiving `ByteBuffer`s) that must never block and never wait for a source.
///
/// ```swift
/// let parser = try JSONRecordPushParser(User.self, at: "$.results[*]")
/// // for every buffer received:
/// try buffer.withUnsafeReadableBytes { bytes in try parser.feed(bytes) { user in handle(user) } }
/// // at the end of the input:
/// try parser.finish { user in handle(user) }
/// ```
///
/// Bytes may be split anywhere. Each call delivers, in order, the records that its bytes
/// completed, then throws the error its bytes hold, if any (the records before an error are
/// delivered first); after an error the parser is done. Memory is the bytes given plus the
/// record being captured.
public final class JSONRecordPushParser<Record: Decodable> {
    private let parser: RecordParser
    private let decoder: RecordDecoder<Record>
    private var ended = false
    /// The error that ended the parse: every later call throws it again.
    private var failure: (any Error)?
    /// Whether a `feed` or `finish` is delivering records (a call from its callback is refused).
    private var isDelivering = false
    /// What the parser has done so far: records delivered and skipped, bytes parsed.
    public let report: JSONRecordReport

    /// A parser of the values at any of `paths`.
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        options: JSONRecordOptions = JSONRecordOptions()
    )
        throws
    {
        try options.validate()
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
        let queries = try paths.map(JSONPathQuery.init)
        try RecordParser.validate(queries)
        parser = try RecordParser(queries: queries, options: options, report: report)
        decoder = RecordDecoder(options: options, report: report)
    }

    /// A parser of the values at `path`.
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        options: JSONRecordOptions = JSONRecordOptions()
    )
        throws
    {
        try self.init(type, at: [path], options: options)
    }

    /// Whether no more record can come: the input ended, failed, was stopped early (nothing more
    /// can match) or reached ``JSONRecordOptions/limit``. Later bytes are ignored.
    public var isDone: Bool { ended || parser.isDone }

    /// Parses `bytes` and calls `body` with every record they completed, in order.
    /// - Throws: ``JSONParseError`` for invalid input (after the records before it), what `body`
    ///   throws, or a ``JSONRecordDecodingError``.
    public func feed(_ bytes: UnsafeRawBufferPointer, _ body: (JSONRecord<Record>) throws -> Void) throws {
        try enter("feed")
        defer { isDelivering = false }
        guard !isDone, !bytes.isEmpty else { return }
        parser.push(bytes)
        try deliver(body)
    }

    /// Refuses a call after an error (it throws that error again) and a call from inside the
    /// parser's own record callback (a usage error: it would deliver records twice).
    private func enter(_ call: String) throws {
        if let failure { throw failure }
        guard !isDelivering else {
            throw JSONParserUsageError(
                message:
                    "\(call) called from inside the record callback of the same JSONRecordPushParser (re-entrant use)"
            )
        }
        isDelivering = true
    }

    /// Parses `bytes` (`[UInt8]`, `Data`, a slice…) and calls `body` with every record they completed.
    public func feed(_ bytes: some Collection<UInt8>, _ body: (JSONRecord<Record>) throws -> Void) throws {
        if let done = try bytes.withContiguousStorageIfAvailable({ try feed(UnsafeRawBufferPointer($0), body) }) {
            return done
        }
        try Array(bytes).withUnsafeBytes { try feed($0, body) }
    }

    /// Ends the input: calls `body` with the last records.
    /// - Throws: ``JSONParseError`` when the document is incomplete.
    public func finish(_ body: (JSONRecord<Record>) throws -> Void) throws {
        try enter("finish")
        defer { isDelivering = false }
        guard !ended else { return }
        if !parser.isDone { parser.push(UnsafeRawBufferPointer(start: nil, count: 0)) }
        ended = true
        try deliver(body)
    }

    /// Hands out the completed records. After an error (the input's, a record's, or `body`'s) the
    /// parser is done: its records after that point are dropped.
    private func deliver(_ body: (JSONRecord<Record>) throws -> Void) throws {
        let capture = parser.capture
        var position = 0
        defer { capture.releaseHandedOutRecords() }
        do {
            while position < capture.ready.count {
                let record = try decoder.decodeRecord(capture.ready, position, from: capture.tape.view)
                position += 1
                if let record { try body(record) }
            }
        } catch {
            ended = true
            failure = error
            throw error
        }
        if let failure = parser.failure {
            ended = true
            self.failure = failure
            throw failure
        }
    }
}

@available(*, unavailable, message: "a JSONRecordPushParser is fed from one thread at a time")
extension JSONRecordPushParser: Sendable {}
