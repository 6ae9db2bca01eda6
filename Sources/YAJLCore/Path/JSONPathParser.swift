/// A recursive-descent parser for RFC 9535's grammar (§2 and its appendix A), with the
/// well-typedness rules of function expressions (§2.4.3).
///
/// It works on Unicode scalars: error positions count scalars, as the grammar does.
struct JSONPathParser {
    let scalars: [Unicode.Scalar]
    let expression: String
    var position = 0
    /// How deeply parentheses, functions and nested filters are open.
    var nesting = 0

    /// Longer queries are refused: they can only be hostile, and the streaming matcher has 64
    /// states for all the paths of one pass.
    static let maxSegments = 60
    /// Deeper filter expressions are refused (each level is a stack frame of the parser and of
    /// the evaluator).
    static let maxNesting = 64
    /// The largest index or slice bound: I-JSON's exact integer range.
    static let maxIndex = (1 << 53) - 1

    init(_ expression: String) {
        self.expression = expression
        scalars = Array(expression.unicodeScalars)
    }

    // MARK: Characters

    var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    func error(_ message: String, at position: Int? = nil) -> JSONPathSyntaxError {
        JSONPathSyntaxError(
            expression: expression,
            position: min(position ?? self.position, scalars.count),
            message: message
        )
    }

    /// What the current character is, for messages: the character, or "the end".
    var found: String {
        guard let current else { return "the end of the query" }
        return "'\(JSONPathSyntaxError.visible(current))'"
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    mutating func skipBlanks() {
        while let c = current, Self.isBlank(c) { position += 1 }
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ what: String) throws(JSONPathSyntaxError) {
        guard current == scalar else { throw error("expected \(what), found \(found)") }
        position += 1
    }

    mutating func enter() throws(JSONPathSyntaxError) {
        nesting += 1
        if nesting > Self.maxNesting { throw error("the filter is nested more than \(Self.maxNesting) levels deep") }
    }

    // MARK: Queries

    /// `jsonpath-query`: the whole expression.
    mutating func parseWholeQuery() throws(JSONPathSyntaxError) -> [JSONPathQuery.Segment] {
        guard current == "$" else {
            if let c = current, Self.isBlank(c) { throw error("white space before '$' is not allowed") }
            throw error("a JSONPath starts with '$'")
        }
        position += 1
        let segments = try parseSegments()
        guard position == scalars.count else {
            let blank = position
            skipBlanks()
            if position == scalars.count {
                throw error("white space at the end of the query is not allowed", at: blank)
            }
            throw error("expected '.', '..' or '[', found \(found)")
        }
        return segments
    }

    /// `segments`: any number of segments, each after optional blanks.
    mutating func parseSegments() throws(JSONPathSyntaxError) -> [JSONPathQuery.Segment] {
        var segments: [JSONPathQuery.Segment] = []
        while true {
            let start = position
            skipBlanks()
            guard current == "." || current == "[" else {
                position = start
                return segments
            }
            segments.append(try parseSegment())
            if segments.count > Self.maxSegments { throw error("more than \(Self.maxSegments) segments") }
        }
    }

    private mutating func parseSegment() throws(JSONPathSyntaxError) -> JSONPathQuery.Segment {
        if current == "[" { return .init(selectors: try parseBracketed(), isDescendant: false) }
        position += 1  // .
        let descendant = current == "."
        if descendant { position += 1 }
        switch current {
        case "[" where descendant: return .init(selectors: try parseBracketed(), isDescendant: true)
        case "*":
            position += 1
            return .init(selectors: [.wildcard], isDescendant: descendant)
        case let c? where Self.isNameFirst(c):
            return .init(selectors: [.key(parseShorthandName())], isDescendant: descendant)
        default:
            let expected = descendant ? "a name, '*' or '['" : "a name or '*'"
            throw error("expected \(expected) after '\(descendant ? ".." : ".")', found \(found)")
        }
    }

    private static func isNameFirst(_ c: Unicode.Scalar) -> Bool {
        (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A) || c == "_"
            || (c.value >= 0x80 && c.value <= 0xD7FF) || c.value >= 0xE000
    }

    private mutating func parseShorthandName() -> String {
        var name = String.UnicodeScalarView()
        while let c = current, Self.isNameFirst(c) || (c.value >= 0x30 && c.value <= 0x39) {
            name.append(c)
            position += 1
        }
        return String(name)
    }

    /// `bracketed-selection`: `[` selectors separated by commas `]`.
    private mutating func parseBracketed() throws(JSONPathSyntaxError) -> [JSONPathQuery.Selector] {
        let open = position
        position += 1  // [
        var selectors: [JSONPathQuery.Selector] = []
        while true {
            skipBlanks()
            if current == nil { throw error("unclosed '['", at: open) }
            selectors.append(try parseSelector())
            skipBlanks()
            switch current {
            case ",": position += 1
            case "]":
                position += 1
                return selectors
            case nil: throw error("expected ',' or ']' to close the '[' at character \(open + 1)")
            default: throw error("expected ',' or ']', found \(found)")
            }
        }
    }

    private mutating func parseSelector() throws(JSONPathSyntaxError) -> JSONPathQuery.Selector {
        switch current {
        case "'", "\"": return .key(try parseStringLiteral())
        case "*":
            position += 1
            return .wildcard
        case "?":
            position += 1
            let start = position
            try enter()
            skipBlanks()
            let expression = try logical(parseOr(), at: start)
            nesting -= 1
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[start..<position])
            return .filter(JSONPathFilter(description: String(text), expression: expression))
        case ":":
            return try parseSlice(start: nil)
        case let c? where c == "-" || (c.value >= 0x30 && c.value <= 0x39):
            let index = try parseInteger()
            let afterIndex = position
            skipBlanks()
            if current == ":" { return try parseSlice(start: index) }
            position = afterIndex
            return .index(index)
        default:
            throw error("expected a selector (a quoted name, '*', an index, a slice or a '?' filter), found \(found)")
        }
    }

    /// `slice-selector`, from its first ':' (the start, if any, already read).
    private mutating func parseSlice(start: Int?) throws(JSONPathSyntaxError) -> JSONPathQuery.Selector {
        position += 1  // :
        skipBlanks()
        var end: Int?
        if let c = current, c == "-" || (c.value >= 0x30 && c.value <= 0x39) {
            end = try parseInteger()
            skipBlanks()
        }
        var step: Int?
        if current == ":" {
            position += 1
            skipBlanks()
            if let c = current, c == "-" || (c.value >= 0x30 && c.value <= 0x39) { step = try parseInteger() }
        }
        return .slice(start: start, end: end, step: step)
    }

    /// `int`: `0`, or an optional `-` and digits without a leading zero, within ±(2^53−1).
    private mutating func parseInteger() throws(JSONPathSyntaxError) -> Int {
        let start = position
        let negative = current == "-"
        if negative { position += 1 }
        guard let first = current, first.value >= 0x30 && first.value <= 0x39 else {
            throw error("expected a digit after '-', found \(found)")
        }
        if first == "0" {
            if let next = peek(1), next.value >= 0x30 && next.value <= 0x39 {
                throw error("an index has no leading zeros", at: start)
            }
            if negative { throw error("'-0' is not a valid index (write 0)", at: start) }
        }
        var value = 0
        while let c = current, c.value >= 0x30 && c.value <= 0x39 {
            value = value * 10 + Int(c.value - 0x30)
            if value > Self.maxIndex {
                throw error("index out of range: indices lie within ±(2^53−1)", at: start)
            }
            position += 1
        }
        return negative ? -value : value
    }

    /// `string-literal`: a name in single or double quotes, with JSON's escapes; only the
    /// enclosing quote may be escaped, and control characters must be.
    mutating func parseStringLiteral() throws(JSONPathSyntaxError) -> String {
        let open = position
        let quote = scalars[position]
        position += 1
        var text = String.UnicodeScalarView()
        while let c = current {
            if c == quote {
                position += 1
                return String(text)
            }
            if c.value < 0x20 {
                throw error("a control character (\(JSONPathSyntaxError.visible(c))) must be escaped in a string")
            }
            position += 1
            guard c == "\\" else {
                text.append(c)
                continue
            }
            guard let escaped = current else { break }
            position += 1
            switch escaped {
            case "b": text.append("\u{08}")
            case "f": text.append("\u{0C}")
            case "n": text.append("\n")
            case "r": text.append("\r")
            case "t": text.append("\t")
            case "/", "\\": text.append(escaped)
            case _ where escaped == quote: text.append(escaped)
            case "u": text.append(try parseUnicodeEscape())
            case "'", "\"":
                throw error("only the enclosing quote may be escaped: write \(escaped) without '\\'", at: position - 2)
            default:
                throw error("invalid escape '\\\(JSONPathSyntaxError.visible(escaped))'", at: position - 2)
            }
        }
        throw error("unterminated string: the quote at character \(open + 1) is never closed")
    }

    /// The `XXXX` of `\uXXXX` (just read), with its low surrogate's escape when it is a high one.
    private mutating func parseUnicodeEscape() throws(JSONPathSyntaxError) -> Unicode.Scalar {
        let start = position - 2
        let value = try parseHex4()
        if (0xDC00..<0xE000).contains(value) { throw error("a low surrogate without a high one", at: start) }
        guard (0xD800..<0xDC00).contains(value) else { return Unicode.Scalar(value)! }
        guard current == "\\", peek(1) == "u" else {
            throw error("a high surrogate must be followed by '\\u' and a low surrogate", at: start)
        }
        position += 2
        let low = try parseHex4()
        guard (0xDC00..<0xE000).contains(low) else { throw error("expected a low surrogate", at: position - 6) }
        return Unicode.Scalar(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))!
    }

    private mutating func parseHex4() throws(JSONPathSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = current, c.isASCII, let digit = Character(c).hexDigitValue else {
                throw error("expected 4 hexadecimal digits after \\u, found \(found)")
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }
}
