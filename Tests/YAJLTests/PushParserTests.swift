import Foundation
import Testing
import YAJL

@Suite("Records pushed out as bytes are pushed in")
struct PushParserTests {
    struct Item: Decodable, Equatable {
        let id: Int
        let tags: [String]
    }

    static let document =
        #"{"meta": {"n": 3}, "items": [{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}, {"id": 3, "tags": ["b", "ü"]}]}"#

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func anySplitGivesTheReadersRecords(piece: Int) throws {
        let expected = try JSONRecordReader(Item.self, at: "$.items[*]", from: .text(Self.document)).map()
        let parser = try JSONRecordPushParser(Item.self, at: "$.items[*]")
        var items: [Item] = []
        let bytes = Array(Self.document.utf8)
        for start in stride(from: 0, to: bytes.count, by: piece) {
            try parser.feed(bytes[start..<min(start + piece, bytes.count)]) { items.append($0.value) }
        }
        try parser.finish { items.append($0.value) }
        #expect(items == expected)
        #expect(parser.report.deliveredCount == 3)
    }

    @Test func recordsBeforeAnErrorComeFirst() throws {
        let parser = try JSONRecordPushParser(Item.self, at: "$.items[*]")
        var ids: [Int] = []
        do {
            try parser.feed(Array(#"{"items": [{"id": 1, "tags": []}, {"id": 2, "tags": []}, oops"#.utf8)) {
                ids.append($0.value.id)
            }
            Issue.record("no error")
        } catch let error as JSONParseError {
            #expect(error.line == 1)
        }
        #expect(ids == [1, 2])
        #expect(parser.isDone)
    }

    @Test func anIncompleteDocumentFailsAtTheEnd() throws {
        let parser = try JSONRecordPushParser(Item.self, at: "$.items[*]")
        var ids: [Int] = []
        try parser.feed(Array(#"{"items": [{"id": 1, "tags": []}, {"id""#.utf8)) { ids.append($0.value.id) }
        #expect(ids == [1])
        #expect(throws: JSONParseError.self) { try parser.finish { _ in } }
    }

    @Test func itIsDoneOnceNothingMoreCanMatch() throws {
        let parser = try JSONRecordPushParser(Int.self, at: "$.a[*]")
        var values: [Int] = []
        try parser.feed(Array(#"{"a": [1, 2], "b": "#.utf8)) { values.append($0.value) }
        #expect(values == [1, 2])
        #expect(parser.isDone)
        try parser.feed(Array("not even JSON".utf8)) { values.append($0.value) }  // ignored
        try parser.finish { values.append($0.value) }
        #expect(values == [1, 2])
    }
}

extension JSONRecordReader {
    /// Every remaining record.
    func map() throws -> [Record] {
        var records: [Record] = []
        while let record = try next() { records.append(record) }
        return records
    }
}
