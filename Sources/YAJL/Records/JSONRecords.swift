/// The values selected by JSONPath from a byte source, decoded as `Record`, as an `AsyncSequence`.
///
/// ```swift
/// for try await user in JSONRecords(User.self, at: "$.results[*]", from: .file("users.json")) {
///     print(user.name)
/// }
/// ```
///
/// Parsing stays synchronous inside: the task suspends only to wait for input, never per event.
/// Cancelling the task stops reading, releases the source and ends the iteration with
/// `CancellationError`. An invalid path is reported by the first `next()`. Each iteration reads the
/// source afresh (a file is reopened); a one-shot stream can be iterated once. ``matches`` gives the
/// same records with their paths and lines.
public struct JSONRecords<Record: Decodable>: AsyncSequence {
    public typealias Element = Record

    private let queries: Result<[JSONPathQuery], JSONPathSyntaxError>
    private let source: any AsyncJSONByteSource
    private let options: JSONRecordOptions
    /// What the iterations have done so far: records delivered and skipped, bytes read.
    public let report: JSONRecordReport

    /// The records at any of `paths`, from an asynchronous source.
    public init(
        _ type: Record.Type = Record.self, at paths: [String], from source: some AsyncJSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: source as any AsyncJSONByteSource, options: options)
    }

    private init(_ type: Record.Type, at paths: [String], from source: any AsyncJSONByteSource, options: JSONRecordOptions) {
        queries = Result { try paths.map(JSONPathQuery.init) }.mapError { $0 as! JSONPathSyntaxError }
        self.source = source
        self.options = options
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
    }

    /// The records at `path`, from an asynchronous source.
    public init(
        _ type: Record.Type = Record.self, at path: String, from source: some AsyncJSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: source, options: options)
    }

    /// The records at `path`, from a blocking source (a file, a pipe), read from async code.
    public init(
        _ type: Record.Type = Record.self, at path: String, from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: BlockingAsyncByteSource(source), options: options)
    }

    /// The records at any of `paths`, from a blocking source.
    public init(
        _ type: Record.Type = Record.self, at paths: [String], from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: BlockingAsyncByteSource(source), options: options)
    }

    /// The records at `path`, from a source that reads both ways (such as `HTTPByteSource` from `YAJLHTTP`): read asynchronously.
    public init<Source: JSONByteSource & AsyncJSONByteSource>(
        _ type: Record.Type = Record.self, at path: String, from source: Source, options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: source as any AsyncJSONByteSource, options: options)
    }

    /// The same records with their paths, matched path and lines.
    public var matches: Matches { Matches(base: self) }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(matches: Matches(base: self).makeAsyncIterator()) }

    /// Iterates decoded records.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var matches: Matches.AsyncIterator
        public mutating func next() async throws -> Record? { try await matches.next()?.value }
    }

    /// The records with where they came from, as an `AsyncSequence` of ``JSONRecord``.
    public struct Matches: AsyncSequence {
        public typealias Element = JSONRecord<Record>
        let base: JSONRecords

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(queries: base.queries, source: base.source, options: base.options, report: base.report)
        }

        /// Iterates records with their metadata.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private var extraction: Result<RecordExtraction<Record>, any Error>
            private var source: (any AsyncJSONByteSource)?

            init(queries: Result<[JSONPathQuery], JSONPathSyntaxError>, source: any AsyncJSONByteSource, options: JSONRecordOptions, report: JSONRecordReport) {
                extraction = Result { try RecordExtraction(queries: try queries.get(), options: options, report: report) }
                self.source = source
            }

            public mutating func next() async throws -> JSONRecord<Record>? {
                let extraction = try self.extraction.get()
                while true {
                    if let record = try extraction.next() { return record }
                    guard !extraction.isDone, source != nil else {
                        source = nil  // release the source as soon as we are done
                        return nil
                    }
                    do {
                        try Task.checkCancellation()
                        let (buffer, fill) = extraction.nextBuffer()
                        let count = fill ? try await source!.readFully(into: buffer) : try await source!.read(into: buffer)
                        if count == 0 { try Task.checkCancellation() }
                        extraction.consume(count, of: buffer)
                    } catch {
                        source = nil  // release the source on cancellation and on a failed read
                        self.extraction = .failure(error)
                        throw error
                    }
                }
            }
        }
    }
}
