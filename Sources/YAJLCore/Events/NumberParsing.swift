private import CYAJL
private import CYAJLSupport

/// Converts YAJL's number text (already validated by its lexer) into a ``JSONNumber/Value``.
///
/// One pass over the digits (a fraction eight at a time, its last one to seven digits from one
/// word) makes the mantissa when there are at most 19; a longer number is read again, digit by
/// digit, keeping the first 19 significant ones. Integers that fit are exact. Doubles take
/// Clinger's fast path (value below 2^53, power of ten at most 22: one correctly rounded
/// operation), else Eisel–Lemire (``EiselLemire``), which is exact for 19 digits; only a longer
/// decimal that Eisel–Lemire cannot decide goes to `strtod_l` in the C locale through the shim.
@usableFromInline
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
    ///
    /// Every digit goes into the mantissa without a check (wrapping), and the digits are counted
    /// from where they start and end: at most 19 of them (leading zeros included) always fit a
    /// `UInt64` exactly, and only a longer number is read again by ``classifyLong(_:_:)``, which
    /// keeps the first 19 significant digits.
    static func classify(_ text: UnsafeRawBufferPointer) -> JSONNumber.Value {
        let count = text.count
        guard count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .unrepresentable
        }
        let negative = base[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < count {
            let digit = base[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i &+= 1
        }
        var digits = i &- integerStart
        if i == count {
            // No fraction, no exponent: an integer if it fits (JSON's integers have no leading
            // zeros, so 20 digits are past Int64); else only its exact text is kept (rounding it
            // to a double would silently change it).
            guard digits <= 19 else { return .unrepresentable }
            if negative {
                if mantissa <= UInt64(Int64.max) { return .integer(-Int64(mantissa)) }
                if mantissa == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
            } else if mantissa <= UInt64(Int64.max) {
                return .integer(Int64(mantissa))
            }
            return .unrepresentable
        }
        var exponent = 0
        if base[i] == UInt8(ascii: ".") {
            i &+= 1
            let fractionStart = i
            while count &- i >= 8, let eight = eightDigits(base + i) {
                mantissa = mantissa &* 100_000_000 &+ eight
                i &+= 8
            }
            let left = count &- i
            if left > 0 && left < 8 && count >= 8, let tail = lastDigits(base + (count &- 8), left) {
                // The usual end of a fraction: its last one to seven digits end the text.
                mantissa = mantissa &* smallPowerOfTen(left) &+ tail
                i = count
            }
            while i < count {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                i &+= 1
            }
            digits &+= i &- fractionStart
            exponent = fractionStart &- i
        }
        guard digits <= 19 else { return classifyLong(base, count) }
        if i < count && (base[i] | 0x20) == UInt8(ascii: "e") {
            exponent &+= writtenExponent(base, i &+ 1, count)
        }
        let value: Double
        if mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            // Clinger's fast path: one correctly rounded operation on exact operands.
            value =
                exponent < 0
                ? Double(mantissa) / exactPowerOfTen(-exponent) : Double(mantissa) * exactPowerOfTen(exponent)
        } else {
            value = EiselLemire.double(mantissa, exponent)
        }
        guard value.isFinite else { return .unrepresentable }
        return .double(negative ? -value : value)
    }

    /// The exponent written from `start`, just after the `e` (a sign, then digits), clamped to
    /// ±100 000: anything past that is zero or infinity anyway.
    @inline(__always)
    private static func writtenExponent(_ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int) -> Int {
        var i = start
        var negative = false
        if i < count && (base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+")) {
            negative = base[i] == UInt8(ascii: "-")
            i &+= 1
        }
        var written = 0
        while i < count {
            let digit = base[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if written < 100_000 { written = written &* 10 &+ Int(digit) }
            i &+= 1
        }
        return negative ? -written : written
    }

    /// ``classify(_:)`` for a number of more than 19 digits (leading zeros included): the first 19
    /// significant digits exactly, the later ones only saying whether the decimal was cut
    /// (`truncated`) and moving the exponent. Digit by digit, out of line: rare, and its state
    /// would crowd the short path's registers.
    @inline(never)
    private static func classifyLong(_ base: UnsafePointer<UInt8>, _ count: Int) -> JSONNumber.Value {
        let negative = base[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        var mantissa: UInt64 = 0
        var digits = 0
        var truncated = false
        var exponent = 0
        var inFraction = false
        while i < count {
            let digit = base[i] &- UInt8(ascii: "0")
            if digit >= 10 {
                guard !inFraction, base[i] == UInt8(ascii: ".") else { break }
                inFraction = true
                i &+= 1
                continue
            }
            if digits < 19 {
                // Leading zeros are not significant: they only move the exponent (in a fraction).
                if mantissa | UInt64(digit) != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    digits &+= 1
                }
                if inFraction { exponent &-= 1 }
            } else {
                if !inFraction { exponent &+= 1 }
                truncated = truncated || digit != 0
            }
            i &+= 1
        }
        if i == count && !inFraction {
            // An integer of 20 digits or more (no leading zeros in JSON): past Int64, so only its
            // exact text is kept (rounding it to a double would silently change it).
            return .unrepresentable
        }
        if i < count && (base[i] | 0x20) == UInt8(ascii: "e") {
            exponent &+= writtenExponent(base, i &+ 1, count)
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

    /// The value of the last `count` (1 ... 7) of the eight bytes at `word` when they are all
    /// digits, else `nil`: one load, the bytes before them replaced by ASCII zeros ("000ddddd"
    /// has the value of "ddddd"), one digit test and one conversion for the whole run.
    @inline(__always)
    private static func lastDigits(_ word: UnsafePointer<UInt8>, _ count: Int) -> UInt64? {
        let value = UInt64(littleEndian: UnsafeRawPointer(word).loadUnaligned(as: UInt64.self))
        // Little-endian: the last bytes are the word's high ones; `shift` is 8 ... 56.
        let shift = UInt64(truncatingIfNeeded: 8 &* (8 &- count))
        return valueIfDigits(((value >> shift) << shift) | (0x3030_3030_3030_3030 >> (64 &- shift)))
    }

    /// Eight ASCII digits at `pointer` as their value, or `nil` when they are not all digits.
    @inline(__always)
    private static func eightDigits(_ pointer: UnsafePointer<UInt8>) -> UInt64? {
        valueIfDigits(UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)))
    }

    /// The value of a little-endian word of eight ASCII digits, or `nil` when a byte is not one
    /// (fast_float's SWAR test and multiplications).
    @inline(__always)
    private static func valueIfDigits(_ word: UInt64) -> UInt64? {
        guard ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080 == 0 else {
            return nil
        }
        return digitsValue(word)
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
