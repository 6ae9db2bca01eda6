private import CYAJL

/// Converts YAJL's number text (already validated by its lexer) into a ``JSONNumber/Value``.
///
/// Integers take a digit loop with overflow checks. Doubles take Clinger's fast path (at most 19
/// significant digits, value below 2^53, power of ten at most 22: one correctly rounded IEEE
/// operation gives the exact answer), which covers nearly all real-world numbers; anything else
/// goes to `strtod_l` in the C locale through the shim.
enum JSONNumberParser {
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    static func classify(_ text: UnsafeRawBufferPointer) -> JSONNumber.Value {
        let count = text.count
        guard count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .unrepresentable
        }
        var i = 0
        let negative = base[0] == UInt8(ascii: "-")
        if negative { i = 1 }

        // Integer part, accumulated as a magnitude with overflow detection.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var overflowed = false
        while i < count {
            let digit = base[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if significantDigits > 0 || digit != 0 { significantDigits += 1 }
            if !overflowed {
                let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                if o1 || o2 { overflowed = true } else { mantissa = sum }
            }
            i += 1
        }
        if i == count {
            // No fraction, no exponent: an integer if it fits; else only its exact text is kept
            // (rounding it to a double would silently change it).
            if !overflowed {
                if negative {
                    if mantissa <= UInt64(Int64.max) { return .integer(-Int64(mantissa)) }
                    if mantissa == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
                } else if mantissa <= UInt64(Int64.max) {
                    return .integer(Int64(mantissa))
                }
            }
            return .unrepresentable
        }

        // Fraction.
        var exponent = 0
        if base[i] == UInt8(ascii: ".") {
            i += 1
            while i < count {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if significantDigits > 0 || digit != 0 { significantDigits += 1 }
                if !overflowed {
                    let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                    if o1 || o2 {
                        overflowed = true
                    } else {
                        mantissa = sum
                        exponent -= 1
                    }
                }
                i += 1
            }
        }
        // Exponent.
        if i < count && (base[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < count && (base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+")) {
                exponentNegative = base[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            while i < count {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if written < 100_000 { written = written * 10 + Int(digit) }
                i += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if !overflowed && significantDigits <= 19 && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 { value /= exactPowersOfTen[-exponent] } else { value *= exactPowersOfTen[exponent] }
            return .double(negative ? -value : value)
        }
        return slowDouble(base, count)
    }

    private static func slowDouble(_ base: UnsafePointer<UInt8>, _ count: Int) -> JSONNumber.Value {
        var ok: Int32 = 0
        let value = base.withMemoryRebound(to: CChar.self, capacity: count) { cyajl_strtod($0, count, &ok) }
        guard ok != 0, value.isFinite else { return .unrepresentable }
        return .double(value)
    }
}

/// The JSON number grammar (RFC 8259), for numbers that did not come through YAJL's lexer.
enum JSONNumberGrammar {
    static func isValid(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = text.count
        func digits() -> Int {
            let start = i
            while i < n, text[i].isASCIIDigit { i += 1 }
            return i - start
        }
        if i < n, text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return false }
        if text[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < n, text[i] == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { return false }
        }
        if i < n, (text[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { return false }
        }
        return i == n
    }
}
