import Foundation
import Testing
import YAJL

@Suite("Pull cursor")
struct TokenReaderTests {
    static let document = """
        {"meta": {"version": 2, "debug": {"huge": [1, 2, [3, 4]]}},
         "rows": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}],
         "tail": true}
        """

    struct Row: Decodable, Equatable {
        let id: Int
        let name: String
    }

    @Test(arguments: [1, 3, 16, 65536])
    func aHandWrittenReaderOfAnIrregularDocument(chunkSize: Int) throws {
        var options = JSONParser.Options()
        options.chunkSize = chunkSize
        let reader = JSONTokenReader(from: .text(Self.document), options: options)
        var version: Int64?
        var rows: [Row] = []
        var tail: Bool?
        var skippedAt: String?
        while let token = try reader.next() {
            guard case .key(let key) = token else { continue }
            switch key {
            case "version":
                if case .number(let number)? = try reader.next() { version = number.int64Value }
            case "debug":
                _ = try reader.next()
                try reader.skipValue()
                skippedAt = "\(reader.path) line \(reader.line)"
            case "rows":
                #expect(try reader.next() == .startArray)
                while try reader.next() == .startObject { rows.append(try reader.decode(Row.self)) }
                #expect(reader.path.description == "$.rows")
            case "tail":
                _ = try reader.next()
                tail = try reader.value().boolValue
            default: break
            }
        }
        #expect(version == 2)
        #expect(rows == [Row(id: 1, name: "Ann"), Row(id: 2, name: "Bob")])
        #expect(tail == true)
        #expect(skippedAt == "$.meta.debug line 1")
    }

    @Test func tokensCarryTheirPathsAndPositions() throws {
        let reader = JSONTokenReader(from: .text("[1,\n {\"a\": [true]}]"))
        var seen: [String] = []
        while let token = try reader.next() {
            seen.append("\(token) \(reader.path) d\(reader.depth) \(reader.line):\(reader.column)")
        }
        #expect(
            seen == [
                "startArray $ d0 1:1", "number(1) $[0] d1 1:2", "startObject $[1] d1 2:2", "key(\"a\") $[1].a d2 2:3",
                "startArray $[1].a d2 2:8", "bool(true) $[1].a[0] d3 2:9", "endArray $[1].a d2 2:13",
                "endObject $[1] d1 2:14", "endArray $ d0 2:15",
            ]
        )
    }

    @Test func valuesAndErrorsAtTheCursor() throws {
        let reader = JSONTokenReader(from: .text(#"{"a": [1, {"b": null}], "c": {"id": "x", "name": "N"}}"#))
        #expect(throws: JSONReaderUsageError.self) { try reader.value() }  // no token yet
        _ = try reader.next()  // {
        _ = try reader.next()  // "a"
        #expect(throws: JSONReaderUsageError.self) { try reader.value() }  // a key starts no value
        _ = try reader.next()  // [
        #expect(try reader.value().description == #"[1,{"b":null}]"#)
        #expect(try reader.next() == .key("c"))
        _ = try reader.next()
        do {
            _ = try reader.decode(Row.self)
            Issue.record("a string decoded as Int")
        } catch let error as JSONRecordDecodingError {
            #expect(error.description.contains("$.c.id"), "\(error)")
            #expect(error.line == 1)
        }
    }

    @Test func aParseErrorComesAfterTheTokensBeforeIt() throws {
        let reader = JSONTokenReader(from: .text("[1, 2, oops]"))
        var tokens = 0
        #expect(throws: JSONParseError.self) {
            while try reader.next() != nil { tokens += 1 }
        }
        #expect(tokens == 3)
    }
}
