import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How records are selected, decoded and reported.
public struct JSONRecordOptions: Sendable {
    /// What happens when a selected value does not decode into the record type.
    public enum DecodingFailurePolicy: Sendable, Hashable {
        /// Throw a ``JSONRecordDecodingError`` and end the stream (the default).
        case stop
        /// Count the failure, keep it in ``JSONRecordReport/failures``, and go on with the next record.
        case skip
    }

    /// The parser's flags and limits (set `allowMultipleValues` for NDJSON).
    public var parser = JSONParser.Options()
    /// Key and date strategies.
    public var decoding = JSONRecordDecodingOptions()
    /// Stop after this many records (the rest of the input is not read).
    public var limit: Int? = nil
    /// Stop, or skip and report, on a record that does not decode. Default ``DecodingFailurePolicy/stop``.
    public var onDecodingFailure = DecodingFailurePolicy.stop
    /// How many skipped records' errors ``JSONRecordReport/failures`` keeps (all are counted).
    public var maxKeptFailures = 1_000
    /// Stop reading once no selected path can match any more (e.g. `$.results` has closed).
    /// Default `true`. It assumes keys are unique, as RFC 8259 recommends, and the input after that
    /// point is neither read nor validated. Never applies with `allowMultipleValues`: set that for
    /// NDJSON, which read as one document would stop inside its first line for a query such as
    /// `$.id` (other queries fail at the second line, with an error that names the option).
    public var stopsEarly = true
    /// What a malformed NDJSON line does. Default ``BadLinePolicy/stop``.
    public var onBadLine = BadLinePolicy.stop
    /// Whether an input in which the queries select no value at all ends the stream with a
    /// ``JSONNoMatchError`` (after reading the whole input) instead of ending it empty.
    /// Default `false`; **set it in an import**, where zero records means a wrong query:
    ///
    /// ```swift
    /// var options = JSONRecordOptions()
    /// options.requireMatch = true  // `$.result[*]` for `$.results[*]` throws instead of importing nothing
    /// ```
    ///
    /// Why not on by default: RFC 9535 makes an empty nodelist a result like any other (`$.a[*]`
    /// on `{"a": []}`, a filter that selects nothing), and a reader that threw for it would turn
    /// every possibly-empty array into an error. Whichever the setting, an input that ends with
    /// nothing selected says so in ``JSONRecordReport/matchedNothing``. It does not apply to the
    /// query `$` (every value of the input, which cannot be misspelt: an empty NDJSON input is an
    /// empty stream), nor to ``limit`` `0`. Values that were selected but did not decode, or were
    /// skipped, count as matched.
    public var requireMatch = false

    /// What a malformed line of NDJSON does (Spark's `FAILFAST` and `PERMISSIVE` modes).
    public enum BadLinePolicy: Sendable, Hashable {
        /// The first error ends the stream (the default; YAJL cannot resynchronize by itself).
        case stop
        /// The input is read line by line, each line one value: a line that is not valid JSON,
        /// or that ends inside its value, is skipped, counted in
        /// ``JSONRecordReport/badLineCount`` and kept (the first
        /// ``JSONRecordOptions/maxKeptFailures``) in ``JSONRecordReport/badLines`` with its line
        /// number, byte offset and error; what it selected before the error is dropped. Implies
        /// ``JSONParser/Options/allowMultipleValues``. A line is held until it ends, up to
        /// ``JSONRecordOptions/maxBufferedBytes``.
        case skip
    }

    /// The order of the records of a JSONPath query. Default ``Order/document``.
    public var order = Order.document
    /// The most bytes a query may hold in memory beyond the selected value (an array it counts
    /// from the end of, a value buffered for ``Order/rfc``, the document for an absolute query in
    /// a filter); past it the stream ends with a ``JSONPathBufferError``. Default 256 MiB.
    public var maxBufferedBytes = 256 << 20

    /// Checks every option against its allowed range (the parser's too): the readers call it
    /// before they read.
    ///
    /// - Throws: ``JSONOptionError`` naming the first option out of range.
    public func validate() throws(JSONOptionError) {
        try parser.validate()
        func atLeast(_ name: String, _ value: Int?, _ minimum: Int, _ allowed: String) throws(JSONOptionError) {
            if let value, value < minimum {
                throw JSONOptionError(option: "JSONRecordOptions.\(name)", value: "\(value)", allowed: allowed)
            }
        }
        try atLeast("limit", limit, 0, "0 or more (or nil for no limit)")
        try atLeast("maxKeptFailures", maxKeptFailures, 0, "0 or more")
        try atLeast("maxBufferedBytes", maxBufferedBytes, 1, "1 or more bytes")
    }

    /// In which order the values a query selects are delivered.
    ///
    /// RFC 9535 defines which nodes a query selects, and, for `..` and unions, an order that a
    /// stream cannot always follow without holding values back: `$..*` on `{"a":{"b":1},"c":2}`
    /// is `{"b":1}`, `2`, `1` in the RFC's order but `{"b":1}`, `1`, `2` in the document's.
    /// Both orders hold the same values, each as many times as the RFC's nodelist has it.
    public enum Order: Sendable, Hashable {
        /// The order in which the selected values start in the document; a value selected more
        /// than once comes that many times in a row (several paths: in the order of the paths).
        /// Nothing is held back beyond what the query needs anyway.
        case document
        /// The RFC's nodelist order, exactly. Queries with a union or a `..` segment then buffer
        /// the value that segment applies to (for `$..x`, the document), up to
        /// ``JSONRecordOptions/maxBufferedBytes``; other queries stream as with ``document``.
        case rfc
    }

    /// Whether a blocking source (a file, a pipe, memory) is read and parsed on a thread of its own
    /// while records are decoded, so that the two overlap: for ``JSONRecordReader``, and for
    /// ``JSONRecords`` over a blocking source (its task then suspends, never blocks, while it
    /// waits). Default `true` on a machine with more than one core.
    ///
    /// It makes Decodable records about 1.7 times faster on two cores, for at most nine
    /// small batches of records in memory instead of one read's worth (see Docs/Performance.md).
    /// Records, errors and their order are the same either way. Decoding (your `init(from:)`,
    /// custom strategies) runs on the caller's thread (or task), and, when `Record` is `Sendable`
    /// (with a conformance not isolated to an actor), also on the parsing thread whenever six
    /// batches wait for the caller; the source is read on the parsing thread. An asynchronous
    /// source (``AsyncJSONByteSource``) is always read and parsed in the iterating task.
    public var parsesConcurrently = ProcessInfo.processInfo.activeProcessorCount > 1

    /// Whether the parsing thread decodes batches too while the caller is behind (see
    /// ``ConcurrentRecordStream``): set by the readers' initializers for a `Sendable` record type,
    /// whose `init(from:)` may then run on either thread.
    package var parsingThreadHelpsDecode = false

    /// How many parsed batches must wait for the caller before the parsing thread decodes the
    /// next one itself: six of the eight, when it would soon wait idle. Tests set 0 (it then
    /// decodes every batch).
    package var helpAfterQueuedBatches = 6

    /// The defaults: strict single-document JSON, stop on the first record that does not decode.
    public init() {}

    /// Options with the most used settings.
    public init(
        parser: JSONParser.Options = JSONParser.Options(),
        decoding: JSONRecordDecodingOptions = JSONRecordDecodingOptions(),
        limit: Int? = nil,
        onDecodingFailure: DecodingFailurePolicy = .stop,
        stopsEarly: Bool = true
    ) {
        self.parser = parser
        self.decoding = decoding
        self.limit = limit
        self.onDecodingFailure = onDecodingFailure
        self.stopsEarly = stopsEarly
    }
}

/// What a record stream has done so far: records delivered, records skipped and why, bytes read.
/// Safe to read from any thread while the stream runs.
public final class JSONRecordReport: Sendable {
    // Counted per record and per read: atomics, not the lock. With concurrent parsing the caller
    // writes the first and the parsing thread the second: a cache line apart.
    private let _delivered = Atomic<Int>(0)
    private let cacheLinePadding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let _bytesRead = Atomic<Int>(0)
    /// Skipped records and the errors kept, changed together.
    private let skips = Mutex<(count: Int, kept: [JSONRecordDecodingError])>((0, []))
    /// Skipped NDJSON lines and the first ones kept.
    private let badLineLog = Mutex<(count: Int, kept: [JSONBadLine])>((0, []))
    private let maxKept: Int

    init(maxKept: Int) { self.maxKept = maxKept }

    /// Records handed out.
    public var deliveredCount: Int { _delivered.load(ordering: .relaxed) }
    /// Records skipped because they did not decode (with ``JSONRecordOptions/DecodingFailurePolicy/skip``).
    public var skippedCount: Int { skips.withLock { $0.count } }
    /// The errors of the first skipped records (up to ``JSONRecordOptions/maxKeptFailures``).
    public var failures: [JSONRecordDecodingError] { skips.withLock { $0.kept } }
    /// NDJSON lines skipped because they were malformed (with ``JSONRecordOptions/BadLinePolicy/skip``).
    public var badLineCount: Int { badLineLog.withLock { $0.count } }
    /// The first skipped lines (up to ``JSONRecordOptions/maxKeptFailures``), in input order.
    public var badLines: [JSONBadLine] { badLineLog.withLock { $0.kept } }

    /// Bytes of input consumed by the parser.
    public var bytesRead: Int { _bytesRead.load(ordering: .relaxed) }

    /// Whether the input ended (or the reader stopped early because no query could match any
    /// more) without any query selecting a value: `true` only once the stream has ended that way,
    /// never while it runs. A likely misspelt query; with ``JSONRecordOptions/requireMatch`` the
    /// stream throws ``JSONNoMatchError`` instead of ending quietly.
    public var matchedNothing: Bool { _matchedNothing.load(ordering: .relaxed) }
    private let _matchedNothing = Atomic<Bool>(false)
    func endedWithoutMatch() { _matchedNothing.store(true, ordering: .relaxed) }

    func delivered() { _delivered.add(1, ordering: .relaxed) }
    func skipped(_ error: JSONRecordDecodingError) {
        skips.withLock { skips in
            skips.count += 1
            if skips.kept.count < maxKept { skips.kept.append(error) }
        }
    }
    func skippedLine(_ line: JSONBadLine) {
        badLineLog.withLock { log in
            log.count += 1
            if log.kept.count < maxKept { log.kept.append(line) }
        }
    }
    func setBytesRead(_ bytes: Int) { _bytesRead.store(bytes, ordering: .relaxed) }

    /// Adds what `other` (a block's report, in parallel NDJSON) skipped, after what this one has.
    func absorbSkips(of other: JSONRecordReport) {
        let (skipped, kept) = other.skips.withLock { ($0.count, $0.kept) }
        let (badCount, badKept) = other.badLineLog.withLock { ($0.count, $0.kept) }
        skips.withLock { skips in
            skips.count += skipped
            skips.kept.append(contentsOf: kept.prefix(max(0, maxKept - skips.kept.count)))
        }
        badLineLog.withLock { log in
            log.count += badCount
            log.kept.append(contentsOf: badKept.prefix(max(0, maxKept - log.kept.count)))
        }
    }
}

/// A malformed NDJSON line that was skipped: where it is and what was wrong.
public struct JSONBadLine: Sendable, CustomStringConvertible {
    /// The 1-based line number.
    public let line: Int
    /// The byte offset where the line starts.
    public let byteOffset: Int
    /// The parse error (its offset and column are where in the line it went wrong).
    public let error: any Error & Sendable

    /// `line 17 (byte 2048): …the error…`
    public var description: String { "line \(line) (byte \(byteOffset)): \(error)" }
}
