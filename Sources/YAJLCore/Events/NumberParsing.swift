private import CYAJL

/// Converts YAJL's number text (already validated by its lexer) into a ``JSONNumber/Value``.
///
/// One pass over the digits (eight at a time where it can) keeps the first 19 significant ones.
/// Integers that fit are exact. Doubles take Clinger's fast path (value below 2^53, power of ten
/// at most 22: one correctly rounded operation), else Eisel–Lemire (``EiselLemire``), which is
/// exact for 19 digits; only a longer decimal that Eisel–Lemire cannot decide goes to `strtod_l`
/// in the C locale through the shim.
enum JSONNumberParser {
    /// 10^`exponent` for 0 ... 22, the powers of ten a `Double` holds exactly (a switch, which the
    /// compiler makes a constant table: a global array cost a lazy-initialization check and a
    /// bounds check per number).
    @inline(__always)
    private static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// The value of validated JSON number text, from one pass over its digits: an `Int64` when it
    /// is an integer that fits, else the nearest `Double` (bit-exact with `strtod`), else
    /// `.unrepresentable` (an integer past `Int64`, a magnitude past `Double`).
    static func classify(_ text: UnsafeRawBufferPointer) -> JSONNumber.Value {
        let count = text.count
        guard count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .unrepresentable
        }
        var i = 0
        let negative = base[0] == UInt8(ascii: "-")
        if negative { i = 1 }

        // The first 19 significant digits, exactly (19 digits always fit a UInt64); later ones
        // only say whether the decimal was cut (`truncated`) and move the exponent.
        var mantissa: UInt64 = 0
        var digits = 0
        var truncated = false
        var exponent = 0
        // Integer part (mostly short): its first digit, then eight at a time while they come, then
        // one by one.
        if i < count, base[i] > UInt8(ascii: "0"), base[i] <= UInt8(ascii: "9") {
            mantissa = UInt64(base[i] &- UInt8(ascii: "0"))
            digits = 1
            i &+= 1
            takeEightDigitBlocks(base, &i, count, &mantissa, &digits)
        }
        while i < count {
            let digit = base[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if digits < 19 {
                if mantissa | UInt64(digit) != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    digits &+= 1
                }
            } else {
                exponent &+= 1
                truncated = truncated || digit != 0
            }
            i &+= 1
        }
        if i == count {
            // No fraction, no exponent: an integer if it fits; else only its exact text is kept
            // (rounding it to a double would silently change it).
            if exponent == 0 {
                if negative {
                    if mantissa <= UInt64(Int64.max) { return .integer(-Int64(mantissa)) }
                    if mantissa == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
                } else if mantissa <= UInt64(Int64.max) {
                    return .integer(Int64(mantissa))
                }
            }
            return .unrepresentable
        }
        // Fraction: each digit kept lowers the exponent (leading zeros too).
        if base[i] == UInt8(ascii: ".") {
            i &+= 1
            // Leading zeros of a fraction (mantissa still 0) are not significant: one by one below.
            if mantissa != 0 {
                let start = i
                takeEightDigitBlocks(base, &i, count, &mantissa, &digits)
                let run = shortRun(base, i, count, mantissa, digits)
                mantissa = run.mantissa
                digits &+= run.length
                i &+= run.length
                exponent &-= i &- start
            }
            while i < count {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if digits < 19 {
                    if mantissa | UInt64(digit) != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        digits &+= 1
                    }
                    exponent &-= 1
                } else {
                    truncated = truncated || digit != 0
                }
                i &+= 1
            }
        }
        // Exponent (clamped: anything past ±100 000 is zero or infinity anyway).
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
        let value: Double
        if !truncated && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            // Clinger's fast path: one correctly rounded operation on exact operands.
            value =
                exponent < 0
                ? Double(mantissa) / exactPowerOfTen(-exponent) : Double(mantissa) * exactPowerOfTen(exponent)
        } else if !truncated {
            value = EiselLemire.double(mantissa, exponent)
        } else {
            // More than 19 digits: the value lies between w and w + 1 (times 10^q). When both round
            // to the same double, that is the answer; else the exact, slow path decides.
            let low = EiselLemire.double(mantissa, exponent)
            guard low == EiselLemire.double(mantissa + 1, exponent) else { return slowDouble(base, count) }
            value = low
        }
        guard value.isFinite else { return .unrepresentable }
        return .double(negative ? -value : value)
    }

    /// 10^`exponent` for 1 ... 7 (a switch, which the compiler makes a table without a lazy global).
    @inline(__always)
    private static func smallPowerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        default: 10_000_000
        }
    }

    /// Takes the digits at `i` into `mantissa` eight at a time, while eight digits come and the
    /// mantissa keeps at most 19.
    @inline(__always)
    private static func takeEightDigitBlocks(
        _ base: UnsafePointer<UInt8>,
        _ i: inout Int,
        _ count: Int,
        _ mantissa: inout UInt64,
        _ digits: inout Int
    ) {
        while digits <= 11 && count &- i >= 8, let eight = eightDigits(base + i) {
            mantissa = mantissa &* 100_000_000 &+ eight
            digits &+= 8
            i &+= 8
        }
    }

    /// A run of one to seven digits at `i` taken into `mantissa` at once, from one word (the
    /// eight bytes at `i`, or the text's last eight when fewer are left), if the mantissa keeps at
    /// most 19 digits: the new mantissa and the run's length (0 when nothing was taken). The
    /// fraction's tail after ``takeEightDigitBlocks``; the caller goes on one by one after the run.
    /// Returned, not written through `inout`: the compiler did not inline this function, and
    /// passing the caller's variables by address kept them in memory, behind a stack protector.
    @inline(__always)
    private static func shortRun(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        _ count: Int,
        _ mantissa: UInt64,
        _ digits: Int
    ) -> (mantissa: UInt64, length: Int) {
        let left = count &- i
        guard left > 0, digits < 19 else { return (mantissa, 0) }
        // The bytes from `i` in the low end of a word (little-endian: the first byte lowest); when
        // fewer than eight are left, the bytes above them are zero, which the digit test below
        // flags like any other non-digit.
        let rest: UInt64
        if left >= 8 {
            rest = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        } else if count >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self))
            rest = word >> UInt64(truncatingIfNeeded: 8 &* (8 &- left))
        } else {
            return (mantissa, 0)
        }
        // The lowest flagged byte is the first non-digit: the bytes below it are digits, which
        // neither carry nor borrow into it.
        let nonDigits = ((rest &+ 0x4646_4646_4646_4646) | (rest &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080
        let run = nonDigits.trailingZeroBitCount >> 3
        guard run > 0, run < 8, digits &+ run <= 19 else { return (mantissa, 0) }
        // The run's digits in the high bytes, ASCII zeros below them: "000ddddd" has their value.
        let kept = rest & ((1 << UInt64(truncatingIfNeeded: 8 &* run)) &- 1)
        let padded =
            (kept << UInt64(truncatingIfNeeded: 8 &* (8 &- run)))
            | (0x3030_3030_3030_3030 >> UInt64(truncatingIfNeeded: 8 &* run))
        return (mantissa &* smallPowerOfTen(run) &+ digitsValue(padded), run)
    }

    /// Eight ASCII digits at `pointer` as their value, or `nil` when they are not all digits
    /// (fast_float's SWAR tests and multiplications).
    @inline(__always)
    private static func eightDigits(_ pointer: UnsafePointer<UInt8>) -> UInt64? {
        let value = UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
        guard ((value &+ 0x4646_4646_4646_4646) | (value &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080 == 0 else {
            return nil
        }
        return digitsValue(value)
    }

    /// The value of eight ASCII digits in a little-endian word (the first digit lowest).
    @inline(__always)
    private static func digitsValue(_ value: UInt64) -> UInt64 {
        var digits = value &- 0x3030_3030_3030_3030
        digits = (digits &* 10) &+ (digits >> 8)
        let mask: UInt64 = 0x0000_00FF_0000_00FF
        digits = ((digits & mask) &* 0x000F_4240_0000_0064 &+ ((digits >> 16) & mask) &* 0x0000_2710_0000_0001) >> 32
        return UInt64(UInt32(truncatingIfNeeded: digits))
    }

    /// `strtod_l` in the C locale: the exact answer, for the rare decimals of more than 19 digits
    /// that Eisel–Lemire cannot decide. Also the reference the tests compare with.
    static func strtodValue(_ text: UnsafeRawBufferPointer) -> Double {
        var ok: Int32 = 0
        return text.withMemoryRebound(to: CChar.self) { cyajl_strtod($0.baseAddress!, $0.count, &ok) }
    }

    /// Out of line: its `ok` flag, passed to C by address, put a stack protector on the caller.
    @inline(never)
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
