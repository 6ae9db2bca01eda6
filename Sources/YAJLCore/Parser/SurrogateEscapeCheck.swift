/// Rejects `\u` escapes of lone surrogates, which YAJL decodes silently wrong: a high surrogate
/// without a low one after it becomes `?`, a low one without a high one before it becomes the
/// bytes of an encoded surrogate (invalid UTF-8). `JSONDecoder` refuses both; so does the parser
/// with ``JSONParser/Options/validatesUTF8`` on.
///
/// Runs inside ``UTF8Validator``'s pass over the raw input, a byte at a time from a backslash to
/// the end of its escape (escapes are rare; the validator's fast path finds backslashes eight
/// bytes at a time). The state carries across chunks.
struct SurrogateEscapeCheck {
    private enum State {
        case idle
        /// After `\`.
        case backslash
        /// In the 4 hex digits of `\u` (`low`: the escape after a high surrogate).
        case hex(digits: Int, value: UInt32, low: Bool)
        /// After a high surrogate: `\` expected, then `u`.
        case afterHigh
        case afterHighBackslash
    }

    private var state = State.idle
    /// Where the current escape starts, and the pending high surrogate's escape and value.
    private var escapeStart = 0
    private var highStart = 0
    private var highValue: UInt32 = 0

    /// Whether a backslash escape is being read (every byte goes through ``step(_:at:)``).
    var isActive: Bool {
        if case .idle = state { return false }
        return true
    }

    /// A backslash at absolute `offset`, outside any escape.
    mutating func begin(at offset: Int) {
        state = .backslash
        escapeStart = offset
    }

    /// The next byte of an escape at absolute `offset`: whether it belongs to the escape, and the
    /// failure it proves. A byte that does not fit the escape ends it unconsumed (YAJL reports a
    /// malformed escape itself).
    mutating func step(_ byte: UInt8, at offset: Int) -> (consumed: Bool, failure: UTF8Validator.Failure?) {
        switch state {
        case .idle:
            return (false, nil)
        case .backslash:
            state = byte == UInt8(ascii: "u") ? .hex(digits: 0, value: 0, low: false) : .idle
            // A non-ASCII byte after a backslash is no escape (YAJL reports it): it is still UTF-8
            // to check.
            return (byte < 0x80, nil)
        case .hex(let digits, let value, let low):
            guard let digit = Self.hexValue(byte) else {
                state = .idle
                return (false, nil)
            }
            let code = value << 4 | digit
            guard digits == 3 else {
                state = .hex(digits: digits + 1, value: code, low: low)
                return (true, nil)
            }
            state = .idle
            let isHigh = (0xD800...0xDBFF).contains(code)
            let isLow = (0xDC00...0xDFFF).contains(code)
            if low {
                // The escape after a high surrogate must be a low one.
                if isLow { return (true, nil) }
                return (true, loneHigh(proof: offset))
            }
            if isHigh {
                state = .afterHigh
                highStart = escapeStart
                highValue = code
                return (true, nil)
            }
            if isLow {
                return (
                    true,
                    UTF8Validator.Failure(
                        leadOffset: escapeStart,
                        byteOffset: offset,
                        feedEnd: offset,
                        reason: "an escaped low surrogate \\u\(Self.hex(code)) without a high surrogate before it"
                    )
                )
            }
            return (true, nil)
        case .afterHigh:
            guard byte == UInt8(ascii: "\\") else {
                state = .idle
                return (false, loneHigh(proof: offset))
            }
            state = .afterHighBackslash
            escapeStart = offset
            return (true, nil)
        case .afterHighBackslash:
            guard byte == UInt8(ascii: "u") else {
                state = .idle
                return (false, loneHigh(proof: offset))
            }
            state = .hex(digits: 0, value: 0, low: true)
            return (true, nil)
        }
    }

    private func loneHigh(proof: Int) -> UTF8Validator.Failure {
        UTF8Validator.Failure(
            leadOffset: highStart,
            byteOffset: proof,
            feedEnd: proof,
            reason: "an escaped high surrogate \\u\(Self.hex(highValue)) without a low surrogate after it"
        )
    }

    /// The value of one hex digit; `nil` for any other byte.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private static func hex(_ code: UInt32) -> String {
        let text = String(code, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
