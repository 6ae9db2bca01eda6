/// A compiled JSONPath (a subset of RFC 9535) that selects values while the document streams.
///
/// Supported: the root `$`; child segments `.name`, `['name']` / `["name"]` (any key, with the
/// escapes `\'` `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` `\uXXXX`), `[n]` (n ≥ 0), `[*]` and `.*`;
/// descendant segments `..name`, `..['name']`, `..[n]`, `..*` and `..[*]`.
/// Not supported, rejected with an error: negative indices, slices, filters and unions (they need
/// the whole array or document).
///
/// ```swift
/// let query = try JSONPathQuery("$.results[*].address")
/// ```
public struct JSONPathQuery: Sendable, Hashable, CustomStringConvertible {
    /// What one segment matches.
    public enum Selector: Sendable, Hashable {
        /// An object member by key.
        case key(String)
        /// An array element by index.
        case index(Int)
        /// Any member or element.
        case wildcard
    }

    /// One segment: a selector, applied to children or (`isDescendant`) to descendants at any depth.
    public struct Segment: Sendable, Hashable {
        /// What the segment selects: a name, an index, a slice, a wildcard…
        public let selector: Selector
        /// Whether the selector applies to every descendant (`..`), not only to the children.
        public let isDescendant: Bool
    }

    /// The expression as written.
    public let expression: String
    /// The segments after `$`.
    public let segments: [Segment]

    /// Compiles `expression`.
    /// - Throws: ``JSONPathSyntaxError`` pointing at the offending character.
    public init(_ expression: String) throws(JSONPathSyntaxError) {
        self.expression = expression
        var parser = JSONPathParser(expression)
        segments = try parser.parseQuery()
    }

    /// The expression as written.
    public var description: String { expression }

    /// How many leading segments are plain child keys or indices: the value at that prefix
    /// encloses every possible match, so once it has ended nothing more can match.
    var anchorLength: Int {
        var length = 0
        for segment in segments {
            guard !segment.isDescendant else { break }
            if case .wildcard = segment.selector { break }
            length += 1
        }
        return length
    }
}

/// An invalid JSONPath expression, with the position of the offending character.
public struct JSONPathSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression.
    public let expression: String
    /// Zero-based position of the offending character, in `Character`s.
    public let position: Int
    /// What was wrong.
    public let message: String

    /// The message, the expression, and a caret under the offending character.
    public var description: String {
        "invalid JSONPath at character \(position + 1): \(message)\n    \(expression)\n    "
            + String(repeating: " ", count: position) + "^"
    }
}

/// A recursive-descent parser for the supported subset.
struct JSONPathParser {
    private let characters: [Character]
    private let expression: String
    private var position = 0
    /// Deeper expressions are refused: they can only be hostile, and the matcher has 64 states.
    static let maxSegments = 60

    init(_ expression: String) {
        self.expression = expression
        characters = Array(expression)
    }

    private func error(_ message: String, at position: Int? = nil) -> JSONPathSyntaxError {
        JSONPathSyntaxError(
            expression: expression,
            position: min(position ?? self.position, characters.count),
            message: message
        )
    }

    private var current: Character? { position < characters.count ? characters[position] : nil }

    mutating func parseQuery() throws(JSONPathSyntaxError) -> [JSONPathQuery.Segment] {
        guard current == "$" else { throw error("a JSONPath starts with '$'") }
        position += 1
        var segments: [JSONPathQuery.Segment] = []
        while let character = current {
            let descendant: Bool
            if character == "." {
                position += 1
                if current == "." {
                    position += 1
                    descendant = true
                } else {
                    descendant = false
                }
                if current == "[" {
                    guard descendant else { throw error("expected a name or '*' after '.'") }
                    segments.append(.init(selector: try parseBracket(), isDescendant: true))
                } else if current == "*" {
                    position += 1
                    segments.append(.init(selector: .wildcard, isDescendant: descendant))
                } else {
                    segments.append(.init(selector: .key(try parseName()), isDescendant: descendant))
                }
            } else if character == "[" {
                segments.append(.init(selector: try parseBracket(), isDescendant: false))
            } else if character == " " || character == "\t" {
                throw error("unexpected white space")
            } else {
                throw error("expected '.', '..' or '[', found '\(character)'")
            }
            if segments.count > Self.maxSegments {
                throw error("more than \(Self.maxSegments) segments")
            }
        }
        return segments
    }

    private mutating func parseName() throws(JSONPathSyntaxError) -> String {
        let start = position
        while let character = current, isNameCharacter(character, first: position == start) { position += 1 }
        guard position > start else {
            throw error(current.map { "expected a member name, found '\($0)'" } ?? "expected a member name after '.'")
        }
        return String(characters[start..<position])
    }

    private func isNameCharacter(_ character: Character, first: Bool) -> Bool {
        if character == "_" || (character.isASCII && character.isLetter) { return true }
        if !first && character.isASCII && character.isNumber { return true }
        return !character.isASCII  // RFC 9535 allows any non-ASCII character in a shorthand name
    }

    private mutating func parseBracket() throws(JSONPathSyntaxError) -> JSONPathQuery.Selector {
        let open = position
        position += 1  // [
        let selector: JSONPathQuery.Selector
        switch current {
        case "*":
            position += 1
            selector = .wildcard
        case "'", "\"":
            selector = .key(try parseQuoted())
        case let c? where c.isASCII && c.isNumber:
            selector = .index(try parseIndex())
        case "-":
            throw error("negative indices are not supported while streaming (they need the array's length)")
        case nil:
            throw error("unclosed '['", at: open)
        case let c?:
            if c == "?" { throw error("filter expressions are not supported") }
            if c == ":" { throw error("slices are not supported") }
            throw error("expected a quoted name, an index or '*', found '\(c)'")
        }
        switch current {
        case "]": position += 1
        case ",": throw error("unions are not supported: select each path separately")
        case ":": throw error("slices are not supported")
        case nil: throw error("expected ']'")
        case let c?: throw error("expected ']', found '\(c)'")
        }
        return selector
    }

    private mutating func parseIndex() throws(JSONPathSyntaxError) -> Int {
        let start = position
        while let c = current, c.isASCII, c.isNumber { position += 1 }
        let digits = String(characters[start..<position])
        if digits.count > 1 && digits.hasPrefix("0") { throw error("an index has no leading zeros", at: start) }
        guard let index = Int(digits) else { throw error("index out of range", at: start) }
        return index
    }

    private mutating func parseQuoted() throws(JSONPathSyntaxError) -> String {
        let quote = characters[position]
        position += 1
        var text = ""
        while let c = current {
            position += 1
            if c == quote { return text }
            guard c == "\\" else {
                text.append(c)
                continue
            }
            guard let escaped = current else { break }
            position += 1
            switch escaped {
            case "'", "\"", "\\", "/": text.append(escaped)
            case "b": text.append("\u{08}")
            case "f": text.append("\u{0C}")
            case "n": text.append("\n")
            case "r": text.append("\r")
            case "t": text.append("\t")
            case "u":
                var value = try parseHex4()
                if (0xD800..<0xDC00).contains(value), current == "\\", position + 1 < characters.count,
                    characters[position + 1] == "u"
                {
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw error("invalid low surrogate", at: position - 4)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else { throw error("unpaired surrogate", at: position - 4) }
                text.unicodeScalars.append(scalar)
            default:
                throw error("invalid escape '\\\(escaped)'", at: position - 1)
            }
        }
        throw error("unterminated quoted name")
    }

    private mutating func parseHex4() throws(JSONPathSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = current, let digit = c.hexDigitValue else { throw error("expected 4 hex digits after \\u") }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }
}
