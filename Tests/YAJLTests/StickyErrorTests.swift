import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// After a reader throws, it never goes on from a broken state: every later call throws the same
/// error. Feeding a push parser from its own callback is refused. Options out of range are a
/// `JSONOptionError` through every reader, as in the tool.
@Suite("Sticky errors, re-entrancy and option ranges")
struct StickyErrorTests {
    /// Valid documents broken at generated places: cut short, a byte replaced, garbage appended.
    static let brokenDocuments: [String] = {
        let bases = [
            #"{"results": [{"a": 1, "b": [true, null]}, {"a": 2, "b": "x"}, {"a": 3}]}"#,
            #"[1, 2, {"k": [3, 4, {"m": "n"}]}, "tail"]"#,
            #"{"a": {"b": {"c": [1, 2, 3]}}, "d": 1.5e3}"#,
        ]
        var random = NumberParsingTests.SplitMix(state: 0x5717C4)
        var documents: [String] = []
        for base in bases {
            let bytes = Array(base.utf8)
            for _ in 0..<12 {
                let at = 1 + Int(random.next() % UInt64(bytes.count - 2))
                switch random.next() % 3 {
                case 0: documents.append(String(decoding: bytes[..<at], as: UTF8.self))
                case 1:
                    var broken = bytes
                    broken[at] = UInt8(ascii: "#")
                    documents.append(String(decoding: broken, as: UTF8.self))
                default: documents.append(base + " ]")
                }
            }
        }
        // A byte replaced inside a string leaves valid JSON: only the invalid ones (as Foundation
        // judges them) are kept.
        return documents.filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) == nil }
    }()

    @Test(arguments: brokenDocuments)
    func theTokenReaderThrowsTheSameErrorAgain(_ document: String) throws {
        for chunkSize in [1, 7, 64 << 10] {
            var options = JSONParser.Options()
            options.chunkSize = chunkSize
            let reader = JSONTokenReader(from: .text(document), options: options)
            var first: String?
            do {
                while try reader.next() != nil {}
            } catch {
                first = "\(error)"
            }
            let error = try #require(first, "\(document) read without an error")
            for _ in 0..<3 {
                #expect(throws: (any Error).self) { _ = try reader.next() }
                do {
                    _ = try reader.next()
                } catch let again {
                    #expect("\(again)" == error, "chunk size \(chunkSize)")
                }
            }
        }
    }

    @Test(arguments: brokenDocuments)
    func thePushParserThrowsTheSameErrorAgain(_ document: String) throws {
        let bytes = Array(document.utf8)
        for chunkSize in [1, 5, 1 << 10] {
            let parser = try JSONRecordPushParser(JSONValue.self, at: "$..*")
            var first: String?
            do {
                for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                    try parser.feed(bytes[start..<min(bytes.count, start + chunkSize)]) { _ in }
                }
                try parser.finish { _ in }
            } catch {
                first = "\(error)"
            }
            let error = try #require(first, "\(document) parsed without an error")
            for call in 0..<4 {
                do {
                    if call % 2 == 0 {
                        try parser.feed(Array("[1]".utf8)) { _ in Issue.record("a record after the error") }
                    } else {
                        try parser.finish { _ in Issue.record("a record after the error") }
                    }
                    Issue.record("call \(call) after the error did not throw")
                } catch let again {
                    #expect("\(again)" == error, "chunk size \(chunkSize), call \(call)")
                }
            }
        }
    }

    @Test func anErrorFromTheCallbackIsStickyToo() throws {
        struct Stop: Error, CustomStringConvertible { var description: String { "stop here" } }
        let parser = try JSONRecordPushParser(Int.self, at: "$[*]")
        #expect(throws: Stop.self) { try parser.feed(Array("[1, 2, 3".utf8)) { _ in throw Stop() } }
        #expect(throws: Stop.self) { try parser.feed(Array(", 4]".utf8)) { _ in } }
        #expect(throws: Stop.self) { try parser.finish { _ in } }
    }

    @Test(arguments: [1, 3, 64])
    func feedingFromTheCallbackIsRefused(_ chunkSize: Int) throws {
        let bytes = Array(#"[{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}]"#.utf8)
        let parser = try JSONRecordPushParser(JSONValue.self, at: "$[*]")
        var records: [String] = []
        var refusals: [String] = []
        func onRecord(_ record: JSONRecord<JSONValue>) {
            records.append("\(record.value)")
            do {
                try parser.feed(Array(#"{"b": 9}"#.utf8)) { _ in Issue.record("a record from a re-entrant feed") }
                Issue.record("a re-entrant feed was accepted")
            } catch let error as JSONParserUsageError {
                refusals.append(error.description)
            } catch {
                Issue.record("not a usage error: \(error)")
            }
            #expect(throws: JSONParserUsageError.self) { try parser.finish { _ in } }
        }
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try parser.feed(bytes[start..<min(bytes.count, start + chunkSize)], onRecord)
        }
        try parser.finish(onRecord)
        #expect(records == [#"{"a":1}"#, #"{"a":2}"#, #"{"a":3}"#, #"{"a":4}"#])
        #expect(refusals.count == 4)
        #expect(refusals.allSatisfy { $0.contains("re-entrant") })
    }

    /// Options out of range, each with the name the error must carry.
    static let badOptions: [(name: String, set: @Sendable (inout JSONRecordOptions) -> Void)] = [
        ("JSONRecordOptions.limit", { $0.limit = -1 }),
        ("JSONRecordOptions.limit", { $0.limit = Int.min }),
        ("JSONRecordOptions.maxKeptFailures", { $0.maxKeptFailures = -3 }),
        ("JSONRecordOptions.maxBufferedBytes", { $0.maxBufferedBytes = 0 }),
        ("JSONRecordOptions.maxBufferedBytes", { $0.maxBufferedBytes = -1 }),
        ("JSONParser.Options.maxDepth", { $0.parser.maxDepth = 0 }),
        ("JSONParser.Options.chunkSize", { $0.parser.chunkSize = 0 }),
        ("JSONParser.Options.maxTokenBytes", { $0.parser.maxTokenBytes = -1 }),
        ("JSONParser.Options.maxDocumentBytes", { $0.parser.maxDocumentBytes = -1 }),
    ]

    @Test(arguments: badOptions.indices)
    func anOptionOutOfRangeIsAnOptionError(_ index: Int) async throws {
        let (name, set) = Self.badOptions[index]
        var options = JSONRecordOptions()
        set(&options)
        let text = #"[1, 2, 3]"#
        for concurrently in [false, true] {
            options.parsesConcurrently = concurrently
            let reader = #expect(throws: JSONOptionError.self) {
                try JSONRecordReader(Int.self, at: "$[*]", from: .text(text), options: options)
            }
            #expect(reader?.option == name)
            var records = JSONRecords(Int.self, at: "$[*]", from: .text(text), options: options).makeAsyncIterator()
            await #expect(throws: JSONOptionError.self) { _ = try await records.next() }
        }
        let push = #expect(throws: JSONOptionError.self) {
            try JSONRecordPushParser(Int.self, at: "$[*]", options: options)
        }
        #expect(push?.option == name)
        var ndjson = options
        ndjson.parser.allowMultipleValues = true
        #expect(throws: JSONOptionError.self) {
            try JSONRecordReader(
                Int.self,
                at: "$",
                from: .text("1\n2\n"),
                options: ndjson,
                parallel: JSONParallelOptions()
            )
        }
    }
}
