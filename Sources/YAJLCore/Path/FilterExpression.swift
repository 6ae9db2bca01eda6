/// The syntax tree of a filter selector's logical expression (RFC 9535 §2.3.5), as parsed and
/// type-checked by ``JSONPathParser``.
indirect enum FilterExpression: Sendable, Hashable {
    case or([FilterExpression])
    case and([FilterExpression])
    case not(FilterExpression)
    /// An existence test: true when the query selects at least one node.
    case exists(FilterQuery)
    /// A function whose result is a logical value (`match`, `search`).
    case test(FilterFunction)
    case comparison(FilterComparable, ComparisonOperator, FilterComparable)

    /// Whether every relative query in it starts by selecting object members by name: on any
    /// array (and any scalar) all of them are then empty, and the filter has one verdict for all.
    var readsOnlyMembersByName: Bool {
        func byName(_ query: FilterQuery) -> Bool {
            if query.isAbsolute { return false }
            guard let first = query.segments.first, !first.isDescendant else { return false }
            return first.selectors.allSatisfy { if case .key = $0 { true } else { false } }
        }
        func function(_ call: FilterFunction) -> Bool {
            call.arguments.allSatisfy { argument in
                switch argument {
                case .literal: return true
                case .query(let query): return byName(query)
                case .logical(let expression): return expression.readsOnlyMembersByName
                case .function(let inner): return function(inner)
                }
            }
        }
        func comparable(_ operand: FilterComparable) -> Bool {
            switch operand {
            case .literal: return true
            case .query(let query): return byName(query)
            case .function(let call): return function(call)
            }
        }
        switch self {
        case .or(let terms), .and(let terms): return terms.allSatisfy { $0.readsOnlyMembersByName }
        case .not(let term): return term.readsOnlyMembersByName
        case .exists(let query): return byName(query)
        case .test(let call): return function(call)
        case .comparison(let a, _, let b): return comparable(a) && comparable(b)
        }
    }

    var usesRoot: Bool {
        switch self {
        case .or(let terms), .and(let terms): return terms.contains { $0.usesRoot }
        case .not(let term): return term.usesRoot
        case .exists(let query): return query.usesRoot
        case .test(let function): return function.usesRoot
        case .comparison(let a, _, let b): return a.usesRoot || b.usesRoot
        }
    }
}

/// A query inside a filter: relative to the candidate (`@`) or absolute (`$`).
struct FilterQuery: Sendable, Hashable {
    let isAbsolute: Bool
    let segments: [JSONPathQuery.Segment]

    /// Whether it selects at most one node: only child segments of one name or index.
    var isSingular: Bool {
        segments.allSatisfy { segment in
            guard !segment.isDescendant, segment.selectors.count == 1 else { return false }
            switch segment.selectors[0] {
            case .key, .index: return true
            default: return false
            }
        }
    }

    var usesRoot: Bool {
        isAbsolute
            || segments.contains { $0.selectors.contains { if case .filter(let f) = $0 { f.usesRoot } else { false } } }
    }
}

/// One side of a comparison: a literal, a singular query or a function with a value result.
enum FilterComparable: Sendable, Hashable {
    case literal(FilterLiteral)
    case query(FilterQuery)
    case function(FilterFunction)

    var usesRoot: Bool {
        switch self {
        case .literal: return false
        case .query(let query): return query.usesRoot
        case .function(let function): return function.usesRoot
        }
    }
}

enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// A literal of a filter: numbers are kept exactly (as decimal digits and an exponent).
enum FilterLiteral: Sendable, Hashable {
    case number(ExactNumber)
    case string(String)
    case bool(Bool)
    case null
}

/// A call of one of the five functions of RFC 9535 §2.4.
struct FilterFunction: Sendable, Hashable {
    enum Name: String, Sendable, Hashable {
        case length, count, match, search, value
    }
    /// The function's argument, checked against its declared parameter type.
    enum Argument: Sendable, Hashable {
        case literal(FilterLiteral)
        case query(FilterQuery)
        case logical(FilterExpression)
        case function(FilterFunction)
    }
    let name: Name
    let arguments: [Argument]
    /// For `match` and `search` with a literal pattern: the pattern compiled once, or `nil`
    /// when it is not a valid I-Regexp (the function is then false for every candidate).
    let compiledPattern: IRegexp?

    var usesRoot: Bool {
        arguments.contains { argument in
            switch argument {
            case .literal: return false
            case .query(let query): return query.usesRoot
            case .logical(let expression): return expression.usesRoot
            case .function(let function): return function.usesRoot
            }
        }
    }

    static func == (a: Self, b: Self) -> Bool { a.name == b.name && a.arguments == b.arguments }
    func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(arguments)
    }
}

/// A JSON number as an exact decimal: sign, significant digits (no leading or trailing zeros)
/// and the exponent of the last digit, so that `1`, `1.0` and `10e-1` are equal and any two
/// numbers compare exactly, whatever their size.
package struct ExactNumber: Sendable, Hashable, Comparable {
    package let isNegative: Bool
    /// ASCII digits, empty for zero.
    package let digits: [UInt8]
    package let exponent: Int

    /// Parses JSON number text (already valid JSON); `nil` for anything else.
    package init?<Bytes: Collection<UInt8>>(text: Bytes) {
        var index = text.startIndex
        var negative = false
        if index < text.endIndex, text[index] == UInt8(ascii: "-") {
            negative = true
            index = text.index(after: index)
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var afterPoint = false
        while index < text.endIndex {
            let byte = text[index]
            if byte.isASCIIDigit {
                sawDigit = true
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if afterPoint { exponent -= 1 }
            } else if byte == UInt8(ascii: "."), !afterPoint {
                afterPoint = true
            } else {
                break
            }
            index = text.index(after: index)
        }
        guard sawDigit else { return nil }
        if index < text.endIndex {
            guard text[index] | 0x20 == UInt8(ascii: "e") else { return nil }
            index = text.index(after: index)
            var exponentNegative = false
            if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index = text.index(after: index)
            }
            var value = 0
            var sawExponentDigit = false
            while index < text.endIndex, text[index].isASCIIDigit {
                // Saturates far beyond any meaningful exponent: 1e(10^15) is still larger than 1e999.
                value = min(value * 10 + Int(text[index] &- UInt8(ascii: "0")), 1 << 50)
                sawExponentDigit = true
                index = text.index(after: index)
            }
            guard sawExponentDigit, index == text.endIndex else { return nil }
            exponent += exponentNegative ? -value : value
        }
        // Leading zeros were never kept; trailing ones move into the exponent.
        while let last = digits.last, last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        self.isNegative = negative && !digits.isEmpty
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
    }

    /// The number `value` exactly.
    init(_ value: Int) {
        self.init(text: Array(String(value).utf8))!
    }

    private var isZero: Bool { digits.isEmpty }
    /// The position of the leading digit: numbers with a larger magnitude order are larger.
    private var magnitudeOrder: Int { digits.count + exponent }

    package static func < (a: Self, b: Self) -> Bool {
        if a.isNegative != b.isNegative { return a.isNegative }
        if a.isNegative { return magnitudeLess(b, a) }
        return magnitudeLess(a, b)
    }

    private static func magnitudeLess(_ a: Self, _ b: Self) -> Bool {
        if a.isZero || b.isZero { return a.isZero && !b.isZero }
        if a.magnitudeOrder != b.magnitudeOrder { return a.magnitudeOrder < b.magnitudeOrder }
        return a.digits.lexicographicallyPrecedes(b.digits)
    }

    /// The value as an `Int`, when it is an integer in range.
    var integerValue: Int? {
        guard exponent >= 0, digits.count + exponent <= 18 else { return isZero ? 0 : nil }
        var value = 0
        for digit in digits { value = value * 10 + Int(digit - UInt8(ascii: "0")) }
        for _ in 0..<exponent { value *= 10 }
        return isNegative ? -value : value
    }
}
