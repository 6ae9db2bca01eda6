import Foundation
import Testing
import YAJL

@Suite("JSONPath selection")
struct JSONPathTests {
    static let document = #"""
        {"meta": {"count": 2, "a.b": "dotted", "it's": "quoted", "": "empty", "ключ": "unicode"},
         "results": [
           {"id": 1, "name": "Ann", "tags": ["x", "y"], "geo": [[1, 2], [3, 4]], "sub": {"name": "inner"}},
           {"id": 2, "name": "Bob", "tags": [], "geo": [[5, 6]]}
         ],
         "name": "top"}
        """#

    /// Selects with one path; returns the selected values, minified, in document order.
    static func select(
        _ path: String,
        in document: String = document,
        options: JSONRecordOptions = .init()
    ) throws -> [String] {
        let reader = try JSONRecordReader(JSONValue.self, at: path, from: .text(document), options: options)
        var values: [String] = []
        while let value = try reader.next() { values.append(value.description) }
        return values
    }

    @Test(arguments: [
        ("$", nil as String?),
        ("$.meta.count", "2"),
        ("$.meta['a.b']", #""dotted""#),
        (#"$.meta['it\'s']"#, #""quoted""#),
        (#"$.meta["it's"]"#, #""quoted""#),
        ("$.meta['']", #""empty""#),
        ("$.meta.ключ", #""unicode""#),
        ("$.meta['\\u043a\\u043b\\u044e\\u0447']", #""unicode""#),
        ("$.results[1].name", #""Bob""#),
        ("$.results[*].id", "1|2"),
        ("$.results.*.id", "1|2"),
        ("$.results[0].tags[*]", #""x"|"y""#),
        ("$.results[*].geo[*][1]", "2|4|6"),
        ("$.results[0].geo[1]", "[3,4]"),
        ("$..name", #""Ann"|"inner"|"Bob"|"top""#),
        ("$..['name']", #""Ann"|"inner"|"Bob"|"top""#),
        ("$.results..name", #""Ann"|"inner"|"Bob""#),
        ("$..geo[0][0]", "1|5"),
        // Matches nested in selected values are selected too: [3,4] and its 4, Bob and his 6.
        ("$..[1]", #""y"|2|[3,4]|4|{"id":2,"name":"Bob","tags":[],"geo":[[5,6]]}|6"#),
        ("$.results[-1].name", #""Bob""#),
        ("$.results[?@.id > 1].name", #""Bob""#),
        ("$.results[?@.tags[1] == 'y'].id", "1"),
        ("$.results[0].geo[::-1][0]", "1|3"),  // document order; the RFC order is 3, 1
        ("$.results[0].tags[0,0,1]", #""x"|"x"|"y""#),
        ("$..sub..name", #""inner""#),
        ("$.results[5]", ""),
        ("$.nothing", ""),
        ("$.meta.*", #"2|"dotted"|"quoted"|"empty"|"unicode""#),
    ])
    func selection(path: String, expected: String?) throws {
        let values = try Self.select(path)
        if let expected {
            #expect(values.joined(separator: "|") == expected, "\(path)")
        } else {
            #expect(values.count == 1)  // the whole document
        }
    }

    @Test func severalPathsInOnePassReportWhichMatched() throws {
        let reader = try JSONRecordReader(
            JSONValue.self,
            at: ["$.results[*].name", "$.meta.count"],
            from: .text(Self.document)
        )
        var seen: [String] = []
        while let record = try reader.nextRecord() {
            seen.append("\(record.queryIndex):\(record.path):\(record.value)")
        }
        #expect(seen == [#"1:$.meta.count:2"#, #"0:$.results[0].name:"Ann""#, #"0:$.results[1].name:"Bob""#])
    }

    /// A value selected by several queries is handed out once per query, in query order, each time
    /// whole and with its own query index (the last query's copy is the record moved, the others
    /// copies of it), on one thread and two.
    @Test(arguments: [false, true])
    func aValueSelectedBySeveralQueriesComesOncePerQuery(concurrently: Bool) throws {
        var options = JSONRecordOptions()
        options.parsesConcurrently = concurrently
        let items = (0..<500).map { #"{"id":\#($0),"tags":["t\#($0)"]}"# }
        let document = #"{"results":["# + items.joined(separator: ",") + "]}"
        let querySets = [
            ["$.results[*]", "$.results[*]"],
            ["$.results[*]", "$.nothing", "$.results[*]", "$.results[*]"],
        ]
        for queries in querySets {
            let reader = try JSONRecordReader(JSONValue.self, at: queries, from: .text(document), options: options)
            var seen: [String] = []
            while let record = try reader.nextRecord() {
                seen.append("\(record.queryIndex) \(record.path) \(record.value)")
            }
            let selecting = queries.indices.filter { queries[$0] == "$.results[*]" }
            let expected = (0..<500).flatMap { n in
                selecting.map { #"\#($0) $.results[\#(n)] {"id":\#(n),"tags":["t\#(n)"]}"# }
            }
            #expect(seen.count == expected.count, "\(queries)")
            let differing = zip(seen, expected).first { $0 != $1 }
            #expect(differing == nil, "\(queries): first difference \(String(describing: differing))")
        }
    }

    @Test func ownedValuesKeepOrderDuplicatesAndNumberText() throws {
        let values = try Self.select(
            "$[0]",
            in: #"[{"b": 1, "a": 2, "b": 3, "n": [-0, 1E+2, 1.7976931348623157e308, 123456789012345678901234567890]}]"#
        )
        #expect(values == [#"{"b":1,"a":2,"b":3,"n":[-0,1E+2,1.7976931348623157e308,123456789012345678901234567890]}"#])
        let reader = try JSONRecordReader(JSONValue.self, at: "$[0]", from: .text(#"[{"b": 1, "a": 2, "b": 3}]"#))
        let object = try #require(try reader.next())
        #expect(object["b"] == .number(JSONNumber("1")!))
        guard case .object(let members) = object else { return }
        #expect(members.values(forKey: "b").count == 2)
    }

    @Test(arguments: [
        ("results", 0, "a JSONPath starts with '$'"),
        ("$.results[", 9, "unclosed '['"),
        ("$.results[x]", 10, "expected a selector"),
        ("$.results[*", 11, "expected ',' or ']'"),
        ("$.a.", 4, "expected a name or '*'"),
        ("$.a b", 4, "expected '.', '..' or '[', found 'b'"),
        ("$.a ", 3, "white space at the end"),
        ("$['unterminated", 15, "unterminated string"),
        ("$['bad\\q']", 6, "invalid escape"),
        ("$.a[01]", 4, "leading zeros"),
    ])
    func invalidExpressionsPointAtTheOffendingCharacter(expression: String, position: Int, message: String) {
        do {
            _ = try JSONPathQuery(expression)
            Issue.record("\(expression) was accepted")
        } catch {
            // Typed throws: the error is a JSONPathSyntaxError, nothing else.
            #expect(error.position == position, "\(expression): \(error)")
            #expect(error.message.contains(message), "\(expression): \(error.message)")
            #expect(error.description.hasSuffix("\n    " + String(repeating: " ", count: position) + "^"))
        }
    }

    @Test func deeplyNestedExpressionsAreRefused() {
        let deep = "$" + String(repeating: ".a", count: 10_000)
        #expect(throws: JSONPathSyntaxError.self) { try JSONPathQuery(deep) }
    }

    @Test func extractionIsChunkSizeInvariant() throws {
        let expected = try Self.select("$..name")
        for chunk in [1, 2, 3, 7, 31, 4096, 65536] {
            var options = JSONRecordOptions()
            options.parser.chunkSize = chunk
            #expect(try Self.select("$..name", options: options) == expected, "chunk size \(chunk)")
            #expect(try Self.select("$.results[*]", options: options).count == 2)
        }
    }

    @Test func ndjsonValuesAreRootsWithIndexAndLine() throws {
        let ndjson =
            "{\"id\": 1, \"v\": {\"x\": 1}}\n{\"id\": 2, \"v\": {\"x\": 2}}\n\n{\"id\": 3, \"v\": {\"x\": 3}}\n"
        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        let reader = try JSONRecordReader(JSONValue.self, at: "$.v.x", from: .text(ndjson), options: options)
        var seen: [String] = []
        while let record = try reader.nextRecord() {
            seen.append("\(record.topLevelIndex)@\(record.line)=\(record.value)")
        }
        #expect(seen == ["0@1=1", "1@2=2", "2@4=3"])
    }

    /// The paths records report (elements of one array share their parent's path; see
    /// `SelectedValue`): sibling arrays at one depth, nested arrays, members, filters, several
    /// queries, NDJSON lines, in both parsing modes.
    @Test(arguments: [
        (#"{"a": [1, 2], "b": [3, [4]], "c": {"d": [5]}}"#, ["$.*[*]"], "$.a[0] $.a[1] $.b[0] $.b[1] $.c.d"),
        (#"[[1, 2], [3], [], [[4], 5]]"#, ["$[*][*]"], "$[0][0] $[0][1] $[1][0] $[3][0] $[3][1]"),
        (#"[[1, 2], [3]]"#, ["$..*"], "$[0] $[0][0] $[0][1] $[1] $[1][0]"),
        (#"{"a": [1, 2, 3, 4]}"#, ["$.a[?@ > 2]"], "$.a[2] $.a[3]"),
        (#"{"a": [1, 2, 3, 4]}"#, ["$.a[1:3]", "$.a[0]"], "$.a[0] $.a[1] $.a[2]"),
        (#"{"a": {"x": [7, 8], "y": 9}}"#, ["$.a.*"], "$.a.x $.a.y"),
        (#"{"a": [{"b": [1]}, {"b": [2, 3]}]}"#, ["$.a[*].b[*]"], "$.a[0].b[0] $.a[1].b[0] $.a[1].b[1]"),
        ("[1, 2]\n[3]\n{\"k\": [4]}\n", ["$[*]", "$.k[*]"], "$[0] $[1] $[0] $.k $.k[0]"),
    ])
    func recordPaths(document: String, queries: [String], expected: String) throws {
        for concurrent in [false, true] {
            var options = JSONRecordOptions()
            options.parsesConcurrently = concurrent
            options.parser.allowMultipleValues = document.contains("\n")
            let reader = try JSONRecordReader(JSONValue.self, at: queries, from: .text(document), options: options)
            var paths: [String] = []
            while let record = try reader.nextRecord() { paths.append(record.path.description) }
            #expect(paths.joined(separator: " ") == expected, "\(queries), concurrent: \(concurrent)")
        }
    }

    /// A record that fails to decode names its own path, not its array's or a neighbour's.
    @Test func decodingFailureNamesTheRecordsPath() throws {
        struct Item: Decodable { let id: Int }
        var options = JSONRecordOptions()
        options.onDecodingFailure = .skip
        let reader = try JSONRecordReader(
            Item.self,
            at: "$.items[*]",
            from: .text(#"{"items": [{"id": 1}, {"id": 2}, {"id": "three"}, {"id": 4}]}"#),
            options: options
        )
        var ids: [Int] = []
        while let item = try reader.next() { ids.append(item.id) }
        #expect(ids == [1, 2, 4])
        let failure = try #require(reader.report.failures.first)
        #expect(failure.recordPath.description == "$.items[2]")
        #expect(failure.path.description == "$.items[2].id")
    }
}
