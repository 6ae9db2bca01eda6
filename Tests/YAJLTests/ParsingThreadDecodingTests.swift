import Foundation
import Synchronization
import Testing
import YAJL
import YAJLFixtures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The parsing thread's share of the decoding, for `Sendable` record types: chosen by the
/// compiler through the reader's initializers, and invisible in what the reader hands out (the
/// same records, errors, skips and counts as decoding everything in the caller).
@Suite("Decoding on the parsing thread")
struct ParsingThreadDecodingTests {
    /// A `Sendable` record that notes the thread its `init(from:)` ran on (not compared).
    struct Row: Decodable, Equatable, Sendable {
        let id: Int
        let name: String
        let tags: [String]
        let thread: UInt

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            tags = try container.decode([String].self, forKey: .tags)
            thread = UInt(pthread_self())
        }

        static func == (a: Row, b: Row) -> Bool { a.id == b.id && a.name == b.name && a.tags == b.tags }

        private enum CodingKeys: String, CodingKey { case id, name, tags }
    }

    /// The same fields, not `Sendable` (a class with a variable): decoded by the caller only.
    final class UnsendableRow: Decodable {
        var id = 0
    }

    static var callerThread: UInt { UInt(pthread_self()) }

    /// `onDecodingFailure` and the parsing thread's help: `helpAfter` 0 makes it decode every
    /// batch, nil turns concurrent parsing off (the reference).
    static func options(helpAfter: Int?, chunkSize: Int, skip: Bool) -> JSONRecordOptions {
        var options = JSONRecordOptions()
        options.parsesConcurrently = helpAfter != nil
        options.helpAfterQueuedBatches = helpAfter ?? 4
        options.parser.chunkSize = chunkSize
        if skip { options.onDecodingFailure = .skip }
        return options
    }

    /// Every record with its metadata, the error that ended the reading (if any), the reader's
    /// counts; through `nextRecord()` or `next()` (no metadata: compared by value only).
    static func drain(
        _ text: String,
        _ options: JSONRecordOptions,
        withMetadata: Bool
    ) throws -> (records: [JSONRecord<Row>], values: [Row], error: String?, delivered: Int, skipped: Int, helped: Bool)
    {
        let reader = try JSONRecordReader(Row.self, at: "$.results[*]", from: .text(text), options: options)
        var records: [JSONRecord<Row>] = []
        var values: [Row] = []
        var failure: String?
        do {
            if withMetadata {
                while let record = try reader.nextRecord() {
                    records.append(record)
                    values.append(record.value)
                }
            } else {
                while let row = try reader.next() { values.append(row) }
            }
        } catch {
            failure = "\(error)"
        }
        let report = reader.report
        return (records, values, failure, report.deliveredCount, report.skippedCount, reader.parsingThreadHelpsDecode)
    }

    static func rows(_ count: Int) -> String {
        var text = #"{"results": ["#
        for id in 0..<count {
            text +=
                (id == 0 ? "" : ",\n")
                + #"{"id": \#(id), "name": "row \#(id) \#(String(repeating: "é", count: id % 40))", "tags": ["\#(id % 7)"]}"#
        }
        return text + "]}"
    }

    @Test func sendableRecordTypesGetTheHelpingInitializer() throws {
        let text = Self.rows(3)
        #expect(try JSONRecordReader(Row.self, at: "$.results[*]", from: .text(text)).parsingThreadHelpsDecode)
        #expect(try JSONRecordReader(Row.self, at: ["$.results[*]"], from: .text(text)).parsingThreadHelpsDecode)
        #expect(try JSONRecordReader(JSONValue.self, at: "$.results[*]", from: .text(text)).parsingThreadHelpsDecode)
        #expect(try JSONRecordReader(JSONFragment.self, at: "$.results[*]", from: .text(text)).parsingThreadHelpsDecode)
        let unsendable = try JSONRecordReader(UnsendableRow.self, at: "$.results[*]", from: .text(text))
        #expect(!unsendable.parsingThreadHelpsDecode)
        #expect(try unsendable.next()?.id == 0)
        // In code generic over `Decodable` only, the general initializer: the caller decodes.
        func generic<T: Decodable>(_ type: T.Type) throws -> Bool {
            try JSONRecordReader(type, at: "$.results[*]", from: .text(text)).parsingThreadHelpsDecode
        }
        #expect(try !generic(Row.self))
    }

    /// A main-actor type whose `Decodable` conformance is isolated to the main actor: `Sendable`,
    /// but its `init(from:)` must not run on the parsing thread, and the compiler does not let the
    /// `Sendable` initializer take it.
    @MainActor
    struct MainActorRow: Sendable {
        var id = 0
    }

    @MainActor @Test func anActorIsolatedConformanceIsDecodedByTheCaller() throws {
        let reader = try JSONRecordReader(MainActorRow.self, at: "$.results[*]", from: .text(Self.rows(50)))
        #expect(!reader.parsingThreadHelpsDecode)
        var ids: [Int] = []
        while let row = try reader.next() { ids.append(row.id) }
        #expect(ids == Array(0..<50))
    }

    @Test(arguments: [1, 7, 4093, 64 << 10])
    func theParsingThreadDecodesAndTheRecordsAreTheSame(chunkSize: Int) throws {
        let text = Self.rows(3_000)
        let reference = try Self.drain(
            text,
            Self.options(helpAfter: nil, chunkSize: chunkSize, skip: false),
            withMetadata: true
        )
        #expect(reference.records.count == 3_000 && reference.error == nil && !reference.records.isEmpty)
        let helped = try Self.drain(
            text,
            Self.options(helpAfter: 0, chunkSize: chunkSize, skip: false),
            withMetadata: true
        )
        let threads = Set(helped.values.map(\.thread))
        #expect(helped.helped)
        #expect(helped.error == nil)
        #expect(RecordPipelineTests.same(reference.records, helped.records))
        #expect(helped.delivered == 3_000)
        // Every batch was decoded by the parsing thread, none by this one.
        #expect(!threads.isEmpty && !threads.contains(Self.callerThread), "decoded on \(threads)")

        let values = try Self.drain(
            text,
            Self.options(helpAfter: 0, chunkSize: chunkSize, skip: false),
            withMetadata: false
        )
        #expect(values.values == reference.values)
    }

    /// A record that does not decode, then a syntax error: the records before each, the error
    /// text (path, line, column), the skipped count, with either policy and either way of reading.
    @Test(arguments: [1, 64 << 10], [false, true])
    func decodingErrorsAndSkipsKeepTheirPlace(chunkSize: Int, withMetadata: Bool) throws {
        let text = Self.rows(2_000)
            .replacingOccurrences(of: #"{"id": 1500,"#, with: #"{"id": "x","#)
            .replacingOccurrences(of: #"{"id": 700,"#, with: #"{"id": 7.5,"#)
            .replacingOccurrences(of: #"{"id": 1900,"#, with: #"{"id": 1900 1,"#)
        for skip in [false, true] {
            let reference = try Self.drain(
                text,
                Self.options(helpAfter: nil, chunkSize: chunkSize, skip: skip),
                withMetadata: withMetadata
            )
            let helped = try Self.drain(
                text,
                Self.options(helpAfter: 0, chunkSize: chunkSize, skip: skip),
                withMetadata: withMetadata
            )
            #expect(reference.values.count == (skip ? 1_898 : 700))
            #expect(
                reference.error?.contains(skip ? "line 1901" : "results[700].id") == true,
                "\(reference.error ?? "")"
            )
            #expect(helped.error == reference.error)
            #expect(helped.skipped == reference.skipped && helped.skipped == (skip ? 2 : 0))
            #expect(helped.delivered == reference.delivered && helped.delivered == helped.values.count)
            #expect(helped.values == reference.values)
            #expect(RecordPipelineTests.same(reference.records, helped.records))
            #expect(helped.helped && helped.values.allSatisfy { $0.thread != Self.callerThread })
        }
    }

    /// `JSONRecords` over a blocking source: the same records (with metadata, or values only) and
    /// skips as the serial reader, all decoded by the one parsing thread when it decodes every
    /// batch.
    @Test(arguments: [1, 64 << 10])
    func asyncRecordsAreTheSameWhenTheParsingThreadDecodes(chunkSize: Int) async throws {
        let text = Self.rows(3_000).replacingOccurrences(of: #"{"id": 1500,"#, with: #"{"id": "x","#)
        let reference = try Self.drain(
            text,
            Self.options(helpAfter: nil, chunkSize: chunkSize, skip: true),
            withMetadata: true
        )
        let records = JSONRecords(
            Row.self,
            at: "$.results[*]",
            from: .text(text),
            options: Self.options(helpAfter: 0, chunkSize: chunkSize, skip: true)
        )
        #expect(records.parsingThreadHelpsDecode)
        var values: [Row] = []
        for try await row in records { values.append(row) }
        var matches: [JSONRecord<Row>] = []
        for try await record in records.matches { matches.append(record) }
        #expect(reference.values.count == 2_999 && values == reference.values)
        #expect(RecordPipelineTests.same(reference.records, matches))
        #expect(records.report.skippedCount == 2 && records.report.deliveredCount == 2 * 2_999)
        #expect(Set(values.map(\.thread)).count == 1, "decoded on more than the parsing thread")
        let general = JSONRecords(UnsendableRow.self, at: "$.results[*]", from: .text(text))
        #expect(!general.parsingThreadHelpsDecode)
    }

    /// A record whose instances are counted, to see that what the parsing thread decoded and
    /// nobody took is destroyed with the reader.
    struct Counted: Decodable, Sendable {
        final class Token: Sendable {
            static let alive = Atomic<Int>(0)
            init() { Self.alive.add(1, ordering: .relaxed) }
            deinit { Self.alive.subtract(1, ordering: .relaxed) }
        }
        let id: Int
        let token: Token

        init(from decoder: any Decoder) throws {
            struct Plain: Decodable { let id: Int }
            id = try Plain(from: decoder).id
            token = Token()
        }
    }

    @Test func recordsDecodedAheadAreCountedWhenTakenAndFreedWhenNot() async throws {
        let text = Self.rows(20_000)
        let options = Self.options(helpAfter: 0, chunkSize: 4093, skip: false)
        do {
            let reader = try JSONRecordReader(Counted.self, at: "$.results[*]", from: .text(text), options: options)
            #expect(reader.parsingThreadHelpsDecode)
            for expected in 0..<3 { #expect(try reader.next()?.id == expected) }
            // The parsing thread has decoded ahead; only what was handed out counts.
            try await Task.sleep(for: .milliseconds(50))
            #expect(reader.report.deliveredCount == 3)
            #expect(Counted.Token.alive.load(ordering: .relaxed) > 0)
        }
        // Dropped: the thread stops and every value nobody took is destroyed with its batch.
        var alive = Counted.Token.alive.load(ordering: .relaxed)
        for _ in 0..<200 where alive != 0 {
            try await Task.sleep(for: .milliseconds(10))
            alive = Counted.Token.alive.load(ordering: .relaxed)
        }
        #expect(alive == 0, "\(alive) decoded records were never destroyed")
    }

    struct Dated: Decodable, Equatable, Sendable {
        let id: Int
        let at: Date
    }

    /// One `DateFormatter` for the reader, used by both threads when both decode (a threshold of
    /// two batches, so that they take turns): every date as the serial reader reads it.
    @Test func aFormattedDateStrategyIsSafeWhenBothThreadsDecode() throws {
        var text = #"{"results": ["#
        for id in 0..<6_000 {
            text +=
                (id == 0 ? "" : ",") + #"{"id": \#(id), "at": "2026-\#(id % 12 + 1)-\#(id % 28 + 1) 10:\#(id % 60)"}"#
        }
        text += "]}"
        func read(_ helpAfter: Int?) throws -> [Dated] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-M-d HH:m"
            var options = Self.options(helpAfter: helpAfter, chunkSize: 4093, skip: false)
            options.decoding.dateDecodingStrategy = .formatted(formatter)
            let reader = try JSONRecordReader(Dated.self, at: "$.results[*]", from: .text(text), options: options)
            var rows: [Dated] = []
            while let row = try reader.next() { rows.append(row) }
            return rows
        }
        let reference = try read(nil)
        #expect(reference.count == 6_000)
        #expect(reference[13].at == Date(timeIntervalSince1970: 1_771_063_980))
        #expect(try read(2) == reference)
    }

    /// Decoding is shared only once batches wait: with the default threshold and a fast caller,
    /// the records are still all there, in order.
    @Test func theDefaultThresholdDeliversEveryRecordInOrder() throws {
        let text = Self.rows(5_000)
        let threshold = JSONRecordOptions().helpAfterQueuedBatches
        let helped = try Self.drain(
            text,
            Self.options(helpAfter: threshold, chunkSize: 4093, skip: false),
            withMetadata: true
        )
        #expect(helped.helped && helped.error == nil)
        #expect(helped.records.map(\.value.id) == Array(0..<5_000))
    }
}

extension ParsingThreadDecodingTests.MainActorRow: @MainActor Decodable {
    private enum CodingKeys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        MainActor.assertIsolated()
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
    }
}
