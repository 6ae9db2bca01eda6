extension JSONNumberParser {
    /// The ``JSONNumber/Kind`` of validated number text, as ``classify(_:)`` would find it, from
    /// the text's shape:
    /// - no fraction and no exponent: an integer of at most 18 digits fits `Int64`, one of 20 or
    ///   more does not, and 19 digits are classified to decide;
    /// - otherwise a `Double`, finite unless its decimal magnitude `m` (the value lies in
    ///   [10^m, 10^(m+1))) reaches `Double`'s largest, about 1.8 × 10^308: below 308 it is finite,
    ///   above it the value rounds to infinity, and at 308 it is classified to decide. Zero and
    ///   values that underflow are finite.
    @usableFromInline
    static func kind(_ text: UnsafeRawBufferPointer) -> JSONNumber.Kind {
        let count = text.count
        guard count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .unrepresentable
        }
        // Up to 16 bytes: the marks from two overlapping loads, with no loop. Such an integer has
        // at most 16 digits and fits `Int64`; such a decimal without an exponent has at most 15
        // digits and is a finite Double.
        if count <= 16 {
            let (hasPoint, hasExponent) = shortMarks(base, count)
            if !hasExponent { return hasPoint ? .double : .integer }
            return kindFromMagnitude(text, base, count)
        }
        // The usual number has no exponent and at most 308 digits before any point: then a point
        // makes it a finite Double (its magnitude is below 308), and without one its digit count
        // decides. Both marks are found eight bytes at a time.
        if count <= 309 {
            let (hasPoint, hasExponent) = marks(base, count)
            if !hasExponent {
                if hasPoint { return .double }
                let digits = base[0] == UInt8(ascii: "-") ? count &- 1 : count
                if digits < 19 { return .integer }
                if digits > 19 { return .unrepresentable }
                return classify(text).kind
            }
        }
        return kindFromMagnitude(text, base, count)
    }

    /// ``kind(_:)`` for a number with an exponent or of more than 309 bytes: from its decimal
    /// magnitude. Out of line, so that the usual case's function keeps few registers.
    @inline(never)
    private static func kindFromMagnitude(
        _ text: UnsafeRawBufferPointer,
        _ base: UnsafePointer<UInt8>,
        _ count: Int
    ) -> JSONNumber.Kind {
        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
        let integerStart = base[0] == UInt8(ascii: "-") ? 1 : 0
        var i = integerStart
        while i < count && isDigit(base[i]) { i &+= 1 }
        let integerDigits = i &- integerStart
        if i == count {
            if integerDigits < 19 { return .integer }
            if integerDigits > 19 { return .unrepresentable }
            return classify(text).kind
        }
        // The magnitude of the first significant digit, before the exponent.
        var magnitude: Int
        if integerStart < count && base[integerStart] != UInt8(ascii: "0") {
            magnitude = integerDigits &- 1
        } else {
            // "0": the first nonzero digit of the fraction, if any.
            var j = i
            if base[j] == UInt8(ascii: ".") {
                j &+= 1
                while j < count && base[j] == UInt8(ascii: "0") { j &+= 1 }
            }
            guard j < count, isDigit(base[j]), j > i else { return .double }  // zero
            magnitude = -(j &- i)
        }
        // Past the fraction, to the exponent (clamped as in classify: past ±100 000 nothing changes).
        while i < count && (base[i] | 0x20) != UInt8(ascii: "e") { i &+= 1 }
        if i < count {
            i &+= 1
            var negative = false
            if i < count && (base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+")) {
                negative = base[i] == UInt8(ascii: "-")
                i &+= 1
            }
            var written = 0
            while i < count && isDigit(base[i]) {
                if written < 100_000 { written = written &* 10 &+ Int(base[i] &- 0x30) }
                i &+= 1
            }
            magnitude &+= negative ? -written : written
        }
        if magnitude < 308 { return .double }
        if magnitude > 308 { return .unrepresentable }
        return classify(text).kind
    }

    /// ``marks(_:_:)`` for 1 to 16 bytes: every byte is read by one of two overlapping loads (of
    /// eight, four or one bytes as the count allows), so there is no loop. In validated number text
    /// only `e` and `E` have the 0x40 bit, and only `.` is 0x2E.
    @inline(__always)
    private static func shortMarks(_ base: UnsafePointer<UInt8>, _ count: Int) -> (point: Bool, exponent: Bool) {
        let raw = UnsafeRawPointer(base)
        let first: UInt64
        let last: UInt64
        if count >= 8 {
            first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
        } else if count >= 4 {
            first = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            last = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
        } else {
            // One to three bytes: the first, the middle and the last; the other bytes are zero,
            // which has neither mark.
            first = UInt64(base[0]) | UInt64(base[count &>> 1]) &<< 8
            last = UInt64(base[count &- 1])
        }
        let exponent = (first | last) & 0x4040_4040_4040_4040 != 0
        let points = bytesBelow(1, in: first ^ 0x2E2E_2E2E_2E2E_2E2E) | bytesBelow(1, in: last ^ 0x2E2E_2E2E_2E2E_2E2E)
        return (points != 0, exponent)
    }

    /// Whether the number text has a decimal point and whether it has an exponent (`e` or `E`):
    /// eight bytes a test, the last word overlapping the one before it. Once 0x20 is set in a
    /// byte, only `e` and `E` become `e` (digits, `.`, `-` and `+` have that bit already).
    @inline(__always)
    private static func marks(_ base: UnsafePointer<UInt8>, _ count: Int) -> (point: Bool, exponent: Bool) {
        @inline(__always) func word(_ at: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
        }
        guard count >= 8 else {
            var point = false
            for k in 0..<count {
                if base[k] | 0x20 == UInt8(ascii: "e") { return (point, true) }
                point = point || base[k] == UInt8(ascii: ".")
            }
            return (point, false)
        }
        var point = false
        var at = 0
        while true {
            let bytes = word(at)
            if bytesBelow(1, in: (bytes | 0x2020_2020_2020_2020) ^ 0x6565_6565_6565_6565) != 0 {
                return (point, true)
            }
            point = point || bytesBelow(1, in: bytes ^ 0x2E2E_2E2E_2E2E_2E2E) != 0
            if at == count &- 8 { return (point, false) }
            at = min(at &+ 8, count &- 8)
        }
    }
}
