import Foundation
import Testing
import YAJL

@Suite("Lossless numbers")
struct NumberTests {
    @Test(arguments: [
        ("0", JSONNumber.Value.integer(0)),
        ("-0", .integer(0)),
        ("42", .integer(42)),
        ("-17", .integer(-17)),
        ("9223372036854775807", .integer(Int64.max)),
        ("-9223372036854775808", .integer(Int64.min)),
        ("9223372036854775808", .unrepresentable),
        ("123456789012345678901234567890", .unrepresentable),
        ("1.5", .double(1.5)),
        ("-0.0", .double(-0.0)),
        ("1E+2", .double(100)),
        ("1e-2", .double(0.01)),
        ("0.1", .double(0.1)),
        ("2.2250738585072014e-308", .double(2.2250738585072014e-308)),
        ("5e-324", .double(Double.leastNonzeroMagnitude)),
        ("1e-400", .double(0)),
        ("1.7976931348623157e308", .double(1.7976931348623157e308)),
        ("1.7976931348623159e308", .unrepresentable),
        ("1e400", .unrepresentable),
        ("-1e400", .unrepresentable),
        ("3.141592653589793238462643383279", .double(3.141592653589793)),
        ("9007199254740993", .integer(9_007_199_254_740_993)),
        ("9007199254740993.0", .double(9_007_199_254_740_992)),
    ])
    func classification(text: String, expected: JSONNumber.Value) throws {
        let number = try #require(JSONNumber(text))
        #expect(number.value == expected)
        #expect(number.text == text)
        if case .double(let value) = expected, value == 0 {
            #expect(number.doubleValue?.sign == value.sign)
        }
        // The parser classifies the same way and keeps the text.
        let outcome = parse("[\(text)]")
        #expect(outcome.events[1].event == .number(number))
    }

    @Test func doublesMatchStrtodOnManyValues() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            for text in ["\(value)", String(format: "%.17g", value), String(format: "%.6e", value)] {
                let number = try #require(JSONNumber(text.replacingOccurrences(of: "inf", with: "1e400")))
                if case .double(let parsed) = number.value {
                    #expect(parsed == Double(text)!, "\(text)")
                }
            }
        }
    }

    @Test(arguments: ["", "-", "01", "1.", ".5", "1e", "+1", "0x10", "1 ", "NaN", "Infinity"])
    func invalidNumberTextIsRejected(text: String) {
        #expect(JSONNumber(text) == nil)
    }
}
