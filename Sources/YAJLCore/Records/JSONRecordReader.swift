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
/// up to nine batches of about 64 KiB of parsed records are then in memory. Dropping the reader stops
/// that thread after its current read and releases the source.
public final class JSONRecordReader<Record: Decodable> {
    private let stream: RecordStream<Record>
    /// Where `next()` has a record decoded (uninitialized between calls). Allocated last in `init`,
    /// after everything that can throw: a throwing `init` runs no `deinit` to free it.
    private let valueSlot: UnsafeMutablePointer<Record>

    /// What the reader has done so far: records delivered and skipped, bytes read.
    public let report: JSONRecordReport

    /// A reader of the values at any of `paths` (each a JSONPath such as `$.results[*]`).
    /// - Throws: ``JSONPathSyntaxError`` for an invalid path.
    public init(
        _ type: Record.Type = Record.self,
        at paths: [String],
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        report = JSONRecordReport(maxKept: options.maxKeptFailures)
        stream = try RecordStream(
            queries: try paths.map(JSONPathQuery.init),
            input: .blocking(source),
            options: options,
            report: report
        )
        valueSlot = .allocate(capacity: 1)
    }

    deinit { valueSlot.deallocate() }

    /// A reader of the values at `path`.
    public convenience init(
        _ type: Record.Type = Record.self,
        at path: String,
        from source: some JSONByteSource,
        options: JSONRecordOptions = JSONRecordOptions()
    ) throws {
        try self.init(type, at: [path], from: source, options: options)
    }

    /// The next record, or `nil` at the end (of the input, or of the matches, or at the limit).
    public func next() throws -> Record? {
        guard try stream.nextValue(into: valueSlot) else { return nil }
        return valueSlot.move()
    }

    /// The next record with where it came from (its path, which path matched, its line).
    public func nextRecord() throws -> JSONRecord<Record>? {
        try stream.next()
    }

    /// Calls `body` with every remaining record.
    public func forEach(_ body: (Record) throws -> Void) throws {
        while let record = try next() { try body(record) }
    }
}

@available(*, unavailable, message: "a JSONRecordReader reads its source from one thread at a time")
extension JSONRecordReader: Sendable {}
