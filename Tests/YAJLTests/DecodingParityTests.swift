import Foundation
import Testing
import YAJL

/// Decodes the same JSON with swift-yajl and `JSONDecoder`, value by value: both must succeed with
/// equal values (doubles compared bit for bit, so `-0.0` counts), or both fail with the same
/// `DecodingError` case, the same coding path, and for mismatches the same expected type.
enum Parity {
    struct Keyed<T: Decodable>: Decodable { let v: T }

    /// The outcome of one decode, comparable across decoders.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case failure(String)
        var description: String {
            switch self {
            case .value(let v): return "value \(v)"
            case .failure(let f): return "error \(f)"
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
        let path = { (context: DecodingError.Context) in context.codingPath.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(let type, let context): return "typeMismatch(\(type)) at [\(path(context))]"
        case .valueNotFound(let type, let context): return "valueNotFound(\(type)) at [\(path(context))]"
        case .keyNotFound(let key, let context): return "keyNotFound(\(key.stringValue)) at [\(path(context))]"
        case .dataCorrupted: return "dataCorrupted"
        @unknown default: return "unknown"
        }
    }

    static func render<T>(_ value: T) -> String {
        if let double = value as? Double { return "\(double) bits \(double.bitPattern)" }
        if let array = value as? [Double] { return array.map { "\($0) bits \($0.bitPattern)" }.joined(separator: ",") }
        if let keyed = value as? Keyed<Double> { return "\(keyed.v) bits \(keyed.v.bitPattern)" }
        return "\(value)"
    }

    static func foundation<T: Decodable>(_ type: T.Type, _ json: String) -> Outcome {
        do { return .value(render(try JSONDecoder().decode(T.self, from: Data(json.utf8)))) } catch {
            return .failure(describe(error))
        }
    }

    static func ours<T: Decodable>(_ type: T.Type, _ json: String) -> Outcome {
        do {
            var options = JSONRecordOptions()
            options.parsesConcurrently = false
            let reader = try JSONRecordReader(T.self, at: "$", from: .text(json), options: options)
            guard let value = try reader.next() else { return .failure("no record") }
            return .value(render(value))
        } catch let error as JSONRecordDecodingError {
            return .failure(error.underlying.map(describe) ?? "no DecodingError: \(error)")
        } catch {
            return .failure("\(error)")
        }
    }

    /// The inputs where the two decoders disagree, as lines for the failure message.
    static func differences<T: Decodable>(_ type: T.Type, _ literals: [String]) -> [String] {
        var lines: [String] = []
        for literal in literals {
            for (json, check) in [
                (literal, { (j: String) in (ours(T.self, j), foundation(T.self, j)) }),
                ("{\"v\":\(literal)}", { (j: String) in (ours(Keyed<T>.self, j), foundation(Keyed<T>.self, j)) }),
                ("[\(literal)]", { (j: String) in (ours([T].self, j), foundation([T].self, j)) }),
            ] {
                let (mine, theirs) = check(json)
                if mine != theirs { lines.append("\(T.self) \(json): ours \(mine), JSONDecoder \(theirs)") }
            }
        }
        return lines
    }

    static let integerLiterals = [
        "0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769", "65535", "65536",
        "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "9007199254740993",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "12345678901234567890",
        "170141183460469231731687303715884105727", "170141183460469231731687303715884105728",
        "-170141183460469231731687303715884105728", "-170141183460469231731687303715884105729",
        "340282366920938463463374607431768211455", "340282366920938463463374607431768211456",
        "1.0", "1.5", "-1.0", "9007199254740993.0", "1e2", "1E+2", "1e-2", "100e-2", "0.0", "-0.0", "0e5", "1e400",
        "\"1\"", "null", "true", "[1]", "{}",
    ]
}

@Suite("Decoding parity with JSONDecoder")
struct DecodingParityTests {
    @Test func integersOfEveryWidthAtEveryBoundary() {
        var differences: [String] = []
        differences += Parity.differences(Int8.self, Parity.integerLiterals)
        differences += Parity.differences(Int16.self, Parity.integerLiterals)
        differences += Parity.differences(Int32.self, Parity.integerLiterals)
        differences += Parity.differences(Int64.self, Parity.integerLiterals)
        differences += Parity.differences(Int.self, Parity.integerLiterals)
        differences += Parity.differences(UInt8.self, Parity.integerLiterals)
        differences += Parity.differences(UInt16.self, Parity.integerLiterals)
        differences += Parity.differences(UInt32.self, Parity.integerLiterals)
        differences += Parity.differences(UInt64.self, Parity.integerLiterals)
        differences += Parity.differences(UInt.self, Parity.integerLiterals)
        differences += Parity.differences(Int128.self, Parity.integerLiterals)
        differences += Parity.differences(UInt128.self, Parity.integerLiterals)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func doublesFloatsIncludingNegativeZeroAndBigIntegers() {
        let literals = [
            "0", "-0", "-0.0", "0.1", "1e400", "-1e400", "1.7976931348623157e308", "4.9e-324",
            "2.2250738585072014e-308",
            "9223372036854775808", "123456789012345678901234567890", "3.4028235e38", "3.5e38", "\"1\"", "null", "false",
            // Just above and just below halfway between two floats: rounding through Double ties.
            "1.00000005960464477539062500000000001", "1.00000005960464477539062499999999999",
            "1.000000059604644775390625",
            "3.40282356779733661637539395458142568448e38", "1.4012984643248170709237295832899161312802619418765e-45",
        ]
        var differences = Parity.differences(Double.self, literals)
        differences += Parity.differences(Float.self, literals)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func stringsBoolsAndDecimalsDoNotConvertSilently() {
        var differences = Parity.differences(
            String.self,
            ["\"a\"", "12345", "12345678901234567890", "1.5", "null", "true", "[]", "{}"]
        )
        differences += Parity.differences(Bool.self, ["true", "false", "1", "0", "\"true\"", "null"])
        differences += Parity.differences(
            Decimal.self,
            ["12345678901234567890123456789", "1.5", "-0", "\"1.5\"", "null", "1e10"]
        )
        differences += Parity.differences([Int].self, ["[1,2]", "[1,null]", "null", "{}", "1"])
        differences += Parity.differences([String: Int].self, ["{\"a\":1}", "{\"a\":null}", "[]", "null"])
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// Nested arrays of numbers (GeoJSON's coordinates), which are decoded without the standard
    /// library's `Array.init(from:)`: values, and errors with their coding paths, at every depth.
    @Test func nestedArraysOfDoublesAtEveryDepth() {
        var differences = Parity.differences(
            [[Double]].self,
            [
                "[[1,2],[3.5,-0.0]]", "[]", "[[]]", "[[1],null]", "[[1,null]]", "[[1,\"a\"]]", "[1]",
                "[[1],[2,[3]]]", "[[1e400]]", "[[-65.613616999999977,43.420273000000009]]", "null", "{}",
                "[[1,2],{}]", "[[9223372036854775808,1.7976931348623157e308,4.9e-324]]",
            ]
        )
        differences += Parity.differences(
            [[[Double]]].self,
            ["[[[1,2]],[[3]]]", "[[[1,2],[3,\"x\"]]]", "[[[]],[]]", "[[null]]", "[[[0.1,0.2],[0.3]],[[true]]]"]
        )
        differences += Parity.differences(
            [[[[Double]]]].self,
            ["[[[[1]]]]", "[[[[1,true]]]]", "[[[[1,2]],[[3,4],[5,6]]],[[[7,8]]]]", "[[[1]]]", "[[[[]]],[]]"]
        )
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    struct Required: Decodable {
        let id: Int
        let name: String
    }
    struct Optionals: Decodable, CustomStringConvertible {
        let id: Int?
        let name: String?
        var description: String { "\(id as Any) \(name as Any)" }
    }
    struct Nested: Decodable { let inner: Required }

    @Test(arguments: [
        #"{"id":1,"name":"a"}"#, #"{"id":1}"#, #"{"name":"a"}"#, #"{"id":null,"name":"a"}"#, #"{"id":1,"name":null}"#,
        #"{"id":"1","name":"a"}"#, #"{"id":1.5,"name":"a"}"#, #"{"id":1,"name":7}"#, "[]", "null", "3",
    ])
    func nullVersusMissingAndMismatchesWithTheirCodingPaths(json: String) {
        #expect(Parity.ours(Required.self, json) == Parity.foundation(Required.self, json))
        #expect(Parity.ours(Optionals.self, json) == Parity.foundation(Optionals.self, json))
        let nested = "{\"inner\":\(json)}"
        #expect(Parity.ours(Nested.self, nested) == Parity.foundation(Nested.self, nested))
    }
}
