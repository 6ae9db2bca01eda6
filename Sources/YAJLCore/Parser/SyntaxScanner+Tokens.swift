private import CYAJL

/// The tokens of ``SyntaxScanner``: each scanner starts in a state (the start of the token, or
/// where the previous read ended inside it) and returns the index after the token, or the end of
/// the read with its state saved, or `nil` when the bytes cannot be JSON.
extension SyntaxScanner {
    /// Inside a string: ``plain``, just after a backslash, or with 1 to 4 hexadecimal digits of a
    /// `\u` escape still to come (``hex1`` … ``hex4``); ``closed`` after its closing quote.
    enum StringState {
        static let plain: UInt8 = 0
        static let escape: UInt8 = 1
        static let hex1: UInt8 = 2
        static let hex4: UInt8 = 5
        static let closed: UInt8 = 6
    }

    /// Where a number is in its grammar; ``ended`` when the byte after it has been seen.
    enum NumberState {
        static let afterMinus: UInt8 = 0
        static let zero: UInt8 = 1
        static let integer: UInt8 = 2
        static let afterPoint: UInt8 = 3
        static let fraction: UInt8 = 4
        static let afterE: UInt8 = 5
        static let afterSign: UInt8 = 6
        static let exponent: UInt8 = 7
        static let ended: UInt8 = 8

        /// The state after a number's first byte (`-` or a digit).
        @inline(__always)
        static func first(_ byte: UInt8) -> UInt8 {
            byte == UInt8(ascii: "-") ? afterMinus : byte == UInt8(ascii: "0") ? zero : integer
        }

        /// Whether the number is complete if the input ends here.
        static func canEnd(_ state: UInt8) -> Bool {
            state == zero || state == integer || state == fraction || state == exponent
        }
    }

    /// A string's bytes from `start` (after its opening quote, or a read's start).
    @inline(__always)
    static func scanString(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int, _ state: inout UInt8) -> Int? {
        var index = start
        var current = state
        while true {
            switch current {
            case StringState.plain:
                index = firstQuoteBackslashOrControl(bytes, count, from: index)
                if index == count {
                    state = current
                    return count
                }
                let byte = bytes[index]
                index &+= 1
                if byte == UInt8(ascii: "\"") {
                    state = StringState.closed
                    return index
                }
                // A control character (below 0x20) must be escaped.
                guard byte == UInt8(ascii: "\\") else { return nil }
                // Escapes: 64 bytes at a time in C while whole blocks remain (escape_masks.h), to
                // the closing quote (a negative answer) or to where it leaves the rest to the
                // state machine here.
                let vouched = cyajl_scan_escaped_string(bytes, count, index &- 1)
                if vouched < 0 {
                    state = StringState.closed
                    return ~vouched
                }
                if vouched >= index {
                    index = vouched
                    continue
                }
                current = StringState.escape
            case StringState.escape:
                if index == count {
                    state = current
                    return count
                }
                let byte = bytes[index]
                index &+= 1
                switch byte {
                case UInt8(ascii: "u"): current = StringState.hex4
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    current = StringState.plain
                default:
                    return nil
                }
            default:
                if index == count {
                    state = current
                    return count
                }
                let byte = bytes[index]
                index &+= 1
                let isHex = byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6
                guard isHex else { return nil }
                current = current == StringState.hex1 ? StringState.plain : current &- 1
            }
        }
    }

    /// A number starting at `first`: the index of the first byte after it (which is left to the
    /// caller, as YAJL's lexer does) with `state` ``NumberState/ended``, or the end of the read
    /// with `state` saved, or `nil` if it is malformed. Straight through the grammar while the
    /// read lasts; a number the read cuts is taken again by the state machine (``scanNumber``).
    @inline(__always)
    static func scanNumber(_ bytes: UnsafePointer<UInt8>, _ count: Int, at first: Int, _ state: inout UInt8) -> Int? {
        // The byte at `index`, or 0 (which continues nothing) at the end of the read.
        @inline(__always) func at(_ index: Int) -> UInt8 { index < count ? bytes[index] : 0 }
        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
        var index = first &+ 1
        var byte = bytes[first]
        if byte == UInt8(ascii: "-") {
            byte = at(index)
            guard isDigit(byte) else { return index == count ? resume(at: first) : nil }
            index &+= 1
        }
        if byte != UInt8(ascii: "0") { index = skipDigits(bytes, count, from: index) }
        byte = at(index)
        if byte == UInt8(ascii: ".") {
            index &+= 1
            guard isDigit(at(index)) else { return index == count ? resume(at: first) : nil }
            index = skipDigits(bytes, count, from: index &+ 1)
            byte = at(index)
        }
        if byte | 0x20 == UInt8(ascii: "e") {
            index &+= 1
            byte = at(index)
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                index &+= 1
                byte = at(index)
            }
            guard isDigit(byte) else { return index == count ? resume(at: first) : nil }
            index = skipDigits(bytes, count, from: index &+ 1)
        }
        guard index < count else { return resume(at: first) }
        state = NumberState.ended
        return index

        // The read ends inside the number, or right after it: the state machine decides.
        func resume(at first: Int) -> Int? {
            var resumed = NumberState.first(bytes[first])
            let end = scanNumber(bytes, count, from: first &+ 1, &resumed)
            state = resumed
            return end
        }
    }

    /// A number's bytes from `start` (after its first byte, or a read's start), for a number a
    /// read may end inside. It ends at the first byte that cannot continue it, which is left to
    /// the caller (as YAJL's lexer does).
    @inline(never)
    static func scanNumber(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int, _ state: inout UInt8) -> Int? {
        var index = start
        var current = state
        while index < count {
            let byte = bytes[index]
            let isDigit = byte &- 0x30 < 10
            let isE = byte | 0x20 == UInt8(ascii: "e")
            switch current {
            case NumberState.afterMinus:
                guard isDigit else { return nil }
                current = byte == UInt8(ascii: "0") ? NumberState.zero : NumberState.integer
            case NumberState.zero, NumberState.integer, NumberState.fraction:
                if isDigit && current != NumberState.zero {
                    index = skipDigits(bytes, count, from: index &+ 1)
                    continue
                }
                if byte == UInt8(ascii: ".") && current != NumberState.fraction {
                    current = NumberState.afterPoint
                } else if isE {
                    current = NumberState.afterE
                } else {
                    state = NumberState.ended
                    return index
                }
            case NumberState.afterPoint, NumberState.afterSign:
                guard isDigit else { return nil }
                current = current == NumberState.afterPoint ? NumberState.fraction : NumberState.exponent
            case NumberState.afterE:
                if isDigit {
                    current = NumberState.exponent
                } else if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                    current = NumberState.afterSign
                } else {
                    return nil
                }
            default:
                guard isDigit else {
                    state = NumberState.ended
                    return index
                }
                index = skipDigits(bytes, count, from: index &+ 1)
                continue
            }
            index &+= 1
        }
        state = current
        return count
    }

    /// The index of the first byte from `start` that is not a digit, or `count`: eight bytes at a
    /// time while eight remain. With the digits' high nibble removed, a digit is a byte below 10:
    /// adding 0x76 sets the high bit of any other byte (or it was set already); a carry only
    /// leaves a byte that is flagged already, so the lowest flag is the first other byte.
    @inline(__always)
    static func skipDigits(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int) -> Int {
        var index = start
        while count &- index >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
            let low = word ^ 0x3030_3030_3030_3030
            let others = (low | (low &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
            if others != 0 { return index &+ others.trailingZeroBitCount >> 3 }
            index &+= 8
        }
        while index < count && bytes[index] &- 0x30 < 10 { index &+= 1 }
        return index
    }

    /// Whether a byte is white space for YAJL: space, tab, line feed, vertical tab, form feed or
    /// carriage return.
    @inline(__always)
    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte &- 0x09 < 5
    }

    /// The index of the first byte from `start` that is not white space, or `count`: 16 bytes at
    /// a time in C (`cyajl_skip_white_space_blocks`, SSE2) while 16 remain, then runs of spaces
    /// eight at a time.
    @inline(__always)
    static func skipWhiteSpace(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int) -> Int {
        var index = cyajl_skip_white_space_blocks(bytes, count, start)
        if count &- index >= 16 { return index }
        while index < count {
            if count &- index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
                let other = word ^ 0x2020_2020_2020_2020
                if other == 0 {
                    index &+= 8
                    continue
                }
                index &+= other.trailingZeroBitCount >> 3
            }
            guard isWhiteSpace(bytes[index]) else { return index }
            index &+= 1
        }
        return count
    }

    /// The bytes a literal needs after its first (`t`, `f` or `n`), first byte lowest.
    @inline(__always)
    static func literalRest(after first: UInt8) -> UInt32 {
        switch first {
        case UInt8(ascii: "t"): 0x65_75_72  // "rue"
        case UInt8(ascii: "f"): 0x65_73_6C_61  // "alse"
        default: 0x6C_6C_75  // "ull"
        }
    }

    /// A literal's remaining bytes from `start`; `remaining` counts down to 0 when it is complete.
    @inline(__always)
    static func scanLiteral(
        _ bytes: UnsafePointer<UInt8>,
        _ count: Int,
        from start: Int,
        _ rest: inout UInt32,
        _ remaining: inout UInt8
    ) -> Int? {
        var index = start
        while remaining > 0 {
            if index == count { return count }
            guard bytes[index] == UInt8(truncatingIfNeeded: rest) else { return nil }
            rest >>= 8
            remaining &-= 1
            index &+= 1
        }
        return index
    }
}
