/// The values selected by JSONPath from a byte source, decoded as `Record`, as an `AsyncSequence`.
///
/// ```swift
/// for try await user in JSONRecords(User.self, at: "$.results[*]", from: .file("users.json")) {
///     print(user.name)
/// }
/// ```
///
/// Parsing stays synchronous inside: the task suspends only to wait for input, never per event.
/// From a blocking source (a file, a pipe) with ``JSONRecordOptions/parsesConcurrently`` (the
/// default on more than one core), reading and parsing run on a thread of their own and the task
/// suspends while it waits for them, so no thread of the cooperative pool blocks on a read; your
/// `init(from:)` runs in the task. Cancelling the task stops reading, releases the source and ends
/// the iteration with `CancellationError`; so does ending the iteration early. An invalid path is
/// reported by the first `next()`. Each iteration reads the source afresh (a file is reopened); a
/// one-shot stream can be iterated once. ``matches`` gives the same records with their paths and
/// lines.
public struct JSONRecords<Record: Decodable>: AsyncSequence {
    public typealias Element = Record

    private let queries: Result<[JSONPathQuery], JSONPathSyntaxError>
    private let source: Source
    private let options: JSONRecordOptions

    /// Where the bytes come from: an asynchronous source, or a blocking one (which can be read on
    /// a thread of its own), with its async adapter for when it is not.
    enum Source {
        case async(any AsyncJSONByteSource)
        case blocking(any JSONByteSource, adapted: any AsyncJSONByteSource)
    }

    /// What the iterations have done so far: records delivered and skipped, bytes read.
    public let report: JSONRecordReport

    /// The records at any of `paths`, from an asynchronous source.
    public init(
        _ type: Record.Type = Record.self, at paths: [String], from source: some AsyncJSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: .async(source), options: options)
    }

    private init(_ type: Record.Type, at paths: [String], from source: Source, options: JSONRecordOptions) {
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
        self.init(type, at: [path], from: .blocking(source, adapted: BlockingAsyncByteSource(source)), options: options)
    }

    /// The records at any of `paths`, from a blocking source.
    public init(
        _ type: Record.Type = Record.self, at paths: [String], from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: .blocking(source, adapted: BlockingAsyncByteSource(source)), options: options)
    }

    /// The records at `path`, from a source that reads both ways (such as `HTTPByteSource` from `YAJLHTTP`): read asynchronously.
    public init<BothWays: JSONByteSource & AsyncJSONByteSource>(
        _ type: Record.Type = Record.self, at path: String, from source: BothWays, options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: .async(source), options: options)
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
            private var extraction: Result<RecordExtraction<Record>, any Error>?
            private var source: (any AsyncJSONByteSource)?
            /// Parsing on a thread of its own (a blocking source, ``JSONRecordOptions/parsesConcurrently``).
            private var pipeline: PipelineOwner<Record>?
            private let queries: Result<[JSONPathQuery], JSONPathSyntaxError>
            private let options: JSONRecordOptions
            private let report: JSONRecordReport

            init(queries: Result<[JSONPathQuery], JSONPathSyntaxError>, source: Source, options: JSONRecordOptions, report: JSONRecordReport) {
                self.queries = queries
                self.options = options
                self.report = report
                switch source {
                case .blocking(let blocking, _) where options.parsesConcurrently:
                    do {
                        let queries = try queries.get()
                        try RecordExtraction<Record>.validate(queries)
                        pipeline = PipelineOwner(RecordPipeline(queries: queries, options: options, report: report, source: blocking))
                    } catch {
                        extraction = .failure(error)
                    }
                    self.source = nil
                case .blocking(_, let adapted):
                    self.source = adapted
                case .async(let async):
                    self.source = async
                }
            }

            public mutating func next() async throws -> JSONRecord<Record>? {
                if let owner = pipeline {
                    if owner.start() { return try await owner.pipeline.awaitNextRecord() }
                    source = owner.pipeline.takeSource().map { BlockingAsyncByteSource(ErasedByteSource($0)) }
                    pipeline = nil  // no thread could be started: parse in the task
                }
                if extraction == nil {
                    extraction = Result { try RecordExtraction(queries: try queries.get(), options: options, report: report) }
                }
                let extraction = try self.extraction!.get()
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

/// A ``JSONByteSource`` existential as a concrete source (for the adapters' generic parameter).
struct ErasedByteSource: JSONByteSource {
    var base: any JSONByteSource
    init(_ base: any JSONByteSource) { self.base = base }
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try base.read(into: buffer) }
}
