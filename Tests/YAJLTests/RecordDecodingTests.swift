// About 320 lines: the decoding behaviours of records, one test each, sharing their fixtures.

import Foundation
import Testing
import YAJL
import YAJLFixtures
import YAJLTestSupport

@testable import YAJLCore

struct User: Decodable, Equatable {
    struct Address: Decodable, Equatable {
        let city: String
        let zipCode: String?
        let geo: [Double]
    }
    let id: Int
    let firstName: String
    let nickName: String?
    let active: Bool
    let address: Address
    let tags: [String]
}

@Suite("Decodable records")
struct RecordDecodingTests {
    static let users = #"""
        {"results": [
          {"id": 1, "first_name": "Ann", "nick_name": null, "active": true,
           "address": {"city": "Lima", "zip_code": "15001", "geo": [-12.04, -77.03]}, "tags": ["a"]},
          {"id": 2, "first_name": "Bob", "active": false,
           "address": {"city": "Cairo", "geo": [30.04, 31.24]}, "tags": []}
        ]}
        """#

    static var snakeCase: JSONRecordOptions {
        var options = JSONRecordOptions()
        options.decoding.keyDecodingStrategy = .convertFromSnakeCase
        return options
    }

    @Test func nestedTypesOptionalsArraysAndSnakeCaseKeys() throws {
        let reader = try JSONRecordReader(
            User.self,
            at: "$.results[*]",
            from: .text(Self.users),
            options: Self.snakeCase
        )
        let first = try #require(try reader.next())
        #expect(
            first
                == User(
                    id: 1,
                    firstName: "Ann",
                    nickName: nil,
                    active: true,
                    address: .init(city: "Lima", zipCode: "15001", geo: [-12.04, -77.03]),
                    tags: ["a"]
                )
        )
        let second = try #require(try reader.next())
        #expect(second.address.zipCode == nil)
        #expect(try reader.next() == nil)
        #expect(reader.report.deliveredCount == 2)
    }

    @Test(arguments: [
        ("_leading", "_leading"), ("trailing_", "trailing_"), ("a_b_c", "aBC"), ("already", "already"),
        ("url_path", "urlPath"), ("__x__", "__x__"), ("many__gaps", "manyGaps"),
    ])
    func snakeCaseConversionMatchesJSONDecoder(key: String, expected: String) {
        #expect(KeyCaseConversion.camelCase(fromSnakeCase: key) == expected)
    }

    @Test func losslessBigIntegersIntoDecimalInt128AndUInt64() throws {
        struct Amount: Decodable {
            let exact: Decimal
            let wide: Int128
            let big: UInt64
            let raw: JSONValue
        }
        let json =
            #"[{"exact": 123456789012345678901234567890, "wide": -123456789012345678901234567890, "big": 12345678901234567890, "raw": 123456789012345678901234567890}]"#
        let amount = try #require(try JSONRecordReader(Amount.self, at: "$[*]", from: .text(json)).next())
        #expect(amount.exact == Decimal(string: "123456789012345678901234567890"))
        #expect(amount.wide == -123_456_789_012_345_678_901_234_567_890)
        #expect(amount.big == 12_345_678_901_234_567_890)  // not 12345678901234567168 (through a Double)
        #expect(amount.raw == .number(JSONNumber("123456789012345678901234567890")!))
    }

    @Test func aNumberIsNotSilentlyAString() throws {
        struct Place: Decodable { let zip: String }
        let reader = try JSONRecordReader(Place.self, at: "$[*]", from: .text(#"[{"zip": 12345}]"#))
        let error = try #require(throws: JSONRecordDecodingError.self) { try reader.next() }
        #expect(error.description == "$[0].zip: expected String, found number at line 1, column 10 (byte 9)")
        guard case .typeMismatch(let type, _)? = error.underlying else {
            Issue.record("expected typeMismatch, got \(String(describing: error.underlying))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
    }

    @Test func dateStrategies() throws {
        struct Event: Decodable { let at: Date }
        var iso = JSONRecordOptions()
        iso.decoding.dateDecodingStrategy = .iso8601
        let fromISO = try JSONRecordReader(
            Event.self,
            at: "$[*]",
            from: .text(#"[{"at": "2026-11-29T10:00:00Z"}, {"at": "2026-11-29T10:00:00.250Z"}]"#),
            options: iso
        )
        #expect(try fromISO.next()?.at == Date(timeIntervalSince1970: 1_795_946_400))
        #expect(try fromISO.next()?.at == Date(timeIntervalSince1970: 1_795_946_400.25))
        var seconds = JSONRecordOptions()
        seconds.decoding.dateDecodingStrategy = .secondsSince1970
        let fromSeconds = try JSONRecordReader(
            Event.self,
            at: "$[*]",
            from: .text(#"[{"at": 1795946400}]"#),
            options: seconds
        )
        #expect(try fromSeconds.next()?.at == Date(timeIntervalSince1970: 1_795_946_400))
        var millis = JSONRecordOptions()
        millis.decoding.dateDecodingStrategy = .millisecondsSince1970
        let fromMillis = try JSONRecordReader(
            Event.self,
            at: "$[*]",
            from: .text(#"[{"at": 1795946400500}]"#),
            options: millis
        )
        #expect(try fromMillis.next()?.at == Date(timeIntervalSince1970: 1_795_946_400.5))
    }

    static let withBadRecord = #"""
        {"results": [
          {"id": 1, "zip": "1000"},
          {"id": 2, "zip": true},
          {"id": 3, "zip": "3000"},
          {"id": "four", "zip": "4000"},
          {"zip": "5000"}
        ]}
        """#
    struct Row: Decodable {
        let id: Int
        let zip: String?
    }
    struct StrictRow: Decodable {
        let id: Int
        let zip: String
    }
    struct Place: Decodable { let zip: Int }

    @Test func aFailingRecordStopsTheStreamWithBothPaths() throws {
        let reader = try JSONRecordReader(Place.self, at: "$.results[*]", from: .text(Self.withBadRecord))
        do {
            while try reader.next() != nil {}
            Issue.record("expected a decoding error")
        } catch let error as JSONRecordDecodingError {
            #expect(error.description == "$.results[0].zip: expected Int, found string at line 2, column 20 (byte 33)")
            #expect(error.recordPath.description == "$.results[0]")
            #expect(error.line == 2 && error.recordLine == 2 && error.column == 20 && error.byteOffset == 33)
        }
    }

    @Test func failingRecordsCanBeSkippedAndAreReported() throws {
        var options = JSONRecordOptions()
        options.onDecodingFailure = .skip
        let reader = try JSONRecordReader(
            StrictRow.self,
            at: "$.results[*]",
            from: .text(Self.withBadRecord),
            options: options
        )
        var ids: [Int] = []
        try reader.forEach { ids.append($0.id) }
        #expect(ids == [1, 3])
        #expect(reader.report.skippedCount == 3)
        #expect(
            reader.report.failures.map(\.description) == [
                "$.results[1].zip: expected String, found boolean at line 3, column 20 (byte 61)",
                "$.results[3].id: expected Int, found string at line 5, column 10 (byte 105)",
                "$.results[4]: missing key 'id' at line 6, column 3 (byte 131)",
            ]
        )
    }

    @Test func aLimitStopsReadingEarly() throws {
        let file = TemporaryFile("limit.json")
        defer { file.remove() }
        let counts = try DocumentGenerator.write(.records, targetBytes: 32 << 20, to: file.path)
        var options = JSONRecordOptions()
        options.limit = 1
        let reader = try JSONRecordReader(JSONValue.self, at: "$.results[*]", from: .file(file.path), options: options)
        #expect(try reader.next()?["id"] == .number(JSONNumber("0")!))
        #expect(try reader.next() == nil)
        #expect(reader.report.bytesRead <= 64 << 10, "read \(reader.report.bytesRead) of \(counts.bytes) bytes")
    }

    @Test func aClosedSelectionStopsReadingEarly() throws {
        let file = TemporaryFile("meta.json")
        defer { file.remove() }
        let counts = try DocumentGenerator.write(.records, targetBytes: 16 << 20, to: file.path)
        let reader = try JSONRecordReader(JSONValue.self, at: "$.meta", from: .file(file.path))
        #expect(try reader.next()?["kind"] == .string("records"))
        #expect(try reader.next() == nil)
        #expect(
            reader.report.bytesRead <= 64 << 10,
            "read \(reader.report.bytesRead) of \(counts.bytes) bytes for $.meta"
        )
        // Without early stop the whole document is read (and validated).
        var options = JSONRecordOptions()
        options.stopsEarly = false
        let full = try JSONRecordReader(JSONValue.self, at: "$.meta", from: .file(file.path), options: options)
        while try full.next() != nil {}
        #expect(full.report.bytesRead == counts.bytes)
    }

    @Test func recordsBeforeAParseErrorAreDeliveredThenTheErrorIsThrown() throws {
        // Both records and the error are in the same chunk: the good record still comes first.
        let reader = try JSONRecordReader(
            JSONValue.self,
            at: "$.results[*]",
            from: .text(#"{"results": [{"a": 1}, {"a": tru}]}"#)
        )
        #expect(try reader.next()?["a"] == .number(JSONNumber("1")!))
        #expect(throws: JSONParseError.self) { try reader.next() }
        #expect(throws: JSONParseError.self) { try reader.next() }  // and it stays failed
    }

    @Test func asyncSequenceOfRecords() async throws {
        var ids: [Int] = []
        for try await row in JSONRecords(
            Row.self,
            at: "$.results[*]",
            from: .text(Self.withBadRecord),
            options: .init(onDecodingFailure: .skip)
        ) {
            ids.append(row.id)
        }
        #expect(ids == [1, 3])  // `"zip": true`, `"id": "four"` and a missing id are skipped
        let records = JSONRecords(
            Row.self,
            at: "$.results[*]",
            from: .text(Self.withBadRecord),
            options: .init(onDecodingFailure: .skip)
        )
        var paths: [String] = []
        for try await match in records.matches { paths.append("\(match.path)@\(match.line)") }
        #expect(paths == ["$.results[0]@2", "$.results[2]@4"])
        #expect(records.report.skippedCount == 3)
    }

    @Test func asyncInvalidPathIsReportedOnFirstNext() async {
        await #expect(throws: JSONPathSyntaxError.self) {
            for try await _ in JSONRecords(JSONValue.self, at: "$.[", from: .text("[]")) {}
        }
    }

    @Test func cancellingTheRecordStreamStopsReading() async throws {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        continuation.yield(Array(#"{"results": ["#.utf8))
        let producer = Task {
            var index = 0
            while !Task.isCancelled {
                continuation.yield(Array(#"{"id": \#(index)},"#.utf8))
                index += 1
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        let consumer = Task {
            var count = 0
            for try await _ in JSONRecords(Row.self, at: "$.results[*]", from: .chunks(stream)) { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(60))
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        producer.cancel()
        continuation.finish()
    }

    @Test func a256MiBRecordsDocumentDecodesWithFlatMemory() throws {
        let file = TemporaryFile("records-decode.json")
        defer { file.remove() }
        let size = ProcessMemory.documentSize(forMemoryCheck: 256 << 20, test: "records fixture")
        let counts = try DocumentGenerator.write(.records, targetBytes: size, to: file.path)
        struct Record: Decodable {
            struct Address: Decodable {
                let city: String
                let zip: String
                let geo: [Double]
            }
            let id: Int
            let name: String
            let email: String
            let active: Bool
            let score: Double
            let tags: [String]
            let address: Address
            let note: String?
        }
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let reader = try JSONRecordReader(Record.self, at: "$.results[*]", from: .file(file.path))
        var count = 0
        var lastID = -1
        while let record = try reader.next() {
            #expect(record.id == lastID + 1)
            lastID = record.id
            count += 1
        }
        let peak = ProcessMemory.field("VmHWM") ?? 0
        #expect(count == counts.records)
        if resetPeak {
            print(
                "records fixture: \(count) records decoded from \(counts.bytes >> 20) MiB, peak RSS growth \((peak - before) >> 10) KiB"
            )
            #expect(peak - before < 8 << 20, "peak RSS grew by \((peak - before) >> 10) KiB")
        } else {
            print("⚠️  records fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }

    struct Pair: Decodable, Equatable {
        let a: String
        let b: String
    }

    /// Records of different layouts, each starting at the same place on the tape (a read of one
    /// byte hands each record out before the next starts): the decoder's memory of where the last
    /// key was found must not carry over from one record to the next (it once did: the lookup then
    /// read a string value or the middle of a text as a key, and trapped).
    @Test(arguments: [1, 2, 64 << 10])
    func memberHintsDoNotCarryOverBetweenRecords(_ chunkSize: Int) throws {
        let text =
            #"[{"a": "p", "b": "q"}, {"b": "a", "a": "r"}, {"k": "zz", "a": "A", "b": "B"}, "#
            + #"{"x": "a", "a": "b", "b": "a"}, {"b": "2", "a": "1"}, {"a": "3", "zzz": "a", "b": "4"}]"#
        var options = JSONRecordOptions()
        options.parser.chunkSize = chunkSize
        options.parsesConcurrently = false
        let reader = try JSONRecordReader(Pair.self, at: "$[*]", from: .text(text), options: options)
        var pairs: [Pair] = []
        while let pair = try reader.next() { pairs.append(pair) }
        let expected = [("p", "q"), ("r", "a"), ("A", "B"), ("b", "a"), ("1", "2"), ("3", "4")]
        #expect(pairs == expected.map { Pair(a: $0.0, b: $0.1) })
    }

    struct HintInner: Decodable, Equatable {
        let x: Int
        let y: Int?
        let z: String?
    }

    struct HintOuter: Decodable, Equatable {
        let a: HintInner
        let y: Int
        let z: String?
        let b: HintInner?
    }

    /// The member hint (the member after the one found last, tried first) never reads past its
    /// object: a key the inner object lacks but its parent has next (`y` after `{"x":1}`) is
    /// absent, not the parent's; sibling objects at one depth, keys in any order, empty objects.
    /// JSONDecoder gives the expected records.
    @Test(arguments: [
        #"{"a":{"x":1},"y":2,"z":"outer"}"#,
        #"{"a":{"x":1,"y":5},"y":2,"z":"o","b":{"x":3}}"#,
        #"{"y":2,"a":{"z":"in","x":1},"b":{"y":7,"x":3}}"#,
        #"{"a":{"x":1},"b":{"x":2},"y":3}"#,
        #"{"a":{"x":1,"z":null},"b":{"x":2,"y":null,"z":"b"},"y":3,"z":null}"#,
        #"{"b":{"z":"bz","x":2},"a":{"y":4,"x":1},"z":"az","y":3}"#,
        #"{"a":{"x":1,"q":{"y":9,"z":"deep"}},"y":3}"#,
    ])
    func memberHintsStayInsideTheirObject(_ record: String) throws {
        let text = "[" + record + "," + record + "]"
        let expected = try JSONDecoder().decode([HintOuter].self, from: Data(text.utf8))
        for (chunkSize, concurrently) in [(1, false), (3, true), (64 << 10, false), (64 << 10, true)] {
            var options = JSONRecordOptions()
            options.parser.chunkSize = chunkSize
            options.parsesConcurrently = concurrently
            let reader = try JSONRecordReader(HintOuter.self, at: "$[*]", from: .text(text), options: options)
            var records: [HintOuter] = []
            while let next = try reader.next() { records.append(next) }
            #expect(records == expected, "chunk size \(chunkSize), concurrently \(concurrently)")
        }
    }

}
