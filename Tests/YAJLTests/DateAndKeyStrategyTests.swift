import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// `.iso8601` dates and the snake_case key strategies, compared value by value with Foundation.
@Suite("Dates and key strategies")
struct DateAndKeyStrategyTests {
    /// Random instants from year 1583 (Foundation's calendar is Julian before) to 9999, as text.
    static func randomInstants(_ count: Int, from lowest: Int = -12_212_553_600) -> [(seconds: Int, text: String)] {
        var generator = SystemRandomNumberGenerator()
        let formatter = ISO8601DateFormatter()
        return (0..<count).map { _ in
            let seconds = Int.random(in: lowest...253_402_300_799, using: &generator)
            return (seconds, formatter.string(from: Date(timeIntervalSince1970: Double(seconds))))
        }
    }

    static func fast(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { RFC3339.fastDate(from: UnsafeRawBufferPointer($0)) }
    }

    @Test func theFastPathAgreesWithFoundationOnRandomInstants() throws {
        let plain = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for (seconds, text) in Self.randomInstants(2000) {
            let date = try #require(Self.fast(text), "\(text)")
            #expect(date == Date(timeIntervalSince1970: Double(seconds)), "\(text)")
            #expect(date == (try plain.parse(text)), "\(text)")
            #expect(RFC3339.string(from: date) == text)
            // A fraction and an offset: the same instant as Foundation reads it.
            let millis = Int.random(in: 0..<1000)
            let withFraction = text.dropLast() + String(format: ".%03d+05:30", millis)
            let expected = try fractional.parse(String(withFraction))
            let parsed = try #require(Self.fast(String(withFraction)), "\(withFraction)")
            // Foundation reads a fraction through its calendar: the same instant within one unit
            // in the last place of the stored interval (JSONDecoder refuses fractions at all).
            let ulp = expected.timeIntervalSinceReferenceDate.ulp
            #expect(abs(parsed.timeIntervalSince(expected)) <= ulp, "\(withFraction): \(parsed) vs \(expected)")
        }
    }

    /// Before 1583 both directions go through Foundation (its Julian dates), and agree with it.
    @Test func datesBeforeTheGregorianReformAreFoundations() throws {
        for (seconds, text) in Self.randomInstants(200, from: -62_135_596_800) {
            var utf8 = text
            let date = try #require(utf8.withUTF8 { RFC3339.date(from: UnsafeRawBufferPointer($0)) }, "\(text)")
            #expect(date == Date(timeIntervalSince1970: Double(seconds)), "\(text)")
            #expect(RFC3339.string(from: date) == text)
        }
    }

    @Test func writtenDatesMatchISO8601DateFormatter() {
        let formatter = ISO8601DateFormatter()
        for interval in [
            0, -0.5, 0.999, -1, -86_400.25, 1e9 + 0.5, -62_135_596_800, -12_212_553_600.5, 253_402_300_799.9,
        ] {
            let date = Date(timeIntervalSince1970: interval)
            #expect(RFC3339.string(from: date) == formatter.string(from: date), "\(interval)")
        }
    }

    @Test(arguments: [
        "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T00:60:00Z", "2024-01-01T00:00:00", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00+0100",
        "2024-01-01T00:00:00.Z", "20240101T000000Z", "2024-01-01T00:00:00Zjunk", "",
    ])
    func textOutsideTheProfileIsLeftToFoundation(text: String) {
        #expect(Self.fast(text) == nil, "\(text)")
        // The whole parse accepts exactly what Foundation accepts.
        let foundation =
            (try? Date.ISO8601FormatStyle().parse(text))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
        var text = text
        let ours = text.withUTF8 { RFC3339.date(from: UnsafeRawBufferPointer($0)) }
        #expect(ours == foundation, "\(text)")
    }

    struct Event: Codable, Equatable {
        let eventId: Int
        let userName: String
        let createdAt: Date
        let updatedAt: Date
        let isActive: Bool
    }

    @Test func datesAndSnakeCaseKeysDecodeAsJSONDecoderDoes() throws {
        let events = Self.randomInstants(300).enumerated().map { index, instant in
            #"{"event_id":\#(index),"user_name":"u\#(index)","created_at":"\#(instant.text)","updated_at":"\#(instant.text)","is_active":true}"#
        }
        let document = "[" + events.joined(separator: ",") + "]"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try decoder.decode([Event].self, from: Data(document.utf8))
        var options = JSONRecordOptions()
        options.decoding.dateDecodingStrategy = .iso8601
        options.decoding.keyDecodingStrategy = .convertFromSnakeCase
        let reader = try JSONRecordReader(Event.self, at: "$[*]", from: .text(document), options: options)
        var decoded: [Event] = []
        while let event = try reader.next() { decoded.append(event) }
        #expect(decoded == expected)
        // And back: the same text as JSONEncoder writes.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var ours: [UInt8] = []
        var encoding = JSONRecordEncodingOptions()
        encoding.dateEncodingStrategy = .iso8601
        encoding.keyEncodingStrategy = .convertToSnakeCase
        let writer = JSONRecordWriter<Event>(to: .closure { ours += $0 }, encoding: encoding)
        for event in expected.prefix(20) { try writer.write(event) }
        try writer.finish()
        let theirs = try encoder.encode(Array(expected.prefix(20)))
        // The same members and texts (JSONEncoder's member order is not the declaration order).
        let ourObjects = try JSONSerialization.jsonObject(with: Data(ours)) as? [NSDictionary]
        let theirObjects = try JSONSerialization.jsonObject(with: theirs) as? [NSDictionary]
        #expect(ourObjects != nil && ourObjects == theirObjects)
    }

    @Test(arguments: ["a_b", "_a_b_", "a__b", "a_b_c_d", "__x", "x__", "plain", "URL_value", "a_1b", "ü_ber", "A_B"])
    func snakeCaseKeysMatchJSONDecoder(jsonKey: String) throws {
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Keys: Decodable {
            let keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            }
        }
        let document = #"{"\#(jsonKey)":1}"#
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try decoder.decode(Keys.self, from: Data(document.utf8)).keys
        var options = JSONRecordOptions()
        options.decoding.keyDecodingStrategy = .convertFromSnakeCase
        #expect(
            try JSONRecordReader(Keys.self, at: "$", from: .text(document), options: options).next()?.keys == expected
        )
        // Looking the converted key up finds the member (through the byte cache).
        struct One: Decodable {
            let value: Int
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                value = try container.decode(Int.self, forKey: AnyKey(stringValue: container.allKeys[0].stringValue))
            }
        }
        #expect(try JSONRecordReader(One.self, at: "$", from: .text(document), options: options).next()?.value == 1)
    }

    @Test func theKeyCacheIsBoundedAndStaysCorrectPastItsLimit() {
        let cache = SnakeCaseKeyCache()
        for index in 0..<(SnakeCaseKeyCache.maxEntries + 500) {
            var key = "key_\(index)_x"
            let matched = key.withUTF8 { cache.matches(UnsafeRawBufferPointer($0), "key\(index)X") }
            #expect(matched, "\(key)")
        }
        var key = "key_1_x"
        #expect(key.withUTF8 { cache.matches(UnsafeRawBufferPointer($0), "key1X") })
        #expect(!key.withUTF8 { cache.matches(UnsafeRawBufferPointer($0), "key_1_x") })
    }
}

/// `JSONRecordDecodingError` names where the failing value starts, at every read size.
@Suite("Decoding error locations")
struct DecodingErrorLocationTests {
    struct Row: Decodable {
        let id: Int
        let name: String
        let tags: [String]
        let nested: Nested?
        struct Nested: Decodable { let flag: Bool }
    }

    /// Documents with one failing value, marked `⟨` just before it (the marker is removed).
    static let cases: [(document: String, path: String)] = [
        (#"{"rows":[{"id":1,"name":"a","tags":[]},{"id":⟨"two","name":"b","tags":[]}]}"#, "$.rows[1].id"),
        (
            "{\"rows\":[\n  {\"id\":1,\"name\":\"a\",\"tags\":[]},\n  {\"id\":2,\n   \"name\":⟨17,\"tags\":[]}]}",
            "$.rows[1].name"
        ),
        (#"{"rows":[{"id":⟨"esc\"aped\\ \u00e9 \"","name":"a","tags":[]}]}"#, "$.rows[0].id"),
        (#"{"rows":[{"id":1,"name":"a","tags":["x",⟨null,"y"]}]}"#, "$.rows[0].tags[1]"),
        (#"{"rows":[{"id":1,"name":"a","tags":["x"],"nested":{"flag":⟨"yes"}}]}"#, "$.rows[0].nested.flag"),
        (#"{"rows":[{"id":1,"name":"a","tags":⟨{"not":"an array"}}]}"#, "$.rows[0].tags"),
        (#"{"rows":[⟨{"id":1,"tags":[]}]}"#, "$.rows[0]"),  // missing key: its object
        (#"{"rows":[{"id":⟨1.5,"name":"a","tags":[]}]}"#, "$.rows[0].id"),
        (#"{"rows":[{"id":1,"name":⟨true,"tags":[]}]}"#, "$.rows[0].name"),
        (
            "{\"rows\":[{\"id\":⟨\"" + String(repeating: "long \\\" string ", count: 40)
                + "\",\"name\":\"a\",\"tags\":[]}]}", "$.rows[0].id"
        ),
    ]

    @Test(arguments: cases.indices)
    func theFailingValueIsLocatedAtEveryReadSize(index: Int) throws {
        let (marked, path) = Self.cases[index]
        let markerRange = try #require(marked.range(of: "⟨"))
        let offset = marked.utf8.distance(from: marked.startIndex, to: markerRange.lowerBound)
        let document = marked.replacingOccurrences(of: "⟨", with: "")
        let before = Array(document.utf8.prefix(offset))
        let line = before.filter { $0 == 0x0A }.count + 1
        let column = offset - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        for size in [1, 2, 3, 7, 64, 1 << 16] {
            for concurrently in [false, true] {
                var options = JSONRecordOptions()
                options.parser.chunkSize = size
                options.parsesConcurrently = concurrently
                let reader = try JSONRecordReader(Row.self, at: "$.rows[*]", from: .text(document), options: options)
                do {
                    while try reader.next() != nil {}
                    Issue.record("no error for case \(index)")
                } catch let error as JSONRecordDecodingError {
                    #expect(error.path.description == path, "case \(index), size \(size): \(error)")
                    #expect(error.byteOffset == offset, "case \(index), size \(size): \(error)")
                    #expect(error.line == line && error.column == column, "case \(index), size \(size): \(error)")
                    #expect(error.description.hasSuffix("at line \(line), column \(column) (byte \(offset))"))
                }
            }
        }
    }

    @Test func skippedFailuresAreLocatedInNDJSON() throws {
        let document =
            "{\"id\":1,\"name\":\"a\",\"tags\":[]}\n{\"id\":2,\"name\":\"b\",\"tags\":[3]}\n{\"id\":\"x\",\"name\":\"c\",\"tags\":[]}\n"
        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        options.onDecodingFailure = .skip
        let reader = try JSONRecordReader(Row.self, at: "$", from: .text(document), options: options)
        var ids: [Int] = []
        while let row = try reader.next() { ids.append(row.id) }
        #expect(ids == [1])
        let failures = reader.report.failures
        #expect(failures.map(\.line) == [2, 3] && failures.map(\.column) == [28, 7])
        #expect(failures.map(\.recordLine) == [2, 3])
    }
}
