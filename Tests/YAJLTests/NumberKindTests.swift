import Testing

@testable import YAJLCore

/// `JSONNumberView.kind` (found from the text's shape) must always be the case of
/// `JSONNumberView.value` (found by converting): on edges written out and on random numbers of
/// every shape, magnitude and length.
@Suite("Number kinds without conversion")
struct NumberKindTests {
    /// The texts whose two answers differ, with both.
    static func mismatches(_ texts: [String]) -> [String] {
        texts.compactMap { text -> String? in
            var utf8 = Array(text.utf8)
            return utf8.withUnsafeMutableBytes { buffer -> String? in
                let view = JSONNumberView(bytes: UnsafeRawBufferPointer(buffer))
                return view.kind == view.value.kind ? nil : "\(text): kind \(view.kind), value \(view.value)"
            }
        }
    }

    @Test func edges() {
        let texts = [
            "0", "-0", "7", "-7", "922337203685477580", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "9999999999999999999", "10000000000000000000",
            "-10000000000000000000", "123456789012345678901234567890", "0.0", "-0.0", "0e5", "0E-5", "0.000",
            "0.000e999999", "0.001e309", "0.001e311", "0.1e309", "1e308", "1.7976931348623157e308",
            "1.7976931348623158e308", "1.7976931348623159e308", "9.9e307", "99.9e307", "1e309", "-1e309",
            "17976931348623157e292", "17976931348623159e292", "1e-400", "-1e-400", "5e-324", "2e-324",
            "1.0e+99999999999999999999", "1.0e-99999999999999999999",
            "0." + String(repeating: "0", count: 400) + "1e708",
            "0." + String(repeating: "0", count: 400) + "1e709", String(repeating: "9", count: 309) + ".0",
            String(repeating: "9", count: 308) + ".0", String(repeating: "1", count: 309) + ".5", "1.5",
            "-65.613616999999977",
        ]
        #expect(Self.mismatches(texts) == [])
    }

    /// The shape test reads eight bytes at a time, the last word overlapping: a point or an
    /// exponent at every position of every length from 1 to 40, and the lengths around 309 bytes,
    /// where the shape alone stops deciding.
    @Test func everyPositionOfPointAndExponent() {
        var texts: [String] = []
        for length in 1...40 {
            let digits = "7" + String(repeating: "3", count: length - 1)
            texts.append(digits)
            texts.append("-" + digits)
            for position in 1..<length {
                let index = digits.index(digits.startIndex, offsetBy: position)
                texts.append("\(digits[..<index]).\(digits[index...])")
                texts.append("\(digits[..<index])e\(digits[index...])")
                texts.append("-\(digits[..<index])E+\(digits[index...])")
                texts.append("\(digits[..<index]).0e-\(digits[index...])")
            }
        }
        for length in 305...312 {
            let nines = String(repeating: "9", count: length)
            texts += [nines, "-" + nines, nines + ".5", "-" + nines + ".5", String(nines.dropLast(2)) + ".5"]
            texts += ["1" + String(repeating: "0", count: length - 3) + ".0", "0." + nines, nines + "e-2"]
        }
        #expect(Self.mismatches(texts) == [])
    }

    @Test(arguments: 0..<4)
    func randomNumbersOfEveryShape(seed: UInt64) {
        var random = NumberParsingTests.SplitMix(state: 0xC0FFEE &+ seed)
        var texts: [String] = []
        for _ in 0..<25_000 {
            let digits = Int(random.next() % 25) + 1
            var number = String(Int(random.next() % 9) + 1)
            for _ in 1..<digits { number.append(Character(String(random.next() % 10))) }
            let sign = random.next() % 3 == 0 ? "-" : ""
            texts.append(sign + number)
            let exponent = Int(random.next() % 900) - 450
            let point = Int(random.next() % UInt64(digits))
            let index = number.index(number.startIndex, offsetBy: point)
            let decimal =
                point == 0
                ? "0." + String(repeating: "0", count: Int(random.next() % 4)) + number
                : "\(number[..<index]).\(number[index...])"
            texts.append(sign + decimal)
            texts.append(
                sign + decimal + (random.next() % 2 == 0 ? "e" : "E")
                    + (exponent >= 0 && random.next() % 2 == 0 ? "+" : "") + "\(exponent)"
            )
            texts.append(sign + number + "e\(exponent)")
            // Around Double's largest: magnitudes 306 to 310.
            texts.append(sign + decimal + "e\(306 + Int(random.next() % 5) - (point == 0 ? 0 : point - 1))")
        }
        #expect(Self.mismatches(texts) == [])
    }
}
