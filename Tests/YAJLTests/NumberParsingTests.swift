import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// The number parser against `strtod_l` (glibc, correctly rounded), bit for bit: random doubles
/// in every printed form, random decimals of 1 to 40 digits across the whole exponent range,
/// exact halfway points between neighbouring doubles and decimals just above and below them,
/// subnormals, and the edges of the range.
@Suite("Number parsing")
struct NumberParsingTests {
    /// A deterministic generator (SplitMix64), so that a failure can be reproduced.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Checks that `text` parses to exactly what `strtod` gives; returns a failure description.
    static func mismatch(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { utf8 -> String? in
            let raw = UnsafeRawBufferPointer(utf8)
            let expected = JSONNumberParser.strtodValue(raw)
            switch JSONNumberParser.classify(raw) {
            case .double(let value):
                return value.bitPattern == expected.bitPattern
                    ? nil : "\(String(decoding: raw, as: UTF8.self)): \(value) ≠ strtod \(expected)"
            case .integer(let value):
                return Double(value) == expected
                    ? nil : "\(String(decoding: raw, as: UTF8.self)): integer \(value) ≠ \(expected)"
            case .unrepresentable:
                return expected.isInfinite
                    ? nil : "\(String(decoding: raw, as: UTF8.self)): unrepresentable, strtod \(expected)"
            }
        }
    }

    static func check(_ texts: some Sequence<String>) -> [String] {
        var failures: [String] = []
        for text in texts {
            if let failure = mismatch(text) {
                failures.append(failure)
                if failures.count >= 5 { break }
            }
        }
        return failures
    }

    @Test func edgesOfTheRange() {
        let texts = [
            "0.0", "-0.0", "1e-400", "-1e-400", "1e400", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "9007199254740993.0",
            "9007199254740992.0000000000000000000001", "0.1", "0.3", "123456789012345678901234567890.0",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126", "7.2057594037927933e16",
            "1e23", "8.98846567431158e307", "2.2250738585072012e-308", "5e-324", "3e-324", "2e-324",
            "1" + String(repeating: "0", count: 400) + ".0", "0." + String(repeating: "0", count: 400) + "1",
            "1.0e-2147483648", "1.0e+99999999999999999999",
        ]
        #expect(Self.check(texts) == [])
    }

    @Test func randomDoublesInEveryPrintedForm() {
        var random = SplitMix(state: 1)
        var texts: [String] = []
        for _ in 0..<40_000 {
            let value = Double(bitPattern: random.next() & 0x7FFF_FFFF_FFFF_FFFF)
            guard value.isFinite else { continue }
            texts.append(
                value.description.contains(".") || value.description.contains("e")
                    ? value.description : value.description + ".0"
            )
            texts.append(String(format: "%.17e", value))
            texts.append(String(format: "%.25e", value))  // past 19 digits: the truncated path
            texts.append(String(format: "%.15e", value))
        }
        #expect(Self.check(texts) == [])
    }

    /// Coordinates and measurements as programs print them (GeoJSON, sensor logs): a small
    /// integer part and a fraction of 1 to 19 digits, no exponent, the form whose last digits the
    /// parser takes from one word at the end of the text.
    @Test func randomFixedPointDecimals() {
        var random = SplitMix(state: 4)
        var texts: [String] = []
        for _ in 0..<60_000 {
            let magnitude = [1.0, 10, 180, 1000, 1e6][Int(random.next() % 5)]
            let value = (Double(random.next() >> 11) / Double(1 << 53) * 2 - 1) * magnitude
            texts.append(String(format: "%.\(random.next() % 19 + 1)f", value))
        }
        #expect(Self.check(texts) == [])
    }

    @Test func randomDecimalsOfOneToFortyDigits() {
        var random = SplitMix(state: 2)
        var texts: [String] = []
        for _ in 0..<120_000 {
            let digits = Int(random.next() % 40) + 1
            var text = String(Int(random.next() % 9) + 1)
            for _ in 1..<digits { text.append(Character(String(random.next() % 10))) }
            let exponent = Int(random.next() % 700) - 360
            texts.append("\(text)e\(exponent)")
            if digits > 1 {
                let point = Int(random.next() % UInt64(digits - 1)) + 1
                let index = text.index(text.startIndex, offsetBy: point)
                texts.append("\(text[..<index]).\(text[index...])e\(exponent)")
            }
        }
        #expect(Self.check(texts) == [])
    }

    /// `m × 2^k` as exact decimal digits and a power of ten (`digits × 10^-scale`).
    static func exactDecimal(_ m: UInt64, _ k: Int) -> (digits: String, scale: Int) {
        var limbs: [UInt32] = []  // base 10^9, least significant first
        var value = m
        while value > 0 {
            limbs.append(UInt32(value % 1_000_000_000))
            value /= 1_000_000_000
        }
        func multiply(by factor: UInt64) {
            var carry: UInt64 = 0
            for index in limbs.indices {
                let product = UInt64(limbs[index]) * factor + carry
                limbs[index] = UInt32(product % 1_000_000_000)
                carry = product / 1_000_000_000
            }
            while carry > 0 {
                limbs.append(UInt32(carry % 1_000_000_000))
                carry /= 1_000_000_000
            }
        }
        // m × 2^k = m × 2^k, or m × 5^-k / 10^-k.
        var remaining = abs(k)
        while remaining > 0 {
            let step = min(remaining, 13)
            multiply(by: k > 0 ? 1 << UInt64(step) : UInt64(pow(5.0, Double(step))))
            remaining -= step
        }
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return (text, k < 0 ? -k : 0)
    }

    /// Exactly halfway between two neighbouring doubles (ties go to even), and a hair above and
    /// below: the cases a fast path is most likely to round wrongly.
    @Test func halfwayPointsAndTheirNeighbours() {
        var random = SplitMix(state: 3)
        var texts: [String] = []
        for round in 0..<3_000 {
            // Biased towards small exponents (cheap), with every tenth case anywhere in the range.
            let exponentBits = round % 10 == 0 ? random.next() % 0x7FE : 1023 - 80 + random.next() % 160
            let pattern = exponentBits << 52 | (random.next() & ((1 << 52) - 1))
            let value = Double(bitPattern: pattern)
            // The midpoint between value and its successor: (2 × significand + 1) × 2^(exponent - 1).
            let significand = exponentBits == 0 ? pattern & ((1 << 52) - 1) : (pattern & ((1 << 52) - 1)) | 1 << 52
            let exponent = (exponentBits == 0 ? 1 : Int(exponentBits)) - 1075
            let (digits, scale) = Self.exactDecimal(2 * significand + 1, exponent - 1)
            texts.append("\(digits)e-\(scale)")
            texts.append("\(digits)1e-\(scale + 1)")
            if let last = digits.last, last != "0" {
                texts.append("\(digits.dropLast())\(Int(String(last))! - 1)999e-\(scale + 3)")
            }
            #expect(value.isFinite)
        }
        #expect(Self.check(texts) == [])
    }

    /// Every length of integer part and fraction (0 to 22 digits, so that each is taken eight at a
    /// time, as a shorter run from one word, and one by one past the 19th), with and without an
    /// exponent and leading zeros: integers exact (`Int64` or unrepresentable), the rest bit for
    /// bit with `strtod`. Each text is read from inside a larger buffer whose next bytes are
    /// digits, so a parse that looked past the text's end would give a different value.
    @Test(arguments: 1...22)
    func everyRunLengthOfDigits(integerDigits: Int) {
        var random = SplitMix(state: UInt64(integerDigits))
        func digits(_ count: Int, first nonZero: Bool) -> String {
            var text = ""
            for index in 0..<count {
                let digit = nonZero && index == 0 ? random.next() % 9 + 1 : random.next() % 10
                text.append(Character(String(digit)))
            }
            return text
        }
        var failures: [String] = []
        for fractionDigits in 0...22 {
            for form in 0..<4 {
                let sign = random.next() % 2 == 0 ? "-" : ""
                let integer = integerDigits == 1 && form == 3 ? "0" : digits(integerDigits, first: true)
                var text = sign + integer
                if fractionDigits > 0 {
                    text += "." + (form == 3 ? "000" : "") + digits(fractionDigits, first: false)
                }
                if form == 1 { text += "e" + String(Int(random.next() % 40) - 20) }
                if form == 2 { text += "E+" + String(random.next() % 300) }
                let buffer = Array(text.utf8) + Array("12345678".utf8)
                let value = buffer.withUnsafeBytes {
                    JSONNumberParser.classify(UnsafeRawBufferPointer(rebasing: $0[..<text.utf8.count]))
                }
                if fractionDigits == 0 && (form == 0 || form == 3) {
                    let expected: JSONNumber.Value = Int64(text).map { .integer($0) } ?? .unrepresentable
                    if value != expected { failures.append("\(text): \(value) ≠ \(expected)") }
                } else {
                    if let failure = Self.mismatch(text) { failures.append(failure) }
                    var alone = text
                    let reference = alone.withUTF8 { JSONNumberParser.classify(UnsafeRawBufferPointer($0)) }
                    if value != reference { failures.append("\(text) inside a buffer: \(value) ≠ \(reference)") }
                }
            }
        }
        #expect(failures == [])
    }
}
