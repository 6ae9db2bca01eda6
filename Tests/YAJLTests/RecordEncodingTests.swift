import Foundation
import Testing
import YAJL

@testable import YAJLCore

@Suite("Encodable records")
struct RecordEncodingTests {
    struct Person: Codable, Equatable {
        struct Address: Codable, Equatable {
            let city: String
            let geo: [Double]
        }
        let id: Int
        let firstName: String
        let nickName: String?
        let homeAddress: Address
        let tags: [String]
        let joined: Date
    }

    static let people = [
        Person(
            id: 1,
            firstName: "Ann",
            nickName: nil,
            homeAddress: .init(city: "Lima", geo: [-12.04, -77.03]),
            tags: ["a", "b"],
            joined: Date(timeIntervalSince1970: 1_795_946_400)
        ),
        Person(
            id: 2,
            firstName: "Bob \"B\"",
            nickName: "bobby",
            homeAddress: .init(city: "東京", geo: []),
            tags: [],
            joined: Date(timeIntervalSince1970: 0)
        ),
    ]

    static var snakeISO: JSONRecordEncodingOptions {
        JSONRecordEncodingOptions(keyEncodingStrategy: .convertToSnakeCase, dateEncodingStrategy: .iso8601)
    }

    @Test func arrayLayout() throws {
        let sink = MemoryOutputSink()
        let output = JSONRecordWriter<Person>(to: sink, encoding: Self.snakeISO)
        try output.write(contentsOf: Self.people)
        try output.finish()
        #expect(
            sink.string
                == #"[{"id":1,"first_name":"Ann","home_address":{"city":"Lima","geo":[-12.04,-77.03]},"tags":["a","b"],"joined":"2026-11-29T10:00:00Z"},{"id":2,"first_name":"Bob \"B\"","nick_name":"bobby","home_address":{"city":"東京","geo":[]},"tags":[],"joined":"1970-01-01T00:00:00Z"}]"#
        )
    }

    @Test func ndjsonLayoutAndRoundTripThroughTheReader() throws {
        let sink = MemoryOutputSink()
        let output = JSONRecordWriter<Person>(to: sink, layout: .ndjson, encoding: Self.snakeISO)
        try output.write(contentsOf: Self.people)
        try output.finish()
        // Two lines and a final newline.
        #expect(sink.string.split(separator: "\n", omittingEmptySubsequences: false).count == 3)
        #expect(sink.string.hasSuffix("}\n"))

        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        options.decoding = JSONRecordDecodingOptions(
            keyDecodingStrategy: .convertFromSnakeCase,
            dateDecodingStrategy: .iso8601
        )
        let reader = try JSONRecordReader(Person.self, at: "$", from: .bytes(sink.data), options: options)
        var decoded: [Person] = []
        try reader.forEach { decoded.append($0) }
        #expect(decoded == Self.people)
    }

    @Test func emptyArrayAndNumbersStayExact() throws {
        let sink = MemoryOutputSink()
        let output = JSONRecordWriter<JSONValue>(to: sink)
        try output.finish()
        #expect(sink.string == "[]")

        let exact = MemoryOutputSink()
        let values = JSONRecordWriter<JSONValue>(to: exact)
        let record = try #require(
            try JSONRecordReader(
                JSONValue.self,
                at: "$[*]",
                from: .text("[[1E+2, -0, 123456789012345678901234567890]]")
            ).next()
        )
        try values.write(record)
        try values.finish()
        #expect(exact.string == "[[1E+2,-0,123456789012345678901234567890]]")
    }

    @Test func secondsStrategyAndBeautifiedArray() throws {
        struct Event: Encodable { let at: Date }
        let sink = MemoryOutputSink()
        let output = JSONRecordWriter<Event>(
            to: sink,
            writerOptions: .init(beautify: true, indent: " "),
            encoding: .init(dateEncodingStrategy: .secondsSince1970)
        )
        try output.write(Event(at: Date(timeIntervalSince1970: 1.5)))
        try output.finish()
        #expect(sink.string == "[\n {\n  \"at\": 1.5\n }\n]\n")
    }

    /// Compared with Foundation's own `JSONEncoder` at run time, quirks included.
    @Test(arguments: [
        "myURLProperty", "firstName", "id", "HTTPStatus", "a1B", "already_snake", "x",
        // Beyond ASCII: upper, title and lower case letters, and letters with no case.
        "ÉtéDeLaVille", "straßeNameÜber", "ǅemalǈjubav", "naïveŒuvreÀBC", "αΒγΔ", "東京TowerЖук",
        "emoji😀KeyÉ", "ⅫRomanNumeral", "ÀÉÎõü", "e\u{301}Accent",
    ])
    func snakeCaseMatchesJSONEncoder(key: String) throws {
        struct One: Encodable {
            let key: String
            struct Key: CodingKey {
                let stringValue: String
                init(stringValue: String) { self.stringValue = stringValue }
                var intValue: Int? { nil }
                init?(intValue: Int) { nil }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key(stringValue: key))
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let object = try JSONSerialization.jsonObject(with: encoder.encode(One(key: key))) as? [String: Any]
        let foundation = try #require(object?.keys.first)
        #expect(KeyCaseConversion.snakeCase(key) == foundation)
    }

    @Test func encodingMatchesJSONEncoderSemantically() throws {
        let sink = MemoryOutputSink()
        let output = JSONRecordWriter<Person>(to: sink)
        try output.write(contentsOf: Self.people)
        try output.finish()
        let ours = try JSONSerialization.jsonObject(with: sink.data) as? NSArray
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.people)) as? NSArray
        #expect(ours == foundation)
    }
}
