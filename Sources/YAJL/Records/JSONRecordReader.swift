/// Reads the values selected by JSONPath from a byte source, one at a time, decoded as `Record`:
/// a throwing cursor for scripts and synchronous code.
///
/// ```swift
/// let users = try JSONRecordReader(User.self, at: "$.results[*]", from: .file("users.json"))
/// while let user = try users.next() { print(user.name) }
/// ```
///
/// A cursor, not a `Sequence`: `next()` can throw (invalid JSON, I/O, a record that does not
/// decode), and it reads the source as it goes, so it can be iterated once. Memory holds the record
/// being decoded and the records of the current chunk, never the document. Use
/// `JSONValue` as `Record` for owned values. For `async` code see ``JSONRecords``.
public final class JSONRecordReader<Record: Decodable> {
    private let extraction: RecordExtraction<Record>
    private var source: (any JSONByteSource)?
    /// Parsing on a thread of its own (``JSONRecordOptions/parsesConcurrently``), started by the first `next()`.
    private var pipeline: RecordPipeline<Record>?

    /// What the reader has done so far: records delivered and skipped, bytes read.
    public var report: JSONRecordReport { extraction.report }

    /// A reader of the values at any of `paths` (each a JSONPath such as `$.results[*]`).
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path.
    public init(
        _ type: Record.Type = Record.self, at paths: [String], from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        extraction = try RecordExtraction(
            queries: try paths.map(JSONPathQuery.init), options: options, report: JSONRecordReport(maxKept: options.maxKeptFailures))
        self.source = source
        if options.parsesConcurrently { pipeline = RecordPipeline(extraction: extraction, source: source) }
    }

    deinit { pipeline?.cancel() }

    /// A reader of the values at `path`.
    public convenience init(
        _ type: Record.Type = Record.self, at path: String, from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(type, at: [path], from: source, options: options)
    }

    /// The next record, or `nil` at the end (of the input, or of the matches, or at the limit).
    public func next() throws -> Record? {
        if let pipeline = startedPipeline() { return try pipeline.nextValue() }
        return try nextRecord()?.value
    }

    /// The next record with where it came from (its path, which path matched, its line).
    public func nextRecord() throws -> JSONRecord<Record>? {
        if let pipeline = startedPipeline() { return try pipeline.nextRecord() }
        while true {
            if let record = try extraction.next() { return record }
            guard !extraction.isDone, source != nil else {
                source = nil  // release the source (and close its file) as soon as we are done
                return nil
            }
            let (buffer, fill) = extraction.nextBuffer()
            do {
                let count = fill ? try source!.readFully(into: buffer) : try source!.read(into: buffer)
                extraction.consume(count, of: buffer)
            } catch {
                extraction.fail(error)
            }
        }
    }

    /// The pipeline, started on first use; `nil` when parsing is not concurrent.
    private func startedPipeline() -> RecordPipeline<Record>? {
        guard let pipeline else { return nil }
        if source != nil {
            source = nil  // the parsing thread has it now
            pipeline.start()
        }
        return pipeline
    }

    /// Calls `body` with every remaining record.
    public func forEach(_ body: (Record) throws -> Void) throws {
        while let record = try next() { try body(record) }
    }
}

@available(*, unavailable, message: "a JSONRecordReader reads its source from one thread at a time")
extension JSONRecordReader: Sendable {}
