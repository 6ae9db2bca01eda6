/// A compiled JSONPath query (RFC 9535) that selects values while the document streams.
///
/// The whole of RFC 9535 is accepted: child and descendant segments (`.name`, `..name`, `[…]`,
/// `..[…]`), name, wildcard, index (negative ones included), slice and filter selectors, unions
/// of any of them, and filter expressions with comparisons, `&&`, `||`, `!`, existence tests,
/// relative (`@`) and absolute (`$`) queries and the five standard functions `length()`,
/// `count()`, `match()`, `search()` and `value()`. The syntax is checked exactly against the
/// RFC's grammar, well-typedness of function calls included.
///
/// ```swift
/// let query = try JSONPathQuery("$.results[?@.age >= 18 && match(@.country, 'D[EK]')].name")
/// ```
///
/// How each selector streams (what it keeps in memory) is described in the article
/// <doc:QueryingWithJSONPath>: names, wildcards, non-negative indices and forward slices need nothing; a
/// filter buffers each candidate until it is decided; negative indices and slices that count
/// from the end buffer their array; an absolute query inside a filter buffers the document.
public struct JSONPathQuery: Sendable, Hashable, CustomStringConvertible {
    /// What one selector of a segment selects.
    public enum Selector: Sendable, Hashable {
        /// An object member by name (`.name`, `['name']`).
        case key(String)
        /// An array element by index; a negative index counts from the end (`[-1]` is the last).
        case index(Int)
        /// Every member or element (`*`).
        case wildcard
        /// The elements from `start` up to (not including) `end`, every `step`-th
        /// (`[start:end:step]`); a missing bound is `nil`.
        case slice(start: Int?, end: Int?, step: Int?)
        /// The members or elements for which the filter expression is true (`[?…]`).
        case filter(JSONPathFilter)
    }

    /// One segment: its selectors, applied to the children of each input node or (`isDescendant`)
    /// to the node and all its descendants.
    public struct Segment: Sendable, Hashable {
        /// The selectors of the segment, in order (one, unless it is a union `[a,b,…]`).
        public let selectors: [Selector]
        /// Whether the selectors apply to every descendant (`..`), not only to the children.
        public let isDescendant: Bool

        /// Creates a segment.
        public init(selectors: [Selector], isDescendant: Bool) {
            self.selectors = selectors
            self.isDescendant = isDescendant
        }

        /// The first selector (the only one unless the segment is a union).
        public var selector: Selector { selectors[0] }
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
        segments = try parser.parseWholeQuery()
    }

    /// The expression as written.
    public var description: String { expression }

    /// How many leading segments select one child by name or non-negative index: the value at
    /// that prefix encloses every possible match, so once it has ended nothing more can match.
    var anchorLength: Int {
        var length = 0
        for segment in segments {
            guard !segment.isDescendant, segment.selectors.count == 1 else { break }
            switch segment.selectors[0] {
            case .key: length += 1
            case .index(let index) where index >= 0: length += 1
            default: return length
            }
        }
        return length
    }

    /// When the segment after the anchor selects only elements below some index (indices ≥ 0,
    /// forward slices with an end): that index. Past it, nothing in the anchor can match.
    var anchorIndexLimit: Int? {
        guard anchorLength < segments.count else { return nil }
        let segment = segments[anchorLength]
        guard !segment.isDescendant else { return nil }
        var limit = 0
        for selector in segment.selectors {
            switch selector {
            case .index(let index) where index >= 0: limit = max(limit, index + 1)
            case .slice(let start, let end?, let step) where (start ?? 0) >= 0 && end >= 0 && (step ?? 1) > 0:
                limit = max(limit, end)
            default: return nil
            }
        }
        return limit
    }

    /// Whether a filter of the query refers to the document root (`$`): the document is then
    /// buffered, since the referenced value may come after the candidate.
    var usesAbsoluteFilterQueries: Bool {
        segments.contains { $0.selectors.contains { if case .filter(let f) = $0 { f.usesRoot } else { false } } }
    }
}

/// A filter expression (`?…`) of a ``JSONPathQuery``, compiled.
public struct JSONPathFilter: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written, without the `?`.
    public let description: String
    let expression: FilterExpression

    init(description: String, expression: FilterExpression) {
        self.description = description
        self.expression = expression
    }

    /// Whether it contains an absolute query (`$…`).
    var usesRoot: Bool { expression.usesRoot }

    /// Filters are equal when they are written alike.
    public static func == (a: Self, b: Self) -> Bool { a.description == b.description }
    /// Hashes the text.
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

/// An invalid JSONPath expression, with the position of the offending character.
public struct JSONPathSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression.
    public let expression: String
    /// Zero-based position of the offending character, in Unicode scalars.
    public let position: Int
    /// What was wrong.
    public let message: String

    /// Creates an error at `position` of `expression`.
    public init(expression: String, position: Int, message: String) {
        self.expression = expression
        self.position = position
        self.message = message
    }

    /// The message, the expression, and a caret under the offending character. Control
    /// characters of the expression are shown escaped (`\n`, `\u0000`), never raw.
    public var description: String {
        var shown = ""
        var caret = 0
        for (offset, scalar) in expression.unicodeScalars.enumerated() {
            let text = Self.visible(scalar)
            if offset < position { caret += text.count }
            shown += text
        }
        return "invalid JSONPath at character \(position + 1): \(message)\n    \(shown)\n    "
            + String(repeating: " ", count: caret) + "^"
    }

    /// A scalar as shown in a message: control characters escaped.
    static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
            return "\\u" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        default: return String(scalar)
        }
    }
}
