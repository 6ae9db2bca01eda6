private import CYAJL
private import CYAJLSupport

/// A place in the input: absolute byte offset, 1-based line and 1-based column (in bytes).
package struct SourcePosition: Sendable, Hashable {
    package var offset: Int
    package var line: Int
    package var column: Int

    package init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }
}

/// Tracks lines across chunks so that an error can name its line and column.
///
/// YAJL reports an error as an offset into the chunk it was given and knows nothing of earlier
/// chunks. After each chunk is accepted, this counts its newlines (a vectorizable byte loop, far
/// cheaper than parsing) and remembers where the last line starts, plus the last few bytes for the
/// error excerpt.
struct TextPosition {
    /// Newlines seen before the current chunk.
    private(set) var newlinesBefore = 0
    /// Absolute offset where the line that contains the current chunk's first byte starts.
    private(set) var lineStartBefore = 0
    /// Starts counting afresh at `lineStart`, on the line after `newlines` newlines (a parser
    /// that takes over the input there, after an NDJSON line that failed).
    mutating func rebase(newlines: Int, lineStart: Int) {
        self = TextPosition()
        newlinesBefore = newlines
        lineStartBefore = lineStart
    }

    /// The last bytes before the current chunk, for excerpts.
    private var tail: [UInt8] = []
    /// The last byte before the current chunk that is not white space, however far back.
    private var lastSignificant: UInt8?
    /// The backslashes that end the input before the current chunk (a run may span chunks).
    private(set) var trailingBackslashes = 0
    /// The last quote before the current chunk that no backslash escapes, however far back: the
    /// opening quote of a string still open at the chunk's start.
    private(set) var lastUnescapedQuote: Int?
    /// A forward-only cursor for ``line(at:in:base:)`` (capture.h, shared with the capture
    /// callbacks): newlines before its offset, where that offset's line starts, and the next
    /// newline in its chunk.
    private var cursor: cyajl_line_cursor = {
        var cursor = cyajl_line_cursor()
        cyajl_line_cursor_reset(&cursor)
        return cursor
    }()
    private static let tailLength = 64

    /// Accounts for a chunk that the parser has fully consumed, starting at absolute `base`.
    mutating func advance(over chunk: UnsafeRawBufferPointer, base: Int) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        let newlines = Self.countNewlines(bytes)
        if newlines > 0, let i = Self.lastIndex(of: UInt8(ascii: "\n"), in: chunk, before: chunk.count) {
            newlinesBefore += newlines
            lineStartBefore = base + i + 1
        }
        lastSignificant = lastSignificantByte(before: base + chunk.count, in: chunk, base: base)
        if let quote = Self.openingQuote(
            in: UnsafeRawBufferPointer(chunk),
            before: bytes.count,
            precededBy: trailingBackslashes
        ) {
            lastUnescapedQuote = base + quote
        }
        var run = 0
        while run < bytes.count && bytes[bytes.count - 1 - run] == UInt8(ascii: "\\") { run += 1 }
        trailingBackslashes = run == bytes.count ? trailingBackslashes + run : run
        if bytes.count >= Self.tailLength {
            tail = Array(bytes[(bytes.count - Self.tailLength)...])
        } else {
            tail.append(contentsOf: bytes)
            if tail.count > Self.tailLength { tail.removeFirst(tail.count - Self.tailLength) }
        }
    }

    /// The 1-based line of absolute `offset` in `chunk` (which starts at `base`). Successive calls
    /// with growing offsets scan each byte once, so asking for every record's line stays linear.
    mutating func line(at offset: Int, in chunk: UnsafeRawBufferPointer, base: Int) -> Int {
        lineAndColumn(forwardTo: offset, in: chunk, base: base).line
    }

    /// Line and column (1-based, the column in bytes) of absolute `offset` in `chunk`, with the
    /// same forward-only cursor as ``line(at:in:base:)``. Called for every captured value: the
    /// cursor keeps the next newline, so a value on the same line costs one comparison, and each
    /// newline is found once, eight bytes at a time.
    @inline(__always)
    mutating func lineAndColumn(
        forwardTo offset: Int,
        in chunk: UnsafeRawBufferPointer,
        base: Int
    ) -> (line: Int, column: Int) {
        var line = 0
        var column = 0
        cyajl_line_and_column(
            &cursor,
            offset,
            chunk.baseAddress?.assumingMemoryBound(to: UInt8.self),
            chunk.count,
            base,
            newlinesBefore,
            lineStartBefore,
            &line,
            &column
        )
        return (line, column)
    }

    /// The index of the last `"` before `end` in `bytes` that no backslash escapes (an odd run of
    /// them, counting the `precededBy` backslashes that end the input before `bytes` when a run
    /// reaches its start); `nil` when there is none.
    static func openingQuote(in bytes: UnsafeRawBufferPointer, before end: Int, precededBy earlier: Int) -> Int? {
        var limit = end
        while let i = lastIndex(of: UInt8(ascii: "\""), in: bytes, before: limit) {
            var slashes = 0
            var j = i - 1
            while j >= 0 && bytes[j] == UInt8(ascii: "\\") {
                slashes += 1
                j -= 1
            }
            if j < 0 { slashes += earlier }
            if slashes % 2 == 0 { return i }
            limit = i
        }
        return nil
    }

    /// The index of the last `byte` before `end` in `bytes` (memrchr: no per-byte loop in Swift).
    @inline(__always)
    static func lastIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, before end: Int) -> Int? {
        guard end > 0, let base = bytes.baseAddress else { return nil }
        let index = cyajl_last_index_of(base, Int32(byte), end)
        return index < 0 ? nil : index
    }

    /// How many bytes of the offending token lie before `chunk`, when that token was split by the
    /// chunk boundary: a number, or a literal (`true`, `false`, `null`); 0 if the chunk starts it.
    ///
    /// For one error (`after key and value, inside map, …`) YAJL moves the offset back to the
    /// offending token's start, but clamps it at the start of the chunk at hand; this undoes the
    /// clamp so offsets stay chunk-invariant. A number always needs one byte of lookahead, so a
    /// number at the very end of the previous bytes is still pending; a literal is pending only if
    /// the previous bytes end with a proper prefix of it. A string split across reads is not
    /// corrected: its start cannot be told from the last bytes alone.
    func lengthOfSplitToken(continuingInto chunk: UnsafeRawBufferPointer) -> Int {
        guard let last = tail.last else { return 0 }
        func isNumberByte(_ b: UInt8) -> Bool {
            b.isASCIIDigit || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
                || (b | 0x20) == UInt8(ascii: "e")
        }
        if isNumberByte(last) && last != UInt8(ascii: "e") || last.isASCIIDigit {
            var length = 0
            for byte in tail.reversed() {
                guard isNumberByte(byte) else { break }
                length += 1
            }
            return length
        }
        guard last.isASCIILetter, let first = chunk.first, first.isASCIILetter else { return 0 }
        var letters: [UInt8] = []
        for byte in tail.reversed() {
            guard byte.isASCIILetter else { break }
            letters.insert(byte, at: 0)
        }
        let literals: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]
        for literal in literals where letters.count < literal.count && literal.starts(with: letters) {
            return letters.count
        }
        return 0
    }

    /// The last byte before absolute `offset` that is not white space, looking back through
    /// `chunk` (starting at `base`) and then everything before it, however far back (so the
    /// answer does not depend on where the chunks were cut).
    func lastSignificantByte(before offset: Int, in chunk: UnsafeRawBufferPointer, base: Int) -> UInt8? {
        var i = max(0, min(offset - base, chunk.count)) - 1
        while i >= 0 {
            if !chunk[i].isJSONWhiteSpace { return chunk[i] }
            i -= 1
        }
        return lastSignificant
    }

    /// Line and column (1-based, column in bytes) of absolute `offset`, which lies in `chunk`
    /// (starting at absolute `base`) or just after it.
    func lineAndColumn(of offset: Int, in chunk: UnsafeRawBufferPointer, base: Int) -> (line: Int, column: Int) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        let relative = max(0, min(offset - base, bytes.count))
        let prefix = UnsafeBufferPointer(rebasing: bytes[..<relative])
        let newlines = Self.countNewlines(prefix)
        var lineStart = lineStartBefore
        if newlines > 0 {
            var i = relative - 1
            while prefix[i] != UInt8(ascii: "\n") { i -= 1 }
            lineStart = base + i + 1
        }
        return (newlinesBefore + newlines + 1, offset - lineStart + 1)
    }

    /// A printable excerpt around absolute `offset`, and the marker's position in it.
    /// Up to ``tailLength`` bytes of input just before `offset` (from the kept tail when the
    /// chunk starts later).
    func bytes(before offset: Int, in chunk: UnsafeRawBufferPointer, base: Int) -> [UInt8] {
        let bytes = chunk.bindMemory(to: UInt8.self)
        let relative = max(0, min(offset - base, bytes.count))
        var before = Array(tail.suffix(max(0, Self.tailLength - relative)))
        before += bytes[max(0, relative - Self.tailLength)..<relative]
        return before
    }

    func excerpt(around offset: Int, in chunk: UnsafeRawBufferPointer, base: Int) -> (String, Int) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        let relative = max(0, min(offset - base, bytes.count))
        var before = Array(tail.suffix(max(0, Self.tailLength - relative)))
        before += bytes[max(0, relative - Self.tailLength)..<relative]
        var after = Array(bytes[relative..<min(bytes.count, relative + 16)])
        // An offset shortly before the chunk (an escape proven wrong by a later byte): the marker
        // goes into the kept bytes.
        let back = min(base - offset, before.count)
        if back > 0 {
            after = Array(before.suffix(back)) + after
            before.removeLast(back)
        }
        // Keep the line of the error only: cut at the nearest newlines.
        if let lastNewline = before.lastIndex(of: UInt8(ascii: "\n")) { before.removeSubrange(...lastNewline) }
        let afterLine = after.prefix { $0 != UInt8(ascii: "\n") }
        let head = Self.printable(before)
        return (head + Self.printable(Array(afterLine)), head.count)
    }

    static func printable(_ bytes: [UInt8]) -> String {
        MessageText.printable(String(decoding: bytes, as: UTF8.self))
    }

    /// The newlines in `bytes` (16 bytes a step, in the C shim).
    @inline(__always)
    static func countNewlines(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        return cyajl_count_newlines(base, bytes.count)
    }
}
