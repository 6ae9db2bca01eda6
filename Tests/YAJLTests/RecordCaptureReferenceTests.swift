import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The inside of a selected container is recorded by YAJL's C callbacks (capture.h), the one
/// capture path. What a reader delivers is checked against the event stream, which knows nothing
/// of captures: each record's value, path, line and offset must be those of the value the events
/// describe at that path, and a parse or limit error raised inside a capture must be the error a
/// plain event parse raises on the same bytes (its offset, line, column and path: the path stack
/// is rebuilt from the tape).
@Suite("Record capture against the event stream")
struct RecordCaptureReferenceTests {
    /// What a reader delivers: each record's value, path, line and offset, then the error.
    struct Outcome: Equatable, CustomStringConvertible {
        var records: [String] = []
        var error: String?
        var failures: [String] = []
        var description: String { "\(records.count) records, error: \(error ?? "none"), failures: \(failures)" }
    }

    /// Every value of a document as the event stream gives it: its path, where it starts, and
    /// (once it has ended) the value; built with an explicit stack.
    final class EventReference: JSONEventHandler {
        struct Node {
            var path: JSONPath
            var line: Int
            var offset: Int
            var value: JSONValue?
        }
        private(set) var nodes: [Node] = []
        private var open: [(node: Int, elements: [JSONValue], members: [JSONObject.Member], key: String?)] = []

        private func starts(_ position: SourcePosition, _ context: JSONEventContext) -> Int {
            nodes.append(
                Node(path: context.path ?? JSONPath([.key("?")]), line: position.line, offset: position.offset)
            )
            return nodes.count - 1
        }
        private func completes(_ node: Int, _ value: JSONValue) {
            nodes[node].value = value
            guard let top = open.indices.last else { return }
            if let key = open[top].key {
                open[top].members.append(.init(key: key, value: value))
                open[top].key = nil
            } else {
                open[top].elements.append(value)
            }
        }
        func startObject(context: JSONEventContext) throws {
            open.append((starts(context.start(ofTokenLength: 1), context), [], [], nil))
        }
        func startArray(context: JSONEventContext) throws { try startObject(context: context) }
        func endObject(context: JSONEventContext) throws {
            let top = open.removeLast()
            completes(top.node, .object(JSONObject(top.members)))
        }
        func endArray(context: JSONEventContext) throws {
            let top = open.removeLast()
            completes(top.node, .array(top.elements))
        }
        func key(_ key: JSONStringView, context: JSONEventContext) throws { open[open.count - 1].key = key.string }
        func string(_ value: JSONStringView, context: JSONEventContext) throws {
            completes(starts(context.start(ofString: value), context), .string(value.string))
        }
        func number(_ value: JSONNumberView, context: JSONEventContext) throws {
            let text = String(decoding: value.bytes, as: UTF8.self)
            let node = starts(context.start(ofTokenLength: value.bytes.count), context)
            completes(node, JSONNumber(text).map(JSONValue.number) ?? .string("not a number: \(text)"))
        }
        func bool(_ value: Bool, context: JSONEventContext) throws {
            completes(starts(context.start(ofTokenLength: value ? 4 : 5), context), .bool(value))
        }
        func null(context: JSONEventContext) throws {
            completes(starts(context.start(ofTokenLength: 4), context), .null)
        }

        /// The values of `bytes` and the error of a plain event parse, with the readers' parser
        /// options (paths tracked).
        static func parse(_ bytes: [UInt8], options: JSONRecordOptions) -> (nodes: [Node], error: String?) {
            let reference = EventReference()
            var parserOptions = options.parser
            parserOptions.tracksPath = true
            let parser = JSONParser(options: parserOptions, handler: reference)
            do {
                _ = try parser.parse(bytes)
                _ = try parser.finish()
                return (reference.nodes, nil)
            } catch {
                return (reference.nodes, "\(error)")
            }
        }
    }

    /// Whether `query`, one of ``queries``, selects the value at `path`.
    static func selects(_ query: String, _ path: JSONPath) -> Bool {
        let steps = path.components
        switch query {
        case "$": return steps.isEmpty
        case "$[*]", "$.*": return steps.count == 1
        case "$..*": return !steps.isEmpty
        case "$.a": return steps == [.key("a")]
        case "$[0]": return steps == [.index(0)]
        case "$.r[*]", "$.results[*]":
            guard steps.count == 2, case .index = steps[1] else { return false }
            return steps[0] == .key(query == "$.r[*]" ? "r" : "results")
        case "$..a":
            guard case .key("a") = steps.last else { return false }
            return true
        default:
            Issue.record("no reference for \(query)")
            return false
        }
    }

    static func render(path: String, line: Int, offset: Int, value: String) -> String {
        "\(path) line \(line) at \(offset): \(value)"
    }

    /// What the reader delivers for `bytes` at `query`.
    static func outcome<Value: Decodable>(
        _ type: Value.Type,
        _ bytes: [UInt8],
        at query: String,
        options: JSONRecordOptions,
        render: (Value) -> String
    ) -> Outcome {
        var outcome = Outcome()
        do {
            let reader = try JSONRecordReader(type, at: query, from: .bytes(bytes), options: options)
            do {
                while let record = try reader.nextRecord() {
                    outcome.records.append(
                        Self.render(
                            path: record.path.description,
                            line: record.line,
                            offset: record.byteOffset,
                            value: render(record.value)
                        )
                    )
                }
            } catch {
                outcome.error = "\(error)"
            }
            outcome.failures = reader.report.failures.map(\.description) + reader.report.badLines.map(\.description)
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    static func options(chunkSize: Int, configure: (inout JSONRecordOptions) -> Void = { _ in }) -> JSONRecordOptions {
        var options = JSONRecordOptions()
        options.parsesConcurrently = false
        // Read to the end, as the event stream does (a query's last match would stop the read).
        options.stopsEarly = false
        options.parser.chunkSize = chunkSize
        configure(&options)
        return options
    }

    /// Reads `bytes` at `query` into `JSONValue`s and checks the outcome against the event stream:
    /// on a valid document, exactly the selected values in document order; on an invalid one, the
    /// same error, after a prefix of them.
    static func expectMatchesEvents(
        _ bytes: [UInt8],
        at query: String,
        chunkSize: Int,
        configure: (inout JSONRecordOptions) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let options = Self.options(chunkSize: chunkSize, configure: configure)
        let got = outcome(JSONValue.self, bytes, at: query, options: options) { "\($0)" }
        let reference = EventReference.parse(bytes, options: options)
        let expected = reference.nodes.filter { selects(query, $0.path) }.map {
            render(
                path: $0.path.description,
                line: $0.line,
                offset: $0.offset,
                value: $0.value.map { "\($0)" } ?? "(incomplete)"
            )
        }
        let context = "\(query) at chunk size \(chunkSize) of \(String(decoding: bytes.prefix(80), as: UTF8.self))"
        #expect(got.error == reference.error, "\(context)", sourceLocation: sourceLocation)
        if reference.error == nil {
            #expect(got.records == expected, "\(context)", sourceLocation: sourceLocation)
        } else {
            #expect(
                Array(expected.prefix(got.records.count)) == got.records,
                "\(context)",
                sourceLocation: sourceLocation
            )
        }
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
    func documentsMatchTheEventStream(_ document: String) {
        for query in Self.queries {
            for size in Self.chunkSizes {
                Self.expectMatchesEvents(Array(document.utf8), at: query, chunkSize: size)
            }
        }
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: capture conformance skipped"),
        arguments: ["y_", "n_", "i_"]
    )
    func conformanceSuiteMatchesTheEventStream(_ prefix: String) throws {
        let names = ConformanceTests.cases(prefix: prefix)
        #expect(!names.isEmpty)
        for name in names {
            let bytes = try ConformanceTests.bytes(name)
            for query in ["$", "$[*]", "$..*"] {
                for size in [1, 64 << 10] {
                    Self.expectMatchesEvents(bytes, at: query, chunkSize: size)
                }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 6])
    func theDepthLimitInsideACaptureIsTheEventStreams(_ maxDepth: Int) {
        let bytes = Array(#"{"r": [{"a": [[{"b": [[1]]}]], "c": {"d": {"e": {}}}}]}"#.utf8)
        for query in ["$.r[*]", "$", "$..a"] {
            Self.expectMatchesEvents(bytes, at: query, chunkSize: 3) { $0.parser.maxDepth = maxDepth }
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

    /// A value held whole for its query's sake is limited while the capture callbacks record it:
    /// the read stops at the first byte past the limit, with the error naming the option.
    @Test(arguments: [16, 40, 100])
    func aBufferedCaptureStopsAtItsLimit(_ limit: Int) throws {
        let inner = (0..<30).map { "{\"v\": [\($0), \"\(String(repeating: "x", count: $0))\"]}" }.joined(separator: ",")
        let text = "{\"a\": [\(inner)], \"b\": 1}"
        for size in [1, 7, 64 << 10] {
            var options = Self.options(chunkSize: size)
            options.maxBufferedBytes = limit
            let reader = try JSONRecordReader(JSONValue.self, at: "$.a[-1]", from: .text(text), options: options)
            let error = try #require(throws: JSONPathBufferError.self) { while try reader.next() != nil {} }
            #expect(error.limit == limit)
            #expect(error.path.description == "$.a")
            #expect("\(error)".contains("maxBufferedBytes"))
            // With room for the array, the last element is read.
            options.maxBufferedBytes = 1 << 20
            let whole = try JSONRecordReader(JSONValue.self, at: "$.a[-1]", from: .text(text), options: options)
            #expect(try whole.next()?["v"]?[0] == .number(JSONNumber("29")!))
        }
    }

    struct Row: Decodable, Equatable {
        let id: Int
        let name: String
        let tags: [String]
    }

    /// Decoding errors are located from the tape's positions, which the C callbacks write.
    @Test(arguments: [1, 4, 7, 64 << 10])
    func decodingErrorsAreLocatedAtTheirValue(_ chunkSize: Int) {
        var text = "{\"results\": [\n"
        var failing: [(id: Int, line: Int)] = []
        for id in 0..<60 {
            let name = id % 5 == 0 ? "\"esc\\\"aped \\u00e9 \(id)\"" : "\"row \(id)\""
            let idText = id % 9 == 4 ? "\"\(id)\"" : "\(id)"
            let tags = id % 11 == 3 ? "[\"a\",\n 7]" : "[\"t\(id % 3)\"]"
            // Record `id` starts on line id + 2, plus one for each earlier record whose tags broke a line.
            let line = id + 2 + (0..<id).filter { $0 % 11 == 3 }.count
            if id % 9 == 4 {
                failing.append((id, line))
            } else if id % 11 == 3 {
                failing.append((id, line + 1))
            }
            text += (id == 0 ? "" : ",\n") + "  {\"id\": \(idText), \"name\": \(name), \"tags\": \(tags)}"
        }
        text += "\n]}"
        let options = Self.options(chunkSize: chunkSize) { $0.onDecodingFailure = .skip }
        let got = Self.outcome(Row.self, Array(text.utf8), at: "$.results[*]", options: options) {
            "\($0.id) \($0.name) \($0.tags)"
        }
        #expect(got.error == nil)
        #expect(got.records.count == 48)
        #expect(got.failures.count == failing.count)
        for (failure, expected) in zip(got.failures, failing) {
            #expect(failure.contains("line \(expected.line),"), "record \(expected.id): \(failure)")
            #expect(failure.contains("$.results[\(expected.id)]"), "record \(expected.id): \(failure)")
        }
        let reference = EventReference.parse(Array(text.utf8), options: options)
        let expected = reference.nodes.filter { Self.selects("$.results[*]", $0.path) }
        let decoded = Set(0..<60).subtracting(failing.map(\.id)).sorted()
        #expect(
            got.records.map { $0.components(separatedBy: ":").first! }
                == decoded.map {
                    let node = expected[$0]
                    return "\(node.path) line \(node.line) at \(node.offset)"
                }
        )
    }

    /// NDJSON, with bad lines skipped: each line's value is a capture that may fail midway; each
    /// good line's record is that line's value, as the event stream gives it.
    @Test(arguments: [1, 3, 64 << 10])
    func ndjsonWithBadLinesMatchesEachLine(_ chunkSize: Int) {
        let lines = [
            "{\"a\": [1, 2]}", "{\"a\": [1, }", "[{\"b\": {\"c\": \"d\"}}]", "{\"a\": \"é\\n\"}", "{\"a\": [[[",
            "{\"z\": 0}",
        ]
        let text = lines.map { $0 + "\n" }.joined()
        let options = Self.options(chunkSize: chunkSize) {
            $0.parser.allowMultipleValues = true
            $0.onBadLine = .skip
        }
        let got = Self.outcome(JSONValue.self, Array(text.utf8), at: "$", options: options) { "\($0)" }
        var expected: [String] = []
        var offset = 0
        var badLines: [Int] = []
        for (index, line) in lines.enumerated() {
            let reference = EventReference.parse(Array(line.utf8), options: Self.options(chunkSize: chunkSize))
            if reference.error == nil, let root = reference.nodes.first, let value = root.value {
                expected.append(
                    Self.render(path: "$", line: index + 1, offset: offset + root.offset, value: "\(value)")
                )
            } else {
                badLines.append(index + 1)
            }
            offset += line.utf8.count + 1
        }
        #expect(got.error == nil)
        #expect(got.records == expected)
        #expect(got.records.count == 4)
        #expect(got.failures.count == badLines.count)
        for (failure, line) in zip(got.failures, badLines) {
            #expect(failure.contains("line \(line)"), "\(failure)")
        }
    }

    /// The largest nesting is reported alike, whether it was inside a capture or not, and the
    /// inside of a record is recorded by the capture callbacks.
    @Test func maxDepthSeenCountsCapturedContainers() throws {
        let capture = try RecordCapture(queries: [JSONPathQuery("$.r[*]")], options: .init(), stopsEarly: false)
        let parser = JSONParser(options: .init(), handler: capture, deliversEvents: true)
        _ = try parser.parse(#"{"r": [{"a": [[{"b": 1}]]}, 2]}"#)
        _ = try parser.finish()
        #expect(parser.maxDepthSeen == 6)
        // Inside the first record: the key, the array, the array, the object, the key, 1, and
        // the three closing brackets before the record's own.
        #expect(parser.eventsRecordedInC == 9)
        #expect(capture.ready.count == 2)
    }
}
