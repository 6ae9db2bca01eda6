import Foundation
import Testing
import YAJL

/// Runs the same values through Foundation's `JSONEncoder`/`JSONDecoder` and through every
/// Codable path of swift-yajl, and compares what comes out: the JSON (canonical, and byte for
/// byte where ours is already in sorted-key order), the decoded values, and whether each threw.
enum CodableParity {
    /// Both sides' strategies, set together.
    struct Strategies: Sendable, CustomStringConvertible {
        var keys: Keys = .useDefaultKeys
        var dates: Dates = .deferredToDate
        var data: DataForm = .base64
        var nonConforming = false

        enum Keys: String, Sendable, CaseIterable { case useDefaultKeys, snakeCase, custom }
        enum Dates: String, Sendable, CaseIterable {
            case deferredToDate, secondsSince1970, millisecondsSince1970, iso8601, custom
        }
        enum DataForm: String, Sendable, CaseIterable { case base64, deferredToData, custom }

        var description: String { "\(keys)/\(dates)/\(data)\(nonConforming ? "/strings" : "")" }

        /// The custom key strategy both sides use: the last key upper-cased, with its path depth.
        @Sendable static func customKey(_ path: [any CodingKey]) -> any CodingKey {
            let last = path.last!
            if let index = last.intValue { return AnyKey(intValue: index) }
            return AnyKey(stringValue: "\(last.stringValue.uppercased())\(path.count)")
        }

        /// Decoding's inverse of ``customKey(_:)``.
        @Sendable static func customKeyBack(_ path: [any CodingKey]) -> any CodingKey {
            let last = path.last!
            if let index = last.intValue { return AnyKey(intValue: index) }
            let name = String(last.stringValue.reversed().drop(while: \.isNumber).reversed())
            return AnyKey(stringValue: name.lowercased())
        }

        var foundationEncoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            switch keys {
            case .useDefaultKeys: break
            case .snakeCase: encoder.keyEncodingStrategy = .convertToSnakeCase
            case .custom: encoder.keyEncodingStrategy = .custom(Self.customKey)
            }
            switch dates {
            case .deferredToDate: break
            case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
            case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
            case .iso8601: encoder.dateEncodingStrategy = .iso8601
            case .custom:
                encoder.dateEncodingStrategy = .custom { date, encoder in
                    var container = encoder.unkeyedContainer()
                    try container.encode(date.timeIntervalSince1970.rounded())
                }
            }
            switch data {
            case .base64: break
            case .deferredToData: encoder.dataEncodingStrategy = .deferredToData
            case .custom:
                encoder.dataEncodingStrategy = .custom { data, encoder in
                    var container = encoder.singleValueContainer()
                    try container.encode(data.count)
                }
            }
            if nonConforming {
                encoder.nonConformingFloatEncodingStrategy = .convertToString(
                    positiveInfinity: "+inf",
                    negativeInfinity: "-inf",
                    nan: "nan"
                )
            }
            return encoder
        }

        var foundationDecoder: JSONDecoder {
            let decoder = JSONDecoder()
            switch keys {
            case .useDefaultKeys: break
            case .snakeCase: decoder.keyDecodingStrategy = .convertFromSnakeCase
            case .custom: decoder.keyDecodingStrategy = .custom(Self.customKeyBack)
            }
            switch dates {
            case .deferredToDate: break
            case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
            case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
            case .iso8601: decoder.dateDecodingStrategy = .iso8601
            case .custom:
                decoder.dateDecodingStrategy = .custom { decoder in
                    var container = try decoder.unkeyedContainer()
                    return Date(timeIntervalSince1970: try container.decode(Double.self))
                }
            }
            switch data {
            case .base64: break
            case .deferredToData: decoder.dataDecodingStrategy = .deferredToData
            case .custom:
                decoder.dataDecodingStrategy = .custom { decoder in
                    Data(count: try decoder.singleValueContainer().decode(Int.self))
                }
            }
            if nonConforming {
                decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                    positiveInfinity: "+inf",
                    negativeInfinity: "-inf",
                    nan: "nan"
                )
            }
            return decoder
        }

        var encoding: JSONRecordEncodingOptions {
            var options = JSONRecordEncodingOptions()
            switch keys {
            case .useDefaultKeys: break
            case .snakeCase: options.keyEncodingStrategy = .convertToSnakeCase
            case .custom: options.keyEncodingStrategy = .custom(Self.customKey)
            }
            switch dates {
            case .deferredToDate: break
            case .secondsSince1970: options.dateEncodingStrategy = .secondsSince1970
            case .millisecondsSince1970: options.dateEncodingStrategy = .millisecondsSince1970
            case .iso8601: options.dateEncodingStrategy = .iso8601
            case .custom:
                options.dateEncodingStrategy = .custom { date, encoder in
                    var container = encoder.unkeyedContainer()
                    try container.encode(date.timeIntervalSince1970.rounded())
                }
            }
            switch data {
            case .base64: break
            case .deferredToData: options.dataEncodingStrategy = .deferredToData
            case .custom:
                options.dataEncodingStrategy = .custom { data, encoder in
                    var container = encoder.singleValueContainer()
                    try container.encode(data.count)
                }
            }
            if nonConforming {
                options.nonConformingFloatEncodingStrategy = .convertToString(
                    positiveInfinity: "+inf",
                    negativeInfinity: "-inf",
                    nan: "nan"
                )
            }
            return options
        }

        var decoding: JSONRecordDecodingOptions {
            var options = JSONRecordDecodingOptions()
            switch keys {
            case .useDefaultKeys: break
            case .snakeCase: options.keyDecodingStrategy = .convertFromSnakeCase
            case .custom: options.keyDecodingStrategy = .custom(Self.customKeyBack)
            }
            switch dates {
            case .deferredToDate: break
            case .secondsSince1970: options.dateDecodingStrategy = .secondsSince1970
            case .millisecondsSince1970: options.dateDecodingStrategy = .millisecondsSince1970
            case .iso8601: options.dateDecodingStrategy = .iso8601
            case .custom:
                options.dateDecodingStrategy = .custom { decoder in
                    var container = try decoder.unkeyedContainer()
                    return Date(timeIntervalSince1970: try container.decode(Double.self))
                }
            }
            switch data {
            case .base64: break
            case .deferredToData: options.dataDecodingStrategy = .deferredToData
            case .custom:
                options.dataDecodingStrategy = .custom { decoder in
                    Data(count: try decoder.singleValueContainer().decode(Int.self))
                }
            }
            if nonConforming {
                options.nonConformingFloatDecodingStrategy = .convertFromString(
                    positiveInfinity: "+inf",
                    negativeInfinity: "-inf",
                    nan: "nan"
                )
            }
            return options
        }
    }

    /// A result or the error's type and text, for comparing outcomes.
    enum Outcome<T>: CustomStringConvertible {
        case value(T)
        case failure(any Error)

        init(_ body: () throws -> T) {
            do { self = .value(try body()) } catch { self = .failure(error) }
        }

        var value: T? { if case .value(let value) = self { value } else { nil } }
        var description: String {
            switch self {
            case .value(let value): "\(value)"
            case .failure(let error): "error \(error)"
            }
        }
    }

    /// JSON as a canonical text: parsed, every object's members sorted by key, minified, numbers
    /// as written. Two encoders agree when their canonical texts are equal.
    static func canonical(_ data: Data) throws -> String {
        func sorted(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let elements): return .array(elements.map(sorted))
            case .object(let object):
                return .object(
                    JSONObject(
                        object.members.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: sorted($0.value)) }
                    )
                )
            default: return value
            }
        }
        return sorted(try JSONRecordDecoder().decode(JSONValue.self, from: data)).description
    }

    /// What swift-yajl writes for `value`, by each of its encoding paths: `JSONWriter.encode`, and
    /// a one-record NDJSON `JSONRecordWriter`. Both must agree; the first is returned.
    static func ourEncoding<T: Encodable>(_ value: T, _ options: JSONRecordEncodingOptions) throws -> Data {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        try writer.encode(value, options: options)
        try writer.finish()
        let lines = MemoryOutputSink()
        let records = JSONRecordWriter<T>(to: lines, layout: .ndjson, encoding: options)
        try records.write(value)
        try records.finish()
        #expect(lines.data == sink.data + Data("\n".utf8), "JSONRecordWriter and JSONWriter.encode differ")
        return sink.data
    }

    /// Encodes `value` both ways and expects the same JSON, or an error from both (with the same
    /// coding path, for an `EncodingError`). Returns Foundation's output, if any.
    @discardableResult
    static func expectSameEncoding<T: Encodable>(
        _ value: T,
        _ strategies: Strategies = Strategies(),
        _ label: @autoclosure () -> String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Data? {
        let theirs = Outcome { try strategies.foundationEncoder.encode(value) }
        let ours = Outcome { try ourEncoding(value, strategies.encoding) }
        switch (theirs, ours) {
        case (.value(let foundation), .value(let yajl)):
            let foundationText = String(decoding: foundation, as: UTF8.self)
            let ourText = String(decoding: yajl, as: UTF8.self)
            guard let canonicalTheirs = try? canonical(foundation), let canonicalOurs = try? canonical(yajl) else {
                Issue.record(
                    "\(label()): unreadable JSON: theirs \(foundationText) ours \(ourText)",
                    sourceLocation: sourceLocation
                )
                return foundation
            }
            #expect(
                canonicalTheirs == canonicalOurs,
                "\(label()): theirs \(foundationText) ours \(ourText)",
                sourceLocation: sourceLocation
            )
            // Byte for byte where ours is already in sorted order (Foundation escapes "/").
            if canonicalOurs == ourText, !foundationText.contains("\\u") {
                #expect(
                    foundationText.replacingOccurrences(of: "\\/", with: "/") == ourText,
                    "\(label()): bytes differ",
                    sourceLocation: sourceLocation
                )
            }
            return foundation
        case (.failure(let foundationError), .failure(let ourError)):
            if let foundationError = foundationError as? EncodingError {
                #expect(
                    keys(foundationError) == keys(ourError),
                    "\(label()): error paths differ: theirs \(foundationError) ours \(ourError)",
                    sourceLocation: sourceLocation
                )
            } else {
                #expect(
                    type(of: foundationError) == type(of: ourError),
                    "\(label()): theirs \(foundationError) ours \(ourError)",
                    sourceLocation: sourceLocation
                )
            }
            return nil
        default:
            Issue.record("\(label()): theirs \(theirs) ours \(ours)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Decodes `data` both ways (`JSONRecordDecoder`, and a `JSONRecordReader` at `$`) and expects
    /// equal values, or an error from both.
    static func expectSameDecoding<T: Decodable & Equatable>(
        _ type: T.Type,
        from data: Data,
        _ strategies: Strategies = Strategies(),
        _ label: @autoclosure () -> String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let theirs = Outcome { try strategies.foundationDecoder.decode(T.self, from: data) }
        let ours = Outcome { try JSONRecordDecoder(options: strategies.decoding).decode(T.self, from: data) }
        let read = Outcome { () throws -> [T] in
            let options = JSONRecordOptions(decoding: strategies.decoding)
            let reader = try JSONRecordReader(T.self, at: "$", from: MemoryByteSource(data), options: options)
            var values: [T] = []
            while let value = try reader.next() { values.append(value) }
            return values
        }
        let text = String(decoding: data.prefix(300), as: UTF8.self)
        switch (theirs, ours, read) {
        case (.value(let foundation), .value(let yajl), .value(let records)):
            #expect(
                foundation == yajl,
                "\(label()): decoded \(text): theirs \(foundation) ours \(yajl)",
                sourceLocation: sourceLocation
            )
            #expect(
                records == [foundation],
                "\(label()): the reader decoded \(records)",
                sourceLocation: sourceLocation
            )
        case (.failure, .failure, .failure): break
        default:
            Issue.record(
                "\(label()): decoding \(text): theirs \(theirs) ours \(ours) reader \(read)",
                sourceLocation: sourceLocation
            )
        }
    }

    /// The coding path of an error as text: `EncodingError`'s and `DecodingError`'s own, or the
    /// one a `JSONRecordDecodingError` carries.
    static func keys(_ error: any Error) -> [String] {
        func text(_ path: [any CodingKey]) -> [String] { path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } }
        switch error {
        case let error as EncodingError:
            if case .invalidValue(_, let context) = error { return text(context.codingPath) }
        case let error as DecodingError:
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return text(context.codingPath)
            case .keyNotFound(let key, let context): return text(context.codingPath + [key])
            @unknown default: return []
            }
        case let error as JSONRecordDecodingError:
            if let underlying = error.underlying { return keys(underlying) }
        default: break
        }
        return []
    }
}

/// A coding key with any string or integer.
struct AnyKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// The seeded generator of the parity tests (the same cases in every run).
typealias SeededGenerator = NumberParsingTests.SplitMix
