extension JSONNumberParser {
    /// The ``JSONNumber/Kind`` of validated number text, as ``classify(_:)`` would find it, from
    /// the text's shape:
    /// - no fraction and no exponent: an integer of at most 18 digits fits `Int64`, one of 20 or
    ///   more does not, and 19 digits are classified to decide;
    /// - otherwise a `Double`, finite unless its decimal magnitude `m` (the value lies in
    ///   [10^m, 10^(m+1))) reaches `Double`'s largest, about 1.8 × 10^308: below 308 it is finite,
    ///   above it the value rounds to infinity, and at 308 it is classified to decide. Zero and
    ///   values that underflow are finite.
    static func kind(_ text: UnsafeRawBufferPointer) -> JSONNumber.Kind {
        let count = text.count
        guard count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .unrepresentable
        }
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
}
