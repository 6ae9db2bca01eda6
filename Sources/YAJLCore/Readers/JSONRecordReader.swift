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
///
/// With ``JSONRecordOptions/parsesConcurrently`` (the default on more than one core) the source is
/// read and parsed on a thread of its own, started by the first `next()`, while `next()` decodes;
/// up to nine batches of about 64 KiB of parsed records are then in memory. When `Record` is
/// `Sendable` (and its `Decodable` conformance is not isolated to an actor), that thread also
/// decodes a batch itself whenever six wait for `next()`, rather than waiting idle: your
/// `init(from:)` then runs on either thread, and `next()` hands out the records in the same order,
/// with the same errors, each counted when it is handed out. Dropping the reader stops that thread
/// after its current read and releases the source.
public final class JSONRecordReader<Record: Decodable> {
    /// Where records come from: one parse (on the caller's thread or a parsing thread), or
    /// NDJSON line blocks parsed on worker threads (`parallelNext`). Exactly one is set.
    private let stream: RecordStream<Record>?
    /// The parallel reader's next record (it needs `Record: Sendable`, which this type does not
    /// require of every reader).
    private let parallelNext: (() throws -> JSONRecord<Record>?)?
    /// Where `next()` has a record decoded (uninitialized between calls). Allocated last in `init`,
    /// after everything that can throw: a throwing `init` runs no `deinit` to free it.
    private let valueSlot: UnsafeMutablePointer<Record>

    /// What the reader has done so far: records delivered and skipped, bytes read.
    public let report: JSONRecordReport

    /// Whether the parsing thread decodes records too when the caller is behind (`Record` is
    /// `Sendable`, see the type's overview).
    package let parsingThreadHelpsDecode: Bool

    /// The reader of the values at any of `paths`; the parsing thread helps decode if
    /// `helpsDecode`.
    private init(
        paths: [String],
        source: some JSONByteSource,
        options: JSONRecordOptions,
        helpsDecode: Bool
    ) throws {
        try options.validate()
        var options = options
        options.parsingThreadHelpsDecode = helpsDecode
        parsingThreadHelpsDecode = helpsDecode
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
        stream = try RecordStream(
            queries: try paths.map(JSONPathQuery.init),
            input: .blocking(source),
            options: options,
            report: report
        )
        parallelNext = nil
        valueSlot = .allocate(capacity: 1)
    }

    /// The reader of NDJSON line blocks parsed on worker threads.
    private init(parallel reader: ParallelRecordReader<Record>) where Record: Sendable {
        report = reader.report
        parsingThreadHelpsDecode = false
        stream = nil
        parallelNext = reader.nextRecord
        valueSlot = .allocate(capacity: 1)
    }

    /// A reader of the values at any of `paths` (each a JSONPath such as `$.results[*]`).
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path, ``JSONOptionError`` for an option
    ///   out of range (``JSONRecordOptions/validate()``).
    public convenience init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(paths: paths, source: source, options: options, helpsDecode: false)
    }

    deinit { valueSlot.deallocate() }

    /// A reader of the values at `path`.
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(paths: [path], source: source, options: options, helpsDecode: false)
    }

    /// The next record, or `nil` at the end (of the input, or of the matches, or at the limit).
    public func next() throws -> Record? {
        if let stream {
            guard try stream.nextValue(into: valueSlot) else { return nil }
            return valueSlot.move()
        }
        return try nextParallelValue()
    }

    /// The parallel reader's next record's value. Out of line: its temporary of type
    /// `JSONRecord<Record>?` needs that type's metadata. `next()` is generic code that is not
    /// specialized for the caller's `Record`; with this inlined, it looked that metadata up in the
    /// runtime's cache on entry, at every call, whichever reader it was.
    @inline(never)
    private func nextParallelValue() throws -> Record? {
        try parallelNext?()?.value
    }

    /// The next record with where it came from (its path, which path matched, its line).
    public func nextRecord() throws -> JSONRecord<Record>? {
        if let stream { return try stream.next() }
        return try parallelNext?()
    }

    /// Calls `body` with every remaining record.
    public func forEach(_ body: (Record) throws -> Void) throws {
        while let record = try next() { try body(record) }
    }
}

extension JSONRecordReader where Record: Sendable {
    /// A reader of the values at any of `paths` (each a JSONPath such as `$.results[*]`), for a
    /// `Sendable` record type: with ``JSONRecordOptions/parsesConcurrently``, the parsing thread
    /// also decodes records whenever the caller is behind (see the type's overview). Chosen by the
    /// compiler over the general initializer whenever `Record` is `Sendable`.
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path, ``JSONOptionError`` for an option
    ///   out of range (``JSONRecordOptions/validate()``).
    public convenience init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(paths: paths, source: source, options: options, helpsDecode: true)
    }

    /// A reader of the values at `path`, for a `Sendable` record type: the parsing thread also
    /// decodes records whenever the caller is behind (see the overview).
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(paths: [path], source: source, options: options, helpsDecode: true)
    }

    /// A reader of the values at any of `paths` in the NDJSON of `source`, parsed on every core:
    /// the input is cut into blocks at newlines, and each block is parsed, selected and decoded on
    /// a worker thread (`Record.init(from:)` and the strategies' closures run there). Records come
    /// out in input order (or, with ``JSONParallelOptions/ordered`` off, as each block is done),
    /// with the same paths, lines, byte offsets, value indices, records and errors as on one
    /// thread. ``JSONParser/Options/allowMultipleValues`` is turned on; comments and trailing
    /// garbage are refused. Memory: the blocks in flight and their records. Dropping the reader
    /// stops the workers after their current block and releases the source.
    ///
    /// ```swift
    /// let events = try JSONRecordReader(Event.self, at: "$", from: .file("events.ndjson"), parallel: .init())
    /// while let event = try events.next() { … }
    /// ```
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path, ``JSONOptionError`` for options out
    ///   of range or that cannot be split at lines.
    public convenience init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions
    ) throws {
        self.init(parallel: try ParallelRecordReader(at: paths, from: source, options: options, parallel: parallel))
    }

    /// A reader of the values at `path` in the NDJSON of `source`, parsed on every core (see
    /// the form with several paths).
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions(),
        parallel: JSONParallelOptions
    ) throws {
        try self.init(type, at: [path], from: source, options: options, parallel: parallel)
    }
}

@available(*, unavailable, message: "a JSONRecordReader reads its source from one thread at a time")
extension JSONRecordReader: Sendable {}
