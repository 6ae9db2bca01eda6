import Foundation
import Testing
import YAJL

/// NDJSON that survives bad lines: exactly the good lines' records, the bad lines counted with
/// their numbers and offsets, at every read size and in both parsing modes.
@Suite("NDJSON with bad lines")
struct BadLineTests {
    struct Row: Decodable, Equatable {
        let id: Int
    }

    static let lines = [
        #"{"id": 1}"#,
        #"{"id": 2, "oops"}"#,  // 2: a syntax error
        #"{"id": 3}"#,
        #"{"id": 4, "x": [1, 2"#,  // 4: ends inside its value
        "",  // 5: blank
        #"{"id": 6, "s": "\u{1}"}"#,  // 6: a raw control character
        #"{"id": 7}"#,
        #"not json"#,  // 8
        #"{"id": 9}"#,
    ]
    static let text = lines.joined(separator: "\n") + "\n"

    static func read(_ text: String, chunkSize: Int, concurrently: Bool) throws -> ([Row], [Int], JSONRecordReport) {
        var options = JSONRecordOptions()
        options.onBadLine = .skip
        options.parser.chunkSize = chunkSize
        options.parsesConcurrently = concurrently
        let reader = try JSONRecordReader(Row.self, at: "$", from: .text(text), options: options)
        var rows: [Row] = []
        var lines: [Int] = []
        while let record = try reader.nextRecord() {
            rows.append(record.value)
            lines.append(record.line)
        }
        return (rows, lines, reader.report)
    }

    @Test(arguments: [1, 2, 5, 13, 64, 65536], [false, true])
    func goodLinesAreReadAndBadOnesCounted(chunkSize: Int, concurrently: Bool) throws {
        let (rows, lines, report) = try Self.read(Self.text, chunkSize: chunkSize, concurrently: concurrently)
        #expect(rows.map(\.id) == [1, 3, 7, 9])
        #expect(lines == [1, 3, 7, 9])
        #expect(report.badLineCount == 4)
        #expect(report.badLines.map(\.line) == [2, 4, 6, 8])
        let offsets = Self.lines.indices.map { index in Self.lines[..<index].reduce(0) { $0 + $1.utf8.count + 1 } }
        #expect(report.badLines.map(\.byteOffset) == [offsets[1], offsets[3], offsets[5], offsets[7]])
        // The errors are located in their lines.
        for bad in report.badLines {
            let error = try #require(bad.error as? JSONParseError)
            #expect(error.line == bad.line, "\(bad)")
        }
    }

    @Test func recordsInsideABadLineAreDropped() throws {
        var options = JSONRecordOptions()
        options.onBadLine = .skip
        let text = "{\"a\": [1, 2], \"b\": oops}\n{\"a\": [3]}\n{\"a\": [4, 5"
        let reader = try JSONRecordReader(Int.self, at: "$.a[*]", from: .text(text), options: options)
        var values: [Int] = []
        while let value = try reader.next() { values.append(value) }
        #expect(values == [3])  // 1 and 2 came before line 1's error, 4 from an unfinished last line
        #expect(reader.report.badLineCount == 2)
        #expect(reader.report.badLines.map(\.line) == [1, 3])
    }

    @Test func blankLinesAndAMissingLastNewlineAreFine() throws {
        for text in ["{\"id\": 1}\n\n  \n{\"id\": 2}", "{\"id\": 1}\nbad\n\n{\"id\": 2}\n\n", "\n\n", ""] {
            let (rows, _, report) = try Self.read(text, chunkSize: 3, concurrently: false)
            #expect(rows.map(\.id) == (text.contains("id") ? [1, 2] : []), "\(text.debugDescription)")
            #expect(report.badLineCount == (text.contains("bad") ? 1 : 0), "\(text.debugDescription)")
        }
    }

    @Test func stopIsTheDefault() throws {
        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        let reader = try JSONRecordReader(Row.self, at: "$", from: .text(Self.text), options: options)
        #expect(try reader.next() == Row(id: 1))
        #expect(throws: JSONParseError.self) { try reader.next() }
    }
}
