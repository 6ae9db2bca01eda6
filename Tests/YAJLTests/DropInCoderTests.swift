import Foundation
import Testing
import YAJL

/// `JSONRecordDecoder` and `JSONRecordEncoder` configured as `JSONDecoder` and `JSONEncoder` are:
/// the same properties, and, over generated values, the same results as Foundation's on this
/// machine (pretty-printed output compared as values: its layout is YAJL's, see FoundationParity).
@Suite("JSONRecordDecoder and JSONRecordEncoder drop in for Foundation's")
struct DropInCoderTests {
    struct Row: Codable, Equatable {
        var userName: String
        var createdAt: Date
        var payload: Data
        var ratio: Double
        var tags: [String: Int]
        var path: String
    }

    static func rows(seed: UInt64, count: Int) -> [Row] {
        var random = NumberParsingTests.SplitMix(state: seed)
        let alphabet = Array("aZ_/é东😀 \"\\\n09")
        func text() -> String {
            String((0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        return (0..<count).map { _ in
            Row(
                userName: text(),
                createdAt: Date(timeIntervalSince1970: Double(random.next() % 4_000_000_000)),
                payload: Data((0..<Int(random.next() % 9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
                ratio: [Double.infinity, -.infinity, 0.5, 1e300, -0.0, 3][Int(random.next() % 6)],
                tags: Dictionary(uniqueKeysWithValues: (0..<Int(random.next() % 6)).map { ("k\(text())\($0)", $0) }),
                path: "/" + text() + "/" + text()
            )
        }
    }

    static let formattings: [(JSONEncoder.OutputFormatting, JSONRecordEncoder.OutputFormatting)] = [
        ([], []), ([.sortedKeys], [.sortedKeys]), ([.withoutEscapingSlashes], [.withoutEscapingSlashes]),
        ([.sortedKeys, .withoutEscapingSlashes], [.sortedKeys, .withoutEscapingSlashes]),
        ([.prettyPrinted, .sortedKeys], [.prettyPrinted, .sortedKeys]),
    ]

    @Test("encode: the same bytes as JSONEncoder (minified), the same values (pretty)", arguments: 0..<6)
    func encoderMatchesJSONEncoder(seed: UInt64) throws {
        let rows = Self.rows(seed: seed, count: 40)
        for (foundationFormatting, formatting) in Self.formattings {
            let foundation = JSONEncoder()
            foundation.outputFormatting = foundationFormatting
            foundation.keyEncodingStrategy = .convertToSnakeCase
            foundation.dateEncodingStrategy = .secondsSince1970
            foundation.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
            let ours = JSONRecordEncoder()
            ours.outputFormatting = formatting
            ours.keyEncodingStrategy = .convertToSnakeCase
            ours.dateEncodingStrategy = .secondsSince1970
            ours.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
            for row in rows {
                let expected = try foundation.encode(row)
                let actual = try ours.encode(row)
                if formatting.contains(.prettyPrinted) {
                    // YAJL's layout; sorted keys: the same members in the same order.
                    #expect(try JSONValue(parsing: actual).description == JSONValue(parsing: expected).description)
                } else if !formatting.contains(.sortedKeys) {
                    // Foundation writes a keyed container's members in hash order, which differs
                    // from run to run; ours are in the order encode(to:) wrote them.
                    #expect(try Self.canonical(actual) == Self.canonical(expected))
                } else {
                    #expect(
                        actual == expected,
                        "\(String(decoding: actual, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))"
                    )
                }
            }
        }
    }

    /// The JSON with every object's keys sorted (by Foundation), for comparing member sets.
    static func canonical(_ data: Data) throws -> Data {
        let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }

    @Test("decode: what JSONDecoder decodes, with the same strategies set the same way", arguments: 0..<6)
    func decoderMatchesJSONDecoder(seed: UInt64) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+",
            negativeInfinity: "-",
            nan: "n"
        )
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        foundation.dateDecodingStrategy = .iso8601
        foundation.dataDecodingStrategy = .base64
        foundation.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+",
            negativeInfinity: "-",
            nan: "n"
        )
        let ours = JSONRecordDecoder()
        ours.keyDecodingStrategy = .convertFromSnakeCase
        ours.dateDecodingStrategy = .iso8601
        ours.dataDecodingStrategy = .base64
        ours.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+",
            negativeInfinity: "-",
            nan: "n"
        )
        for row in Self.rows(seed: seed, count: 40) {
            let data = try encoder.encode(row)
            let expected = try foundation.decode(Row.self, from: data)
            #expect(try ours.decode(Row.self, from: data) == expected)
        }
        // Without the strategies both refuse the same document.
        let data = try encoder.encode(Self.rows(seed: seed, count: 1)[0])
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Row.self, from: data) }
        #expect(throws: (any Error).self) { try JSONRecordDecoder().decode(Row.self, from: data) }
    }

    /// What a `catch DecodingError…` written for `JSONDecoder` sees, it finds in `underlying`.
    @Test("a value that does not decode: JSONDecoder's DecodingError is the underlying error", arguments: 0..<4)
    func decodingErrorsMatchFoundation(seed: UInt64) throws {
        struct Inner: Decodable {
            let n: Int
            let s: String
        }
        struct Outer: Decodable {
            let a: [Inner]
            let b: Bool?
        }
        var random = NumberParsingTests.SplitMix(state: seed)
        let breakages = [
            #"{"a": [{"n": 1, "s": "x"}, {"n": "1", "s": "x"}], "b": true}"#,  // typeMismatch
            #"{"a": [{"n": 1, "s": "x"}, {"s": "x"}]}"#,  // keyNotFound
            #"{"a": [{"n": 1, "s": null}], "b": false}"#,  // valueNotFound
            #"{"a": {"n": 1}}"#,  // typeMismatch: an object for an array
            #"{"a": [{"n": 1.5, "s": "x"}]}"#,  // dataCorrupted: not an Int
            #"{"b": true}"#,  // keyNotFound at the top
        ]
        for _ in 0..<6 {
            let text = breakages[Int(random.next() % UInt64(breakages.count))]
            var foundation: DecodingError?
            do { _ = try JSONDecoder().decode(Outer.self, from: Data(text.utf8)) } catch let error as DecodingError {
                foundation = error
            }
            let expected = try #require(foundation, "\(text)")
            do {
                _ = try JSONRecordDecoder().decode(Outer.self, from: text)
                Issue.record("decoded \(text)")
            } catch let error as JSONRecordDecodingError {
                let underlying = try #require(error.underlying, "\(text)")
                if case .dataCorrupted = expected {
                    // JSONDecoder reports a number that does not fit at an empty coding path;
                    // ours has the path (FoundationParity.md).
                    #expect(Self.shape(underlying).hasPrefix("dataCorrupted at a.[0].n"), "\(text)")
                } else {
                    #expect(Self.shape(underlying) == Self.shape(expected), "\(text)")
                }
            }
        }
    }

    /// A `DecodingError`'s case, coding path and type or key, as text.
    static func shape(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "typeMismatch \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "valueNotFound \(type) at \(path(context))"
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) at \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
        @unknown default: return "\(error)"
        }
    }

    @Test("userInfo reaches init(from:) and encode(to:)")
    func userInfo() throws {
        struct Probe: Codable {
            static let key = CodingUserInfoKey(rawValue: "probe")!
            let seen: String
            init(seen: String) { self.seen = seen }
            init(from decoder: any Decoder) throws { seen = decoder.userInfo[Self.key] as? String ?? "none" }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.userInfo[Self.key] as? String ?? "none")
            }
        }
        let decoder = JSONRecordDecoder()
        decoder.userInfo = [Probe.key: "d"]
        #expect(try decoder.decode(Probe.self, from: "1").seen == "d")
        let encoder = JSONRecordEncoder()
        encoder.userInfo = [Probe.key: "e"]
        #expect(try encoder.encode(Probe(seen: "")) == Data(#""e""#.utf8))
    }

    @Test("the defaults are Foundation's")
    func defaults() throws {
        let value = ["a/b": Date(timeIntervalSinceReferenceDate: 12.5)]  // one key: no order to differ
        #expect(try JSONRecordEncoder().encode(value) == JSONEncoder().encode(value))
        let data = try JSONEncoder().encode(value)
        #expect(
            try JSONRecordDecoder().decode([String: Date].self, from: data)
                == JSONDecoder().decode([String: Date].self, from: data)
        )
    }
}
