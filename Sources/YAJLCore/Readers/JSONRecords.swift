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
/// `init(from:)` runs in the task, and also on that thread when `Record` is `Sendable` (as for
/// ``JSONRecordReader``: it decodes a batch itself whenever six wait for the task). Cancelling the
/// task stops reading, releases the source and ends the iteration with `CancellationError`; so
/// does ending the iteration early. An invalid path is
/// reported by the first `next()`. Each iteration reads the source afresh (a file is reopened); a
/// one-shot stream can be iterated once. ``matches`` gives the same records with their paths and
/// lines.
public struct JSONRecords<Record: Decodable>: AsyncSequence {
    public typealias Element = Record

    private let queries: Result<[JSONPathQuery], JSONPathSyntaxError>
    private let source: Source
    private let options: JSONRecordOptions

    /// Where the bytes come from: an asynchronous source, or a blocking one (read on a thread of
    /// its own, or through ``BlockingAsyncByteSource``).
    enum Source {
        case async(any AsyncJSONByteSource)
        case blocking(any JSONByteSource)
        /// NDJSON on every core: makes the engine of one iteration (``AsyncParallelRecords``).
        case parallel((JSONRecordOptions, JSONRecordReport) -> any ParallelRecordsIterating<Record>)
    }

    /// What the iterations have done so far: records delivered and skipped, bytes read.
    public let report: JSONRecordReport

    /// The records at any of `paths`, from an asynchronous source.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some AsyncJSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: .async(source), options: options)
    }

    private init(
        _ type: Record.Type,
        at paths: [String],
        from source: Source,
        options: JSONRecordOptions,
        helpsDecode: Bool = false
    ) {
        var options = options
        options.parsingThreadHelpsDecode = helpsDecode
        queries = Result { () throws(JSONPathSyntaxError) in
            try paths.map { path throws(JSONPathSyntaxError) in try JSONPathQuery(path) }
        }
        self.source = source
        self.options = options
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
    }

    /// The records at `path`, from an asynchronous source.
    public init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some AsyncJSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: source, options: options)
    }

    /// The records at `path`, from a blocking source (a file, a pipe), read from async code.
    public init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: .blocking(source), options: options)
    }

    /// The records at any of `paths`, from a blocking source.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: .blocking(source), options: options)
    }

    /// The records at `path`, from a source that reads both ways (such as `HTTPByteSource` from `YAJLHTTP`): read asynchronously.
    public init<BothWays: JSONByteSource & AsyncJSONByteSource>(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: BothWays,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: .async(source), options: options)
    }

    /// Whether the parsing thread decodes records too when the task is behind (`Record` is
    /// `Sendable` and the source blocking).
    package var parsingThreadHelpsDecode: Bool { options.parsingThreadHelpsDecode }

    /// The same records with their paths, matched path and lines.
    public var matches: Matches { Matches(base: self) }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(iteration: RecordIteration(queries: queries, source: source, options: options, report: report))
    }

    /// Iterates decoded records.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let iteration: RecordIteration<Record>
        nonisolated(nonsending) public mutating func next() async throws -> Record? {
            try await iteration.nextValue()
        }
    }

    /// The records with where they came from, as an `AsyncSequence` of ``JSONRecord``.
    public struct Matches: AsyncSequence {
        public typealias Element = JSONRecord<Record>
        let base: JSONRecords

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(
                iteration: RecordIteration(
                    queries: base.queries,
                    source: base.source,
                    options: base.options,
                    report: base.report
                )
            )
        }

        /// Iterates records with their metadata.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let iteration: RecordIteration<Record>
            nonisolated(nonsending) public mutating func next() async throws -> JSONRecord<Record>? {
                try await iteration.next()
            }
        }
    }
}

/// The engine of one iteration of ``JSONRecords`` or its ``JSONRecords/matches``: the record
/// stream, or the parallel NDJSON reader, or the error that allowed neither (an invalid path).
///
/// Dropping the iterator that holds it (leaving a `for try await` loop early) releases it, and
/// with it the stream, whose `deinit` stops the parsing thread. A class for speed: `next()` and
/// `nextValue()` are generic code that is not specialized for the caller's `Record`, and a class's
/// methods find their generic metadata in the instance, where a generic struct's or enum's would
/// look theirs up in the runtime's cache at every record.
final class RecordIteration<Record: Decodable> {
    /// One parse (in the task, or on a parsing thread); exactly one of the three is set.
    private let stream: RecordStream<Record>?
    /// NDJSON line blocks parsed on worker threads.
    private let parallel: (any ParallelRecordsIterating<Record>)?
    /// Why the iteration cannot start (thrown by every `next()`).
    private let failure: (any Error)?

    init(
        queries: Result<[JSONPathQuery], JSONPathSyntaxError>,
        source: JSONRecords<Record>.Source,
        options: JSONRecordOptions,
        report: JSONRecordReport
    ) {
        let input: RecordStream<Record>.Input
        switch source {
        case .async(let async): input = .async(async)
        case .blocking(let blocking): input = .blocking(blocking)
        case .parallel(let make):
            (stream, parallel, failure) = (nil, make(options, report), nil)
            return
        }
        do {
            stream = try RecordStream(queries: try queries.get(), input: input, options: options, report: report)
            failure = nil
        } catch {
            stream = nil
            failure = error
        }
        parallel = nil
    }

    /// The next record with its metadata; `nil` at the end.
    nonisolated(nonsending) func next() async throws -> JSONRecord<Record>? {
        if let stream { return try await stream.next() }
        return try await nextFromParallel()
    }

    /// The next record's value; `nil` at the end (no ``JSONRecord`` is built).
    nonisolated(nonsending) func nextValue() async throws -> Record? {
        if let stream { return try await stream.nextValue() }
        return try await nextParallelValue()
    }

    /// ``nextFromParallel()``'s value. Out of line, as that is: a temporary of type
    /// `JSONRecord<Record>?` in ``nextValue()`` would have it look that type's metadata up on
    /// entry, at every record.
    @inline(never)
    nonisolated(nonsending) private func nextParallelValue() async throws -> Record? {
        try await nextFromParallel()?.value
    }

    /// The parallel reader's next record, or the iteration's failure. Out of line, so that the
    /// stream's path needs no metadata of the parallel reader's types.
    @inline(never)
    nonisolated(nonsending) private func nextFromParallel() async throws -> JSONRecord<Record>? {
        if let parallel { return try await parallel.next() }
        if let failure { throw failure }
        return nil
    }
}

extension JSONRecords where Record: Sendable {
    /// The records at any of `paths` in the NDJSON of a blocking source, parsed and decoded on
    /// every core, in input order, as `JSONRecordReader(_:at:from:options:parallel:)` reads them
    /// (the same records, paths, lines, errors and options; see <doc:ParallelNDJSON>): the reader
    /// runs on a thread of its own and hands the task batches of up to 256 decoded records, so
    /// the task suspends, never blocks, while it waits. Cancelling the task or ending the
    /// iteration stops that thread and releases the workers and the source. Options out of range
    /// and invalid paths are the first `next()`'s error.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions
    ) {
        self.init(
            type,
            at: paths,
            from: .parallel({ options, report in
                AsyncParallelRecords<Record> {
                    try ParallelRecordReader(
                        at: paths,
                        from: source,
                        options: options,
                        parallel: parallel,
                        report: report
                    )
                }
            }),
            options: options
        )
    }

    /// The records at `path` in the NDJSON of a blocking source, parsed on every core (see the
    /// form with several paths).
    public init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions
    ) {
        self.init(type, at: [path], from: source, options: options, parallel: parallel)
    }

    /// The records at `path`, from a blocking source (a file, a pipe), read from async code, for a
    /// `Sendable` record type: with ``JSONRecordOptions/parsesConcurrently``, the parsing thread
    /// also decodes records whenever the task is behind (see the overview). Chosen by the compiler
    /// over the general initializer whenever `Record` is `Sendable`.
    public init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: .blocking(source), options: options, helpsDecode: true)
    }

    /// The records at any of `paths`, from a blocking source, for a `Sendable` record type.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: paths, from: .blocking(source), options: options, helpsDecode: true)
    }

    /// The records at `path`, from a source that reads both ways (such as `HTTPByteSource` from
    /// `YAJLHTTP`): read asynchronously, in the task (this initializer only keeps the choice
    /// unambiguous for a `Sendable` record type).
    public init<BothWays: JSONByteSource & AsyncJSONByteSource>(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: BothWays,
        options: JSONRecordOptions = JSONRecordOptions()
    ) {
        self.init(type, at: [path], from: .async(source), options: options)
    }
}
