import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The inside of a selected container is recorded by YAJL's C callbacks (capture.h), not event by
/// event in Swift. Everything a user can see must be the same either way: the records (values,
/// paths, lines, offsets), decoding errors (with their lines and columns, read from the tape's
/// positions), and parse and limit errors raised inside a capture (their offset, line, column and
/// path: the path stack is rebuilt from the tape).
@Suite("Capture in C")
struct CaptureInCTests {
    /// What a reader delivers: each record's value, path, line and offset, then the error.
    struct Outcome: Equatable, CustomStringConvertible {
        var records: [String] = []
        var error: String?
        var failures: [String] = []
        var description: String { "\(records.count) records, error: \(error ?? "none"), failures: \(failures)" }
    }

    static func outcome<Value: Decodable>(
        _ type: Value.Type,
        _ bytes: [UInt8],
        at query: String,
        inC: Bool,
        chunkSize: Int,
        configure: (inout JSONRecordOptions) -> Void = { _ in },
        render: (Value) -> String
    ) -> Outcome {
        var options = JSONRecordOptions()
        options.recordsInC = inC
        options.parsesConcurrently = false
        options.parser.chunkSize = chunkSize
        configure(&options)
        var outcome = Outcome()
        do {
            let reader = try JSONRecordReader(type, at: query, from: .bytes(bytes), options: options)
            do {
                while let record = try reader.nextRecord() {
                    outcome.records.append(
                        "\(record.path) line \(record.line) at \(record.byteOffset): \(render(record.value))"
                    )
                }
            } catch {
                outcome.error = "\(error)"
            }
            outcome.failures = reader.report.failures.map(\.description)
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    /// The outcome of reading `bytes` at `query` into `JSONValue`s, with the capture in C and in Swift.
    static func bothWays(
        _ bytes: [UInt8],
        at query: String,
        chunkSize: Int,
        configure: (inout JSONRecordOptions) -> Void = { _ in }
    ) -> (c: Outcome, swift: Outcome) {
        func run(_ inC: Bool) -> Outcome {
            outcome(JSONValue.self, bytes, at: query, inC: inC, chunkSize: chunkSize, configure: configure) { "\($0)" }
        }
        return (run(true), run(false))
    }

    static let queries = ["$", "$[*]", "$.*", "$..*", "$.a", "$[0]"]

    static let documents: [String] =
        ChunkInvarianceTests.documents + [
            "[{\"a\": [1, {\"b\": \"x\\ny\"}, \"\\u00e9\"]},\n {\"a\": \"line\"},\n\n  [[], {}, [1,\n 2]]]",
            #"{"a": {"b": [true, false, null, 0, 10, -1.5e3, "", "\"q\""]}, "c": [[[[1]]]]}"#,
            // Errors inside a selected container, at every kind of position.
            #"[{"a": 1, "b": [1, 2, }]"#,
            #"[{"a": {"b": [1, {"c": tru}]}}]"#,
            #"[{"a": "x", "b"}]"#,
            #"[{"k": [1, 2, 3], "l": ["#,
            "[{\"a\": \"bad \\q escape\"}]",
            "[{\"a\": [\"\\u12\"]}]",
            "[{\"a\":\n [1,\n  2 3]}]",
            #"{"a": [{"b": 1}, {"b": 2}, {"b": ]}"#,
        ]

    static let chunkSizes = [1, 2, 5, 64 << 10]

    @Test(arguments: documents)
    func documentsGiveTheSameOutcome(_ document: String) {
        let bytes = Array(document.utf8)
        for query in Self.queries {
            for size in Self.chunkSizes {
                let (c, swift) = Self.bothWays(bytes, at: query, chunkSize: size)
                #expect(c == swift, "\(query) at chunk size \(size): C \(c) vs Swift \(swift)")
            }
        }
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: capture conformance skipped"),
        arguments: ["y_", "n_", "i_"]
    )
    func conformanceSuiteGivesTheSameOutcome(_ prefix: String) throws {
        let names = ConformanceTests.cases(prefix: prefix)
        #expect(!names.isEmpty)
        for name in names {
            let bytes = try ConformanceTests.bytes(name)
            for query in ["$", "$[*]", "$..*"] {
                for size in [1, 64 << 10] {
                    let (c, swift) = Self.bothWays(bytes, at: query, chunkSize: size)
                    #expect(c == swift, "\(name) \(query) at chunk size \(size): C \(c) vs Swift \(swift)")
                }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 6])
    func theDepthLimitInsideACaptureIsTheSame(_ maxDepth: Int) {
        let bytes = Array(#"{"r": [{"a": [[{"b": [[1]]}]], "c": {"d": {"e": {}}}}]}"#.utf8)
        for query in ["$.r[*]", "$", "$..a"] {
            let (c, swift) = Self.bothWays(bytes, at: query, chunkSize: 3) { $0.parser.maxDepth = maxDepth }
            #expect(c == swift, "\(query), maxDepth \(maxDepth): C \(c) vs Swift \(swift)")
        }
    }

    @Test func theDepthLimitErrorNamesThePathInsideTheRecord() throws {
        var options = JSONRecordOptions()
        options.parser.maxDepth = 4
        let reader = try JSONRecordReader(
            JSONValue.self,
            at: "$.r[*]",
            from: .text(#"{"r": [{"a": [1, {"b": [2]}]}]}"#),
            options: options
        )
        let error = try #require(throws: JSONParseError.self) { while try reader.next() != nil {} }
        #expect(error.kind == .depthLimitExceeded)
        #expect(error.path?.description == "$.r[0].a[1]")
        #expect(error.byteOffset == 17)
    }

    struct Row: Decodable, Equatable {
        let id: Int
        let name: String
        let tags: [String]
    }

    /// Decoding errors are located from the tape's positions, which the C callbacks write.
    @Test(arguments: [1, 4, 7, 64 << 10])
    func decodingErrorsAreLocatedTheSame(_ chunkSize: Int) {
        var text = "{\"results\": [\n"
        for id in 0..<60 {
            let name = id % 5 == 0 ? "\"esc\\\"aped \\u00e9 \(id)\"" : "\"row \(id)\""
            let idText = id % 9 == 4 ? "\"\(id)\"" : "\(id)"
            let tags = id % 11 == 3 ? "[\"a\",\n 7]" : "[\"t\(id % 3)\"]"
            text += (id == 0 ? "" : ",\n") + "  {\"id\": \(idText), \"name\": \(name), \"tags\": \(tags)}"
        }
        text += "\n]}"
        let bytes = Array(text.utf8)
        func run(_ inC: Bool) -> Outcome {
            Self.outcome(Row.self, bytes, at: "$.results[*]", inC: inC, chunkSize: chunkSize) {
                $0.onDecodingFailure = .skip
            } render: {
                "\($0.id) \($0.name) \($0.tags)"
            }
        }
        let (c, swift) = (run(true), run(false))
        #expect(c == swift)
        #expect(c.failures.count == 12)
        #expect(c.records.count == 48)
        #expect(c.failures.contains { $0.contains("line 6") })
    }

    /// NDJSON, with bad lines skipped: each line's value is a capture that may fail midway.
    @Test(arguments: [1, 3, 64 << 10])
    func ndjsonWithBadLinesIsTheSame(_ chunkSize: Int) {
        let text =
            "{\"a\": [1, 2]}\n{\"a\": [1, }\n[{\"b\": {\"c\": \"d\"}}]\n{\"a\": \"é\\n\"}\n{\"a\": [[[\n{\"z\": 0}\n"
        let (c, swift) = Self.bothWays(Array(text.utf8), at: "$", chunkSize: chunkSize) {
            $0.parser.allowMultipleValues = true
            $0.onBadLine = .skip
        }
        #expect(c == swift)
        #expect(c.records.count == 4)
    }

    /// The largest nesting is reported alike, whether it was inside a capture or not.
    @Test func maxDepthSeenCountsCapturedContainers() throws {
        for inC in [true, false] {
            var options = JSONRecordOptions()
            options.recordsInC = inC
            let capture = try RecordCapture(queries: [JSONPathQuery("$.r[*]")], options: options, stopsEarly: false)
            let parser = JSONParser(options: .init(), handler: capture, deliversEvents: true)
            _ = try parser.parse(#"{"r": [{"a": [[{"b": 1}]]}, 2]}"#)
            _ = try parser.finish()
            #expect(parser.maxDepthSeen == 6, "in C: \(inC)")
            // Inside the first record: the key, the array, the array, the object, the key, 1, and
            // the three closing brackets before the record's own.
            #expect(parser.eventsRecordedInC == (inC ? 9 : 0))
            #expect(capture.ready.count == 2)
        }
    }
}
