import Foundation
import Testing
import YAJL

@Suite("JSONValue and one-shot decoding")
struct JSONValueAPITests {
    @Test func literalsBuildValuesInOrder() {
        let value: JSONValue = ["name": "import", "threads": 4, "ratio": 0.5, "paths": ["$.a", nil], "dry": false]
        #expect(value.description == #"{"name":"import","threads":4,"ratio":0.5,"paths":["$.a",null],"dry":false}"#)
        #expect(value["threads"]?.int64Value == 4)
        #expect(value["ratio"]?.doubleValue == 0.5)
        #expect(value["dry"]?.boolValue == false)
        #expect(value["paths"]?.arrayValue?.count == 2)
        #expect(value["paths"]?[1]?.isNull == true)
        #expect(value.objectValue?.count == 5)
        #expect(value[path: ["paths", 0]]?.stringValue == "$.a")
        #expect(value[path: ["paths", 5]] == nil)
    }

    @Test func parsingAndSelecting() throws {
        let value = try JSONValue(parsing: #"{"a": [1, 2.5, null, {"b": 123456789012345678901234567890}]}"#)
        #expect(value[path: ["a", 1]]?.doubleValue == 2.5)
        #expect(value[path: ["a", 3, "b"]]?.numberValue?.text == "123456789012345678901234567890")
        #expect(try value.select("$..[?@ > 1]").map(\.description) == ["2.5", "123456789012345678901234567890"])
        #expect(try JSONValue(parsing: Array("[true]".utf8)) == [true])
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: #"{"a": 1} trailing"#) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "") }
    }

    struct User: Codable, Equatable {
        let id: Int
        let name: String
    }

    @Test func oneShotDecodingFromEveryKindOfInput() throws {
        let text = #"{"id": 7, "name": "Ann"}"#
        let decoder = JSONRecordDecoder()
        #expect(try decoder.decode(User.self, from: text) == User(id: 7, name: "Ann"))
        #expect(try decoder.decode(User.self, from: Data(text.utf8)) == User(id: 7, name: "Ann"))
        #expect(try decoder.decode(User.self, from: Array(text.utf8)) == User(id: 7, name: "Ann"))
        #expect(try decoder.decode([Int].self, from: "[1, 2, 3]") == [1, 2, 3])
        #expect(throws: JSONParseError.self) { try decoder.decode(User.self, from: text + " {}") }
        do {
            _ = try decoder.decode(User.self, from: #"{"id": "7", "name": "Ann"}"#)
            Issue.record("a string decoded as Int")
        } catch let error as JSONRecordDecodingError {
            #expect(error.description.contains("$.id"))
        }
        let snake = JSONRecordDecoder()
        snake.options.keyDecodingStrategy = .convertFromSnakeCase
        struct Row: Decodable, Equatable { let firstName: String }
        #expect(try snake.decode(Row.self, from: #"{"first_name": "Bo"}"#) == Row(firstName: "Bo"))
    }

    @Test func foundationRoundTripsKeepBigNumbersExact() throws {
        let text =
            #"{"big": 123456789012345678901234567890, "i": -42, "u": 18446744073709551615, "d": 1.5, "t": true, "n": null, "s": "x", "a": [0.1]}"#
        let value = try JSONValue(parsing: text)
        let object = try #require(try value.foundationObject() as? [String: Any])
        #expect(object["big"] as? Decimal == Decimal(string: "123456789012345678901234567890"))
        #expect(object["i"] as? Int == -42)
        #expect(object["u"] as? UInt64 == UInt64.max)
        #expect(object["d"] as? Double == 1.5)
        #expect(object["t"] as? Bool == true)
        #expect(object["n"] is NSNull)
        #expect((object["a"] as? [Any])?.first as? Double == 0.1)
        // Back: the same value, keys sorted.
        let back = try JSONValue(foundation: object)
        #expect(back["big"]?.numberValue?.text == "123456789012345678901234567890")
        #expect(back["u"]?.numberValue?.text == "18446744073709551615")
        #expect(back["t"] == true)
        // From JSONSerialization itself.
        let serialized = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let fromSerialization = try JSONValue(foundation: serialized)
        #expect(fromSerialization["big"]?.numberValue?.text == "123456789012345678901234567890")
        #expect(fromSerialization["t"] == true && fromSerialization["i"]?.int64Value == -42)
        // What Foundation cannot hold exactly is refused, not rounded.
        let huge = try JSONValue(parsing: "1" + String(repeating: "0", count: 60) + "1")
        #expect(throws: JSONValueConversionError.self) { try huge.foundationObject() }
        #expect(throws: JSONValueConversionError.self) { try JSONValue(foundation: Double.nan) }
        #expect(throws: JSONValueConversionError.self) { try JSONValue(foundation: Date()) }
    }
}

@Suite("Whole values inside a streamed document")
struct WriterValueTests {
    struct Meta: Encodable {
        let source: String
        let createdAt: Date
    }
    struct User: Encodable {
        let id: Int
        let firstName: String
    }

    @Test func aWrappedDocumentIsWrittenWithOneWriter() throws {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        var encoding = JSONRecordEncodingOptions()
        encoding.keyEncodingStrategy = .convertToSnakeCase
        encoding.dateEncodingStrategy = .secondsSince1970
        try writer.startObject()
        try writer.key("meta")
        try writer.encode(Meta(source: "crm", createdAt: Date(timeIntervalSince1970: 86_400.5)), options: encoding)
        try writer.key("extra")
        try writer.write(["n": .number(JSONNumber("123456789012345678901234567890")!), "list": [1, nil, "x"]])
        try writer.key("results")
        try writer.startArray()
        let records = JSONRecordWriter<User>(into: writer, encoding: encoding)
        try records.write(User(id: 1, firstName: "Ann"))
        try records.write(User(id: 2, firstName: "Bob"))
        try records.finish()  // nothing: the array belongs to the caller
        try writer.endArray()
        try writer.endObject()
        try writer.finish()
        #expect(
            String(decoding: sink.data, as: UTF8.self)
                == #"{"meta":{"source":"crm","created_at":86400.5},"extra":{"n":123456789012345678901234567890,"list":[1,null,"x"]},"results":[{"id":1,"first_name":"Ann"},{"id":2,"first_name":"Bob"}]}"#
        )
        #expect(records.count == 2)
    }

    @Test func aValueWhereAKeyIsExpectedIsRefused() throws {
        let writer = JSONWriter(to: MemoryOutputSink())
        try writer.startObject()
        #expect(throws: JSONWriterError.self) { try writer.encode(User(id: 1, firstName: "A")) }
        #expect(throws: JSONWriterError.self) { try writer.write(JSONValue.null) }
    }
}
