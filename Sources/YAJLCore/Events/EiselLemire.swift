private import CYAJL
private import CYAJLSupport

/// Decimal to binary64 by the Eisel–Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per
/// Second", 2021; the form of fast_float's `compute_float`): `w × 10^q` correctly rounded from one
/// or two 64×64→128-bit products with a table of 128-bit powers of five
/// (`Sources/CYAJL/powers_of_five.h`).
///
/// Exact for every `w` of at most 19 digits (Mushtak and Lemire, "Fast Number Parsing Without
/// Fallback", 2023). With more digits `w` is a truncation: the caller computes `w` and `w + 1`
/// and falls back to `strtod` only when they round differently.
enum EiselLemire {
    private static let smallestPowerOfTen = -342
    private static let largestPowerOfTen = 308
    /// The read-only C table (a pointer to constant data), taken from the inline C accessor at
    /// each use: a Swift `static let` cost a lazy-initialization check per number.
    @inline(__always)
    private static var table: UnsafePointer<UInt64> { cyajl_powers_of_five_table().unsafelyUnwrapped }

    /// The double nearest to `w × 10^q` (ties to even), positive; `w` may be 0.
    static func double(_ w: UInt64, _ q: Int) -> Double {
        if w == 0 || q < smallestPowerOfTen { return 0 }
        if q > largestPowerOfTen { return .infinity }
        let leadingZeros = w.leadingZeroBitCount
        let w = w << leadingZeros
        // The product's top 55 bits (52 explicit, the implicit one, one to round, one to spare).
        let index = 2 * (q - smallestPowerOfTen)
        var (high, low) = w.multipliedFullWidth(by: table[index])
        let precisionMask: UInt64 = 0xFFFF_FFFF_FFFF_FFFF >> 55
        if high & precisionMask == precisionMask {
            // The truncated power may matter: add the product with its low word.
            let second = w.multipliedFullWidth(by: table[index + 1]).high
            low &+= second
            if second > low { high &+= 1 }
        }
        let upperBit = Int(high >> 63)
        let shift = upperBit + 64 - 52 - 3
        var mantissa = high >> UInt64(shift)
        // power(q) = floor(q × log2(10)) + 63, by a fixed-point multiply.
        var power2 = (((152_170 + 65_536) * q) >> 16) + 63 + upperBit - leadingZeros + 1023
        if power2 <= 0 {
            // Subnormal (or zero): shift into place, round, and see whether rounding carried into
            // the normal range.
            if -power2 + 1 >= 64 { return 0 }
            mantissa >>= UInt64(-power2 + 1)
            mantissa += mantissa & 1
            mantissa >>= 1
            power2 = mantissa < (1 << 52) ? 0 : 1
            return Double(bitPattern: UInt64(power2) << 52 | (mantissa & ((1 << 52) - 1)))
        }
        // Exactly halfway between two doubles (only possible for small q): round to even.
        if low <= 1 && q >= -4 && q <= 23 && mantissa & 3 == 1 && mantissa << UInt64(shift) == high {
            mantissa &= ~1
        }
        mantissa += mantissa & 1
        mantissa >>= 1
        if mantissa >= 2 << 52 {
            mantissa = 1 << 52
            power2 += 1
        }
        mantissa &= ~(1 << 52)
        if power2 >= 0x7FF { return .infinity }
        return Double(bitPattern: UInt64(power2) << 52 | mantissa)
    }
}
