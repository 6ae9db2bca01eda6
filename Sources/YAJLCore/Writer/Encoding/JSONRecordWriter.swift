/// Writes `Encodable` records as one JSON array or as NDJSON, streaming: each record is encoded
/// as `JSONEncoder` encodes a value (the same containers, strategies and errors; see
/// <doc:FoundationParity>), then written through a ``JSONWriter``. One record is held at a time,
/// never the document; a record that fails to encode writes nothing.
///
/// ```swift
/// try JSONRecordWriter<User>.write(to: .file("users.json")) { output in
///     for user in users { try output.write(user) }
/// }  // the array is closed and flushed here, even when the closure throws
/// ```
///
/// Or keep the writer and call ``finish()``, which throws what went wrong at the end:
///
/// ```swift
/// let output = JSONRecordWriter<User>(to: .standardOutput, layout: .ndjson)
/// for user in users { try output.write(user) }
/// try output.finish()
/// ```
///
/// A writer dropped without ``finish()`` still finishes: it closes the array (or ends the last
/// NDJSON line) and flushes, so records written are never lost in its buffer; an error then
/// cannot be thrown and is lost, which is why ``finish()`` and the scoped form are better. A
/// writer that is never released (a global of a `main.swift`) finishes so when the process exits
/// normally (returns from `main` or calls `exit`).
public final class JSONRecordWriter<Record: Encodable> {
    /// How records are laid out.
    public enum Layout: Sendable {
        /// `[record,record,…]`, one JSON document.
        case array
        /// One record per line, each line ending with `\n`.
        case ndjson
    }

    private let writer: JSONWriter
    private let encoding: JSONRecordEncodingOptions
    private let layout: Layout
    private var started = false
    private var sink: (any JSONOutputSink)?
    /// Whether the writer is this one's own (`false`: records go into an array someone else opened).
    private let ownsWriter: Bool

    /// The number of records written.
    public private(set) var count = 0
    /// Whether ``finish()`` has run (a dropped writer then has nothing left to do).
    private var finished = false

    /// A writer of records to `sink`. `writerOptions` can beautify the `.array` layout.
    public init(
        to sink: some JSONOutputSink,
        layout: Layout = .array,
        writerOptions: JSONWriter.Options = JSONWriter.Options(),
        encoding: JSONRecordEncodingOptions = JSONRecordEncodingOptions()
    ) {
        self.layout = layout
        self.sink = sink
        ownsWriter = true
        var options = writerOptions
        if layout == .ndjson { options.beautify = false }
        writer = JSONWriter(to: sink, options: options)
        if layout == .ndjson { writer.allowMultipleValues(separator: "\n") }
        self.encoding = encoding
        if !(sink is MemoryOutputSink) { UnfinishedWriters.add(self, rank: 0) }
    }

    /// A writer of records as elements of the array that `writer` has open (or as its top-level
    /// values, with ``JSONWriter/allowMultipleValues(separator:)``): the caller opened the array
    /// and closes it; ``finish()`` does nothing.
    public init(into writer: JSONWriter, encoding: JSONRecordEncodingOptions = JSONRecordEncodingOptions()) {
        self.writer = writer
        layout = .array
        sink = nil
        ownsWriter = false
        self.encoding = encoding
    }

    /// Encodes and writes one record.
    public func write(_ record: Record) throws {
        if !ownsWriter { try writer.checkValueAllowed("a record") }  // not half a record where a key goes
        // In an array a record is an element, as in `JSONEncoder().encode(records)`: its coding
        // path starts with its index and, if it encodes nothing, it is `{}`. An NDJSON line is a
        // top-level value, as in `JSONEncoder().encode(record)`.
        let isElement = layout == .array
        let tree = try EncodingContext.encode(
            record,
            options: encoding,
            maxDepth: JSONWriter.maxDepth - writer.depth - (isElement && ownsWriter && !started ? 1 : 0),
            at: isElement ? EncodingPath.root.appending(index: count) : .root,
            asElement: isElement
        )
        if layout == .array && !started && ownsWriter { try writer.startArray() }
        started = true
        try tree.write(to: writer, sortedKeys: encoding.sortsKeys)
        count += 1
    }

    /// Writes every record of a sequence.
    public func write(contentsOf records: some Sequence<Record>) throws {
        for record in records { try write(record) }
    }

    /// Writes every record of an asynchronous sequence (checking task cancellation between records).
    public func write<S: AsyncSequence>(contentsOf records: S) async throws where S.Element == Record {
        for try await record in records {
            try Task.checkCancellation()
            try write(record)
        }
    }

    /// Writes records to `sink` with `body`, then finishes: the array is closed (or the last
    /// NDJSON line ended) and everything flushed, also when `body` throws, whose error is then
    /// rethrown after the records it wrote.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the error of writing or finishing.
    public static func write<Result>(
        to sink: some JSONOutputSink,
        layout: Layout = .array,
        writerOptions: JSONWriter.Options = JSONWriter.Options(),
        encoding: JSONRecordEncodingOptions = JSONRecordEncodingOptions(),
        _ body: (JSONRecordWriter<Record>) throws -> Result
    ) throws -> Result {
        let writer = JSONRecordWriter(to: sink, layout: layout, writerOptions: writerOptions, encoding: encoding)
        let result: Result
        do {
            result = try body(writer)
        } catch {
            try? writer.finish()
            throw error
        }
        try writer.finish()
        return result
    }

    /// Writes records to `sink` with an asynchronous `body`, then finishes, as the synchronous
    /// form does: also when `body` throws.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (`CancellationError` too), or the error of writing or finishing.
    public static func write<Result>(
        to sink: some JSONOutputSink,
        layout: Layout = .array,
        writerOptions: JSONWriter.Options = JSONWriter.Options(),
        encoding: JSONRecordEncodingOptions = JSONRecordEncodingOptions(),
        _ body: (JSONRecordWriter<Record>) async throws -> Result
    ) async throws -> Result {
        let writer = JSONRecordWriter(to: sink, layout: layout, writerOptions: writerOptions, encoding: encoding)
        let result: Result
        do {
            result = try await body(writer)
        } catch {
            try? writer.finish()
            throw error
        }
        try writer.finish()
        return result
    }

    /// Finishes a writer that was dropped without ``finish()`` (see the type's documentation).
    deinit {
        UnfinishedWriters.remove(self)
        if ownsWriter && !finished { try? finish() }
    }

    /// Closes the array (or ends the last NDJSON line) and flushes everything to the sink.
    /// Calling it again does nothing.
    public func finish() throws {
        guard ownsWriter, !finished else { return }
        finished = true
        UnfinishedWriters.remove(self)
        if layout == .array {
            if !started { try writer.startArray() }
            try writer.endArray()
        }
        try writer.finish()
        if layout == .ndjson && count > 0 {
            try [UInt8(ascii: "\n")].withUnsafeBytes { try sink?.write($0) }
        }
    }
}

@available(*, unavailable, message: "a JSONRecordWriter is used from one thread at a time")
extension JSONRecordWriter: Sendable {}

extension JSONRecordWriter: CompletesAtExit {
    func completeAtExit() { try? finish() }
}
