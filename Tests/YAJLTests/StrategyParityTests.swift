import Foundation
import Testing
import YAJL

/// Each JSONDecoder/JSONEncoder strategy against Foundation's own, value by value.
@Suite("JSONDecoder and JSONEncoder parity")
struct StrategyParityTests {
    struct Event: Codable, Equatable {
        let at: Date
        let blob: Data
        let ratio: Double
        let small: Float
    }

    static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }

    static let event = Event(
        at: Date(timeIntervalSince1970: 1_700_000_000),
        blob: Data([0, 1, 254, 255]),
        ratio: .infinity,
        small: -.infinity
    )

    /// Encodes with both encoders, compares the JSON as values, decodes with both decoders.
    func roundTrip(
        _ foundationEncoder: JSONEncoder,
        _ foundationDecoder: JSONDecoder,
        _ encoding: JSONRecordEncodingOptions,
        _ decoding: JSONRecordDecodingOptions
    ) throws {
        let theirs = try foundationEncoder.encode(Self.event)
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Event>(to: sink, layout: .ndjson, encoding: encoding)
        try writer.write(Self.event)
        try writer.finish()
        let ours = Data(sink.data.dropLast())  // the NDJSON line's newline
        // The same JSON (as parsed trees: numbers and key order may be spelled differently).
        let theirTree = try JSONSerialization.jsonObject(with: theirs) as! NSDictionary
        let ourTree = try JSONSerialization.jsonObject(with: ours) as! NSDictionary
        #expect(
            theirTree == ourTree,
            "ours \(String(decoding: ours, as: UTF8.self)) theirs \(String(decoding: theirs, as: UTF8.self))"
        )
        // Each decoder reads the other's output back to the same value.
        #expect(try foundationDecoder.decode(Event.self, from: ours) == Self.event)
        #expect(try JSONRecordDecoder(options: decoding).decode(Event.self, from: theirs) == Self.event)
    }

    @Test func formattedDatesBase64DataAndFloatStrings() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .formatted(Self.formatter())
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(Self.formatter())
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        var encoding = JSONRecordEncodingOptions()
        encoding.dateEncodingStrategy = .formatted(Self.formatter())
        encoding.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        var decoding = JSONRecordDecodingOptions()
        decoding.dateDecodingStrategy = .formatted(Self.formatter())
        decoding.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        try roundTrip(encoder, decoder, encoding, decoding)
    }

    /// `.formatted` is a static function of `YAJL` (over `.parsed`, so `YAJLCore` needs no
    /// `DateFormatter`); text the formatter refuses is an error naming the format, as before.
    @Test func formattedDatesThatDoNotMatchNameTheFormat() throws {
        struct Stamp: Decodable { let at: Date }
        var decoding = JSONRecordDecodingOptions()
        decoding.dateDecodingStrategy = .formatted(Self.formatter())
        let decoder = JSONRecordDecoder(options: decoding)
        let stamp = try decoder.decode(Stamp.self, from: "{\"at\": \"2026-12-01 10:20:30\"}")
        #expect(stamp.at == Date(timeIntervalSince1970: 1_796_120_430))
        let error = try #require(throws: (any Error).self) {
            try decoder.decode(Stamp.self, from: "{\"at\": \"2026-12-01T10:20:30Z\"}")
        }
        #expect(
            "\(error)".contains("Date string '2026-12-01T10:20:30Z' does not match the format yyyy-MM-dd HH:mm:ss"),
            "\(error)"
        )
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .formatted(Self.formatter())
        #expect(throws: DecodingError.self) {
            try foundation.decode(Stamp.self, from: Data("{\"at\": \"2026-12-01T10:20:30Z\"}".utf8))
        }
    }

    /// The strategy's strings are read wherever a `Double` or `Float` is: a member, an optional
    /// member, an array of doubles (decoded directly), an unkeyed container and a single value;
    /// an unknown string is still a type mismatch. Compared with `JSONDecoder` value by value.
    @Test(arguments: [
        #"{"one": "+Inf", "maybe": "NaN", "values": ["-Inf", 1.5, "NaN", "+Inf"], "floats": ["NaN", 2.5], "pair": ["-Inf", 3], "single": "-Inf"}"#,
        #"{"one": -0, "maybe": null, "values": [], "floats": ["+Inf"], "pair": [1e308, "+Inf"], "single": 2}"#,
        #"{"one": "inf", "maybe": 1, "values": [1], "floats": [1], "pair": [1, 2], "single": 3}"#,
        #"{"one": 1, "maybe": "-Inf", "values": ["Infinity"], "floats": [1], "pair": [1, 2], "single": 4}"#,
        #"{"one": 1, "maybe": 2, "values": [], "floats": [], "pair": [1, 2], "single": "nan"}"#,
    ])
    func floatStringsWhereverNumbersAreRead(json: String) throws {
        struct Pair: Decodable {
            let first: Double
            let second: Float
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                first = try container.decode(Double.self)
                second = try container.decode(Float.self)
            }
        }
        struct Single: Decodable {
            let value: Double
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
        }
        struct Numbers: Decodable {
            let one: Double
            let maybe: Double?
            let values: [Double]
            let floats: [Float]
            let pair: Pair
            let single: Single
        }
        /// NaN compares unequal to itself: compare the bit patterns.
        func bits(_ numbers: Numbers) -> [UInt64] {
            [numbers.one.bitPattern, numbers.maybe?.bitPattern ?? 1, numbers.pair.first.bitPattern]
                + numbers.values.map(\.bitPattern) + numbers.floats.map { UInt64($0.bitPattern) }
                + [UInt64(numbers.pair.second.bitPattern), numbers.single.value.bitPattern]
        }
        let foundation = JSONDecoder()
        foundation.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        var decoding = JSONRecordDecodingOptions()
        decoding.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Inf",
            negativeInfinity: "-Inf",
            nan: "NaN"
        )
        let expected = Result { try foundation.decode(Numbers.self, from: Data(json.utf8)) }
        let ours = Result { try JSONRecordDecoder(options: decoding).decode(Numbers.self, from: json) }
        switch (expected, ours) {
        case (.success(let expected), .success(let ours)): #expect(bits(ours) == bits(expected), "\(json)")
        case (.failure(let expected), .failure(let error)):
            // The same failing value as JSONDecoder's, located: a type mismatch at its path.
            let located = try #require(error as? JSONRecordDecodingError, "\(json): \(error)")
            guard case .typeMismatch(_, let context) = try #require(located.underlying) else {
                Issue.record("\(json): \(located)")
                return
            }
            guard case .typeMismatch(_, let foundationContext) = try #require(expected as? DecodingError) else {
                Issue.record("\(json): JSONDecoder \(expected)")
                return
            }
            #expect(
                context.codingPath.map(\.stringValue) == foundationContext.codingPath.map(\.stringValue),
                "\(json)"
            )
        default: Issue.record("\(json): JSONDecoder \(expected), ours \(ours)")
        }
    }

    @Test func deferredDataAndCustomData() throws {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .deferredToData
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "i",
            negativeInfinity: "-i",
            nan: "n"
        )
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .deferredToData
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "i",
            negativeInfinity: "-i",
            nan: "n"
        )
        var encoding = JSONRecordEncodingOptions()
        encoding.dataEncodingStrategy = .deferredToData
        encoding.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "i",
            negativeInfinity: "-i",
            nan: "n"
        )
        var decoding = JSONRecordDecodingOptions()
        decoding.dataDecodingStrategy = .deferredToData
        decoding.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "i",
            negativeInfinity: "-i",
            nan: "n"
        )
        try roundTrip(encoder, decoder, encoding, decoding)

        // Custom: hex strings.
        var hexEncoding = encoding
        hexEncoding.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(data.map { String(format: "%02x", $0) }.joined())
        }
        var hexDecoding = decoding
        hexDecoding.dataDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                bytes.append(UInt8(text[index..<next], radix: 16)!)
                index = next
            }
            return Data(bytes)
        }
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Event>(to: sink, layout: .ndjson, encoding: hexEncoding)
        try writer.write(Self.event)
        try writer.finish()
        #expect(String(decoding: sink.data, as: UTF8.self).contains(#""blob":"0001feff""#))
        #expect(try JSONRecordDecoder(options: hexDecoding).decode(Event.self, from: sink.data) == Self.event)
    }

    @Test func parseStrategiesAndFormatStyles() throws {
        var encoding = JSONRecordEncodingOptions()
        encoding.dateEncodingStrategy = .formatStyle(Date.ISO8601FormatStyle())
        encoding.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        var decoding = JSONRecordDecodingOptions()
        decoding.dateDecodingStrategy = .parseStrategy(Date.ISO8601FormatStyle())
        decoding.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Event>(to: sink, layout: .ndjson, encoding: encoding)
        try writer.write(Self.event)
        try writer.finish()
        #expect(String(decoding: sink.data, as: UTF8.self).contains(#""at":"2023-11-14T22:13:20Z""#))
        #expect(try JSONRecordDecoder(options: decoding).decode(Event.self, from: sink.data) == Self.event)
    }

    @Test func nonConformingFloatsThrowByDefaultAsInFoundation() throws {
        struct Number: Codable { let value: Double }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Number(value: .nan)) }
        let writer = JSONRecordWriter<Number>(to: MemoryOutputSink(), layout: .ndjson)
        #expect(throws: EncodingError.self) { try writer.write(Number(value: .nan)) }
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(Number.self, from: Data(#"{"value": "NaN"}"#.utf8))
        }
        #expect(throws: JSONRecordDecodingError.self) {
            try JSONRecordDecoder().decode(Number.self, from: #"{"value": "NaN"}"#)
        }
        var decoding = JSONRecordDecodingOptions()
        decoding.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity",
            negativeInfinity: "-Infinity",
            nan: "NaN"
        )
        #expect(try JSONRecordDecoder(options: decoding).decode(Number.self, from: #"{"value": "NaN"}"#).value.isNaN)
        #expect(
            try JSONRecordDecoder(options: decoding).decode([Double].self, from: #"["Infinity", 1, "-Infinity"]"#) == [
                .infinity, 1, -.infinity,
            ]
        )
    }

    /// Foundation on Linux has no Int128 in JSONEncoder yet; ours writes and reads every digit.
    @Test func int128BothWays() throws {
        struct Wide: Codable, Equatable {
            let big: Int128
            let huge: UInt128
            let list: [Int128]
        }
        let value = Wide(big: .min, huge: .max, list: [0, -1, 1 << 100])
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Wide>(to: sink, layout: .ndjson)
        try writer.write(value)
        try writer.finish()
        #expect(
            String(decoding: sink.data, as: UTF8.self)
                == #"{"big":-170141183460469231731687303715884105728,"huge":340282366920938463463374607431768211455,"list":[0,-1,1267650600228229401496703205376]}"#
                + "\n"
        )
        #expect(try JSONRecordDecoder().decode(Wide.self, from: sink.data) == value)
    }

    @Test func userInfoReachesEncodeToAsInJSONEncoder() throws {
        struct Tagged: Encodable {
            static let key = CodingUserInfoKey(rawValue: "tag")!
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.userInfo[Self.key] as? String ?? "none")
            }
        }
        var encoding = JSONRecordEncodingOptions()
        encoding.userInfo[Tagged.key] = "v2"
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Tagged>(to: sink, layout: .ndjson, encoding: encoding)
        try writer.write(Tagged())
        try writer.finish()
        let foundation = JSONEncoder()
        foundation.userInfo[Tagged.key] = "v2"
        #expect(Data(sink.data.dropLast()) == (try foundation.encode(Tagged())))
    }

    /// A key strategy converts a type's coding keys, never a `[String: Value]` dictionary's keys,
    /// in JSONEncoder and in ours (nested, and as the record itself).
    @Test(arguments: [0, 1, 2])
    func dictionaryKeysAreWrittenAsTheyAreUnderEveryKeyStrategy(strategy: Int) throws {
        struct Labelled: Encodable {
            let someLabel: String
            let someCounts: [String: Int]
            let nestedMaps: [String: [String: [Int]]]
        }
        let value = Labelled(
            someLabel: "x",
            someCounts: ["innerKey": 1, "x_y": 2, "": 3],
            nestedMaps: ["outerKey": ["deepKey": [1, 2]], "empty": [:]]
        )
        let foundation = JSONEncoder()
        var encoding = JSONRecordEncodingOptions()
        let custom: @Sendable ([any CodingKey]) -> any CodingKey = { path in
            RecordKey(stringValue: "k-" + path.last!.stringValue)
        }
        switch strategy {
        case 0: break
        case 1:
            foundation.keyEncodingStrategy = .convertToSnakeCase
            encoding.keyEncodingStrategy = .convertToSnakeCase
        default:
            foundation.keyEncodingStrategy = .custom(custom)
            encoding.keyEncodingStrategy = .custom(custom)
        }
        let pairs = [
            (try Self.written(value, encoding), try foundation.encode(value)),
            (try Self.written(value.someCounts, encoding), try foundation.encode(value.someCounts)),
        ]
        for (ours, theirs) in pairs {
            let theirTree = try JSONSerialization.jsonObject(with: theirs) as! NSDictionary
            let ourTree = try JSONSerialization.jsonObject(with: ours) as! NSDictionary
            #expect(
                theirTree == ourTree,
                "ours \(String(decoding: ours, as: UTF8.self)) theirs \(String(decoding: theirs, as: UTF8.self))"
            )
        }
        if strategy == 1 {
            let text = String(decoding: try Self.written(value, encoding), as: UTF8.self)
            #expect(
                text.contains(#""some_counts":{"#) && text.contains(#""innerKey":1"#)
                    && text.contains(#""deepKey":[1,2]"#)
            )
        }
    }

    struct RecordKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// `value` as our writer writes it as one NDJSON record, without the newline.
    static func written<T: Encodable>(_ value: T, _ encoding: JSONRecordEncodingOptions) throws -> Data {
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<T>(to: sink, layout: .ndjson, encoding: encoding)
        try writer.write(value)
        try writer.finish()
        return Data(sink.data.dropLast())
    }
}
