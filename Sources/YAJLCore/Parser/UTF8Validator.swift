private import CYAJL
private import CYAJLSupport

/// Whether the vector fast path (`cyajl_valid_utf8_prefix`, SSSE3) runs on this CPU.
let utf8VectorPathAvailable = cyajl_utf8_prefix_available() != 0

/// Strict UTF-8 validation of the input, across chunks, as Unicode's Table 3-7 defines it.
///
/// YAJL's own check accepts overlong forms (`C0 AF`, `E0 80 AF`), code points past U+10FFFF
/// (`F4 90 80 80`, `F5…`) and encoded surrogates (`ED A0 80`). The parser runs this before YAJL
/// sees the bytes, so with ``JSONParser/Options/validatesUTF8`` on, no such byte reaches a handler
/// or an output. ASCII is skipped eight bytes at a time and a whole sequence inside the chunk is
/// checked in one step; the state (continuation bytes still expected and their allowed range) of
/// a sequence cut by the chunk's end carries to the next chunk. The same pass checks `\u`
/// escapes for lone surrogates (``SurrogateEscapeCheck``), which YAJL would decode wrongly.
struct UTF8Validator {
    /// Continuation bytes still expected in the current sequence.
    private var remaining = 0
    /// The allowed range of the next continuation byte (narrower right after some lead bytes).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// Absolute offset of the current sequence's lead byte.
    private var leadOffset = 0
    /// `\u` escapes of lone surrogates, found in the same pass.
    private var escapes = SurrogateEscapeCheck()
    /// Whether runs of valid input are skipped 16 bytes at a time by the vector fast path
    /// (`utf8_prefix.h`); what it does not vouch for is checked here, byte by byte. Tests turn it
    /// off to compare.
    package var usesVectorPath = utf8VectorPathAvailable

    /// The first invalid sequence in a chunk.
    struct Failure {
        /// Absolute offset of the sequence's first byte (where the error is reported).
        let leadOffset: Int
        /// Absolute offset of the byte that made it invalid (the lead itself, or a later byte).
        let byteOffset: Int
        /// Where the input is fed to YAJL up to (exclusive) before the error is thrown, so that an
        /// error YAJL finds earlier is reported first.
        let feedEnd: Int
        /// What is wrong, in words.
        let reason: String

        /// A failure; by default fed up to the lead byte, and through it when it is valid (a bad
        /// lead outside a string is then YAJL's invalid character, as with 1-byte chunks).
        init(leadOffset: Int, byteOffset: Int, feedEnd: Int? = nil, reason: String) {
            self.leadOffset = leadOffset
            self.byteOffset = byteOffset
            self.feedEnd = feedEnd ?? (byteOffset > leadOffset ? leadOffset + 1 : leadOffset)
            self.reason = reason
        }
    }

    /// Validates `bytes`, which start at absolute offset `base`; `nil` when they are valid so far
    /// (a sequence may continue into the next chunk).
    mutating func validate(_ bytes: UnsafeRawBufferPointer, base: Int) -> Failure? {
        guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        // The state in locals for the loop (registers), written back once.
        var remaining = self.remaining
        var lower = self.lower
        var upper = self.upper
        var leadOffset = self.leadOffset
        defer {
            self.remaining = remaining
            self.lower = lower
            self.upper = upper
            self.leadOffset = leadOffset
        }
        let count = bytes.count
        var i = 0
        // Whether an escape cut by a chunk's end (or a wrong one) is being read byte by byte.
        var escaping = escapes.isActive
        // Where the vector fast path may run next (it stopped before something it leaves to the
        // byte-by-byte check: at least the next 16 bytes are checked here first).
        var nextVector = usesVectorPath ? 0 : Int.max
        while i < count {
            if escaping {
                let (consumed, failure) = escapes.step(start[i], at: base &+ i)
                if let failure { return failure }
                escaping = escapes.isActive
                if consumed {
                    i &+= 1
                    continue
                }
            }
            if remaining == 0 {
                if !escaping && i >= nextVector && count &- i >= 64 {
                    i &+= cyajl_valid_utf8_prefix(start + i, count &- i, 1)
                    nextVector = i &+ 16
                    guard i < count else { return nil }
                }
                // ASCII fast path: eight bytes at a time; the first byte with its high bit set, or
                // a backslash, is found from the word's masks (little-endian: the lowest set bit is
                // the first byte; a zero byte of `word ^ 0x5C…` is a backslash).
                var found = false
                while i &+ 8 <= count {
                    let word = UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self).littleEndian
                    let flipped = word ^ 0x5C5C_5C5C_5C5C_5C5C
                    let marks = (word & 0x8080_8080_8080_8080) | bytesBelow(1, in: flipped)
                    if marks != 0 {
                        i &+= marks.trailingZeroBitCount &>> 3
                        found = true
                        break
                    }
                    i &+= 8
                }
                if !found {
                    while i < count && start[i] < 0x80 && start[i] != UInt8(ascii: "\\") { i &+= 1 }
                    guard i < count else { return nil }
                }
                let lead = start[i]
                if lead == UInt8(ascii: "\\") {
                    // An escape inside the chunk is checked in one step: a simple one, a `\u` of a
                    // non-surrogate, or a surrogate pair. A cut or wrong one goes byte by byte
                    // through the escape check, which finds where and why.
                    if i &+ 1 < count && start[i &+ 1] < 0x80 && start[i &+ 1] != UInt8(ascii: "u") {
                        i &+= 2
                        continue
                    }
                    if i &+ 5 < count && start[i &+ 1] == UInt8(ascii: "u"), let code = Self.hex4(start + (i &+ 2)) {
                        if code < 0xD800 || code > 0xDFFF {
                            i &+= 6
                            continue
                        }
                        if code <= 0xDBFF && i &+ 11 < count && start[i &+ 6] == UInt8(ascii: "\\")
                            && start[i &+ 7] == UInt8(ascii: "u"),
                            let low = Self.hex4(start + (i &+ 8)), low >= 0xDC00 && low <= 0xDFFF
                        {
                            i &+= 12
                            continue
                        }
                    }
                    escapes.begin(at: base &+ i)
                    escaping = true
                    i &+= 1
                    continue
                }
                // Whole sequences that lie inside the chunk are checked in one step; only one that
                // is cut by the chunk's end goes through the byte-at-a-time state below.
                if lead >= 0xC2 && lead <= 0xDF && i &+ 1 < count && start[i &+ 1] & 0xC0 == 0x80 {
                    i &+= 2
                    continue
                }
                if lead >= 0xE0 && lead <= 0xEF && i &+ 2 < count {
                    let second = start[i &+ 1]
                    let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                    let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                    if second >= low && second <= high && start[i &+ 2] & 0xC0 == 0x80 {
                        i &+= 3
                        continue
                    }
                } else if lead >= 0xF0 && lead <= 0xF4 && i &+ 3 < count {
                    let second = start[i &+ 1]
                    let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                    let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                    if second >= low && second <= high && start[i &+ 2] & 0xC0 == 0x80 && start[i &+ 3] & 0xC0 == 0x80 {
                        i &+= 4
                        continue
                    }
                }
                // A cut or invalid sequence: the state machine finds where and why.
                leadOffset = base &+ i
                lower = 0x80
                upper = 0xBF
                if lead >= 0xC2 && lead <= 0xDF {
                    remaining = 1
                } else if lead >= 0xE0 && lead <= 0xEF {
                    remaining = 2
                    if lead == 0xE0 { lower = 0xA0 } else if lead == 0xED { upper = 0x9F }
                } else if lead >= 0xF0 && lead <= 0xF4 {
                    remaining = 3
                    if lead == 0xF0 { lower = 0x90 } else if lead == 0xF4 { upper = 0x8F }
                } else {
                    let reason: String
                    switch lead {
                    case 0x80...0xBF: reason = "a continuation byte without a lead byte"
                    case 0xC0, 0xC1: reason = "an overlong encoding"
                    case 0xF5...0xF7: reason = "a code point beyond U+10FFFF"
                    default: reason = "a byte that never occurs in UTF-8"
                    }
                    return Failure(leadOffset: base &+ i, byteOffset: base &+ i, reason: reason)
                }
                i &+= 1
                continue
            }
            let byte = start[i]
            guard byte >= lower && byte <= upper else {
                let failure = Failure(
                    leadOffset: leadOffset,
                    byteOffset: base &+ i,
                    reason: Self.reason(byte, lower, upper)
                )
                remaining = 0
                return failure
            }
            lower = 0x80
            upper = 0xBF
            remaining &-= 1
            i &+= 1
        }
        return nil
    }

    /// The value of four hex digits at `bytes`; `nil` if one is not a hex digit.
    @inline(__always)
    private static func hex4(_ bytes: UnsafePointer<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let digit = SurrogateEscapeCheck.hexValue(bytes[k]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    /// Why a continuation byte was refused.
    private static func reason(_ byte: UInt8, _ lower: UInt8, _ upper: UInt8) -> String {
        guard byte >= 0x80 && byte <= 0xBF else { return "a sequence cut short" }
        if lower == 0xA0 || lower == 0x90 { return "an overlong encoding" }
        if upper == 0x9F { return "an encoded surrogate (U+D800 to U+DFFF)" }
        if upper == 0x8F { return "a code point beyond U+10FFFF" }
        return "a sequence cut short"
    }
}
