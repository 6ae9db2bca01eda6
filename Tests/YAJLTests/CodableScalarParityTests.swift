import Foundation
import Testing
import YAJL

/// Every standard-library scalar type (and `Decimal`, `Date`, `Data`, `URL`), in every container
/// kind and as dictionary keys, under the strategies that apply to it: encoded and decoded by
/// Foundation and by swift-yajl, compared value by value (``CodableParity``). Values are
/// generated with a fixed seed.
@Suite("Codable parity: scalars in every container")
struct CodableScalarParityTests {
    /// One type's values, run through every container kind.
    struct ParityCase: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable () -> Void
        var testDescription: String { name }
    }

    struct Keyed<T: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var value: T
    }

    struct KeyedOptional<T: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var maybe: T?
        var value: T
    }

    /// The container kinds of one value (and of all values together).
    static func containers<T: Codable & Equatable & Sendable>(
        _ values: [T],
        _ strategies: CodableParity.Strategies,
        _ name: String
    ) {
        let label = "\(name) \(strategies)"
        func both<V: Codable & Equatable>(_ value: V, _ kind: String) {
            if let data = CodableParity.expectSameEncoding(value, strategies, "\(label) \(kind) \(value)") {
                CodableParity.expectSameDecoding(V.self, from: data, strategies, "\(label) \(kind)")
            }
        }
        for value in values {
            both(value, "single")
            both(Keyed(value: value), "keyed")
            both(KeyedOptional(maybe: value, value: value), "optional")
            both(KeyedOptional(maybe: nil, value: value), "nil")
            both([value], "unkeyed")
            both([value, value] as [T?], "unkeyed optionals")
            both(["k": [value]], "nested")
            both([[value], []], "nested arrays")
            both(value as T?, "optional single")
        }
        both(values, "all in one array")
        both([nil] + values.map { $0 as T? }, "all as optionals")
    }

    /// `[T: Int]` and `[T: T]`: an object for `String` and `Int` keys, an array of alternating
    /// keys and values for other key types (as the standard library encodes them).
    static func dictionaryKeys<T: Codable & Hashable & Sendable>(
        _ values: [T],
        _ strategies: CodableParity.Strategies,
        _ name: String
    ) {
        let label = "\(name) keys \(strategies)"
        for value in values {
            let dictionary = [value: 1]
            if let data = CodableParity.expectSameEncoding(dictionary, strategies, "\(label) \(value)") {
                CodableParity.expectSameDecoding([T: Int].self, from: data, strategies, label)
            }
            let both = [value: value]
            if let data = CodableParity.expectSameEncoding(both, strategies, "\(label) \(value)") {
                CodableParity.expectSameDecoding([T: T].self, from: data, strategies, label)
            }
            let keyed = Keyed(value: [value: [value]])
            if let data = CodableParity.expectSameEncoding(keyed, strategies, "\(label) \(value)") {
                CodableParity.expectSameDecoding(Keyed<[T: [T]]>.self, from: data, strategies, label)
            }
        }
    }

    static func integers<T: FixedWidthInteger & Codable & Sendable>(_ type: T.Type, seed: UInt64) -> [T] {
        var random = SeededGenerator(state: seed)
        var values: [T] = [.min, .max, 0, 1, .max / 2, .min / 2]
        for _ in 0..<12 { values.append(T.random(in: .min ... .max, using: &random)) }
        return values
    }

    static func floats<T: BinaryFloatingPoint & Codable & Sendable>(
        _ type: T.Type,
        seed: UInt64,
        bits: (UInt64) -> T
    ) -> [T] {
        var random = SeededGenerator(state: seed)
        var values: [T] = [0, -0.0, 1, 100, 0.1, 1e-7, 1.5, -2.25, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        values += [.leastNormalMagnitude, -.greatestFiniteMagnitude, 123456.789, 1e20, 1e21]
        while values.count < 40 {
            let value = bits(random.next())
            if value.isFinite { values.append(value) }
            values.append(T(Double.random(in: -1e6...1e6, using: &random)))
        }
        return values
    }

    static func strings(seed: UInt64) -> [String] {
        var random = SeededGenerator(state: seed)
        var values = ["", "a", "a/b", "\"quoted\" \\ back", "tab\tnew\nline\r", "\u{0}\u{1}\u{1f}\u{7f}", "é東京😀"]
        values += ["\u{2028}\u{2029}", "\u{FEFF}bom", "</script>", "\u{8}\u{c}"]
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0x0...0x1F, 0xA0...0x2FF, 0x4E00...0x4FFF, 0x1F600...0x1F64F]
        for _ in 0..<16 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let pool = pools.randomElement(using: &random)!
                text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: pool, using: &random))!)
            }
            values.append(text)
        }
        return values
    }

    static func decimals(seed: UInt64) -> [Decimal] {
        var random = SeededGenerator(state: seed)
        var values = ["0", "1", "-1", "1.5", "0.001", "-12.345", "123456789012345678901234567890", "1e30", "-1e-20"]
            .compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        for _ in 0..<10 {
            let mantissa = Int64.random(in: -999_999_999_999...999_999_999_999, using: &random)
            values.append(
                Decimal(
                    sign: mantissa < 0 ? .minus : .plus,
                    exponent: Int.random(in: -12...12, using: &random),
                    significand: Decimal(abs(mantissa))
                )
            )
        }
        return values
    }

    static func dates(seed: UInt64) -> [Date] {
        var random = SeededGenerator(state: seed)
        var values = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000),
            Date(timeIntervalSinceReferenceDate: 0),
        ]
        for _ in 0..<10 {
            values.append(
                Date(timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &random)))
            )
        }
        values.append(Date(timeIntervalSince1970: 1_700_000_000.5))
        return values
    }

    static func data(seed: UInt64) -> [Data] {
        var random = SeededGenerator(state: seed)
        var values = [Data(), Data([0]), Data([0xFF, 0xFE, 0])]
        for _ in 0..<8 {
            values.append(
                Data(
                    (0..<Int.random(in: 1...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                )
            )
        }
        return values
    }

    static let urls = ["https://example.com/a/b?c=d&e=f#g", "file:///tmp/x.json", "relative/path", "mailto:a@b.c"]
        .compactMap(URL.init(string:))

    static func scalarCases() -> [ParityCase] {
        let plain = CodableParity.Strategies()
        var cases: [ParityCase] = []
        func add<T: Codable & Equatable & Sendable>(
            _ name: String,
            _ values: [T],
            _ strategies: [CodableParity.Strategies] = [plain]
        ) {
            cases.append(ParityCase(name: name) { for s in strategies { containers(values, s, name) } })
        }
        func addKeys<T: Codable & Hashable & Sendable>(
            _ name: String,
            _ values: [T],
            _ strategies: [CodableParity.Strategies] = [plain]
        ) {
            cases.append(
                ParityCase(name: "\(name) as dictionary keys") {
                    for s in strategies { dictionaryKeys(values, s, name) }
                }
            )
        }
        add("Int", integers(Int.self, seed: 1))
        add("Int8", integers(Int8.self, seed: 2))
        add("Int16", integers(Int16.self, seed: 3))
        add("Int32", integers(Int32.self, seed: 4))
        add("Int64", integers(Int64.self, seed: 5))
        add("UInt", integers(UInt.self, seed: 6))
        add("UInt8", integers(UInt8.self, seed: 7))
        add("UInt16", integers(UInt16.self, seed: 8))
        add("UInt32", integers(UInt32.self, seed: 9))
        add("UInt64", integers(UInt64.self, seed: 10))
        add("Int128", integers(Int128.self, seed: 11))
        add("UInt128", integers(UInt128.self, seed: 12))
        var floatsAsStrings = plain
        floatsAsStrings.nonConforming = true
        let floatStrategies = [plain, floatsAsStrings]
        add(
            "Float",
            floats(Float.self, seed: 13) { Float(bitPattern: UInt32(truncatingIfNeeded: $0)) },
            floatStrategies
        )
        add("Double", floats(Double.self, seed: 14) { Double(bitPattern: $0) }, floatStrategies)
        add("Float non-finite", [Float.infinity, -.infinity, 1], floatStrategies)
        add("Double non-finite", [Double.infinity, -.infinity, 1], floatStrategies)
        add("Decimal", decimals(seed: 15))
        add("Bool", [true, false])
        add("String", strings(seed: 16))
        let dateStrategies = CodableParity.Strategies.Dates.allCases.map { dates in
            var strategies = plain
            strategies.dates = dates
            return strategies
        }
        add("Date", dates(seed: 17), dateStrategies)
        let dataStrategies = CodableParity.Strategies.DataForm.allCases.map { form in
            var strategies = plain
            strategies.data = form
            return strategies
        }
        add("Data", data(seed: 18), dataStrategies)
        add("URL", urls)
        let keyStrategies = CodableParity.Strategies.Keys.allCases.map { keys in
            var strategies = plain
            strategies.keys = keys
            return strategies
        }
        addKeys("Int", integers(Int.self, seed: 19), keyStrategies)
        addKeys("Int8", integers(Int8.self, seed: 20), keyStrategies)
        addKeys("Int16", integers(Int16.self, seed: 21))
        addKeys("Int32", integers(Int32.self, seed: 22))
        addKeys("Int64", integers(Int64.self, seed: 23))
        addKeys("UInt", integers(UInt.self, seed: 24), keyStrategies)
        addKeys("UInt8", integers(UInt8.self, seed: 25))
        addKeys("UInt16", integers(UInt16.self, seed: 26))
        addKeys("UInt32", integers(UInt32.self, seed: 27))
        addKeys("UInt64", integers(UInt64.self, seed: 28))
        addKeys("Int128", integers(Int128.self, seed: 29))
        addKeys("UInt128", integers(UInt128.self, seed: 30))
        addKeys("String", strings(seed: 31), keyStrategies)
        addKeys("Bool", [true, false])
        addKeys("Double", [0.5, -1, 1e300])
        addKeys("Date", dates(seed: 32), dateStrategies)
        addKeys("URL", urls)
        addKeys("Decimal", decimals(seed: 33))
        return cases
    }

    @Test(arguments: scalarCases())
    func scalarsInEveryContainer(_ parity: ParityCase) {
        parity.run()
    }

    /// The texts of floating-point numbers, byte for byte: the shortest that reads back to the
    /// same `Float` or `Double`, without `.0` (`0.1` as a `Float` is `0.1`, not `0.10000000149011612`).
    @Test func floatTextIsTheShortestThatReadsBack() throws {
        let options = JSONRecordEncodingOptions()
        func ours(_ value: some Encodable) throws -> String {
            String(decoding: try CodableParity.ourEncoding(value, options), as: UTF8.self)
        }
        #expect(try ours(Float(0.1)) == "0.1")
        #expect(try ours(Float.greatestFiniteMagnitude) == "3.4028235e+38")
        #expect(try ours([Float(100), 1e-7, -0.0]) == "[100,1e-07,-0]")
        #expect(try ours([100.0, 0.1, 1e21]) == "[100,0.1,1e+21]")
    }
}
