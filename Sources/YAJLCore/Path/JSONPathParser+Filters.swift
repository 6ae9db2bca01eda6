/// The filter part of RFC 9535's grammar (§2.3.5): logical expressions, comparisons, literals,
/// and function calls with their well-typedness rules (§2.4.3).
extension JSONPathParser {
    /// What an operand of a logical expression turned out to be, before the context decides
    /// whether it is allowed there (a literal is a comparable or a function argument, never a test).
    enum Parsed {
        case logical(FilterExpression)
        case literal(FilterLiteral)
        case query(FilterQuery)
        case function(FilterFunction, returnsLogical: Bool)
    }

    /// Converts a parsed operand to a logical expression (RFC 9535 §2.4.3's test-expr rules).
    func logical(_ parsed: Parsed, at start: Int) throws(JSONPathSyntaxError) -> FilterExpression {
        switch parsed {
        case .logical(let expression): return expression
        case .query(let query): return .exists(query)
        case .function(let function, let returnsLogical):
            guard returnsLogical else {
                throw error(
                    "\(function.name.rawValue)() gives a value, not a test: compare it (e.g. \(function.name.rawValue)(…) > 0)",
                    at: start
                )
            }
            return .test(function)
        case .literal:
            throw error("a literal is not a test: compare it with something (e.g. @.a == 1)", at: start)
        }
    }

    /// `logical-or-expr`: and-expressions joined by `||`.
    mutating func parseOr() throws(JSONPathSyntaxError) -> Parsed { try parseJoined(or: true) }

    /// Operands joined by `||` (each an and-expression) or `&&` (each a basic expression); a lone
    /// operand is returned as parsed, for the caller to place.
    private mutating func parseJoined(or: Bool) throws(JSONPathSyntaxError) -> Parsed {
        let symbol: Unicode.Scalar = or ? "|" : "&"
        let start = position
        let first = try or ? parseJoined(or: false) : parseBasic()
        var terms: [FilterExpression] = []
        while true {
            let save = position
            skipBlanks()
            guard current == symbol, peek(1) == symbol else {
                position = save
                break
            }
            if terms.isEmpty { terms.append(try logical(first, at: start)) }
            position += 2
            skipBlanks()
            let termStart = position
            terms.append(try logical(or ? parseJoined(or: false) : parseBasic(), at: termStart))
        }
        guard !terms.isEmpty else { return first }
        return .logical(or ? .or(terms) : .and(terms))
    }

    /// `basic-expr`: a parenthesized expression, a comparison, or a test (each maybe negated).
    private mutating func parseBasic() throws(JSONPathSyntaxError) -> Parsed {
        let start = position
        if current == "!" {
            position += 1
            skipBlanks()
            let operandStart = position
            if current == "(" { return .logical(.not(try parseParenthesized())) }
            let operand = try parseOperand()
            if case .literal = operand { throw error("'!' applies to a test or a parenthesized expression", at: start) }
            return .logical(.not(try logical(operand, at: operandStart)))
        }
        if current == "(" { return .logical(try parseParenthesized()) }
        let left = try parseOperand()
        let save = position
        skipBlanks()
        guard let op = parseComparisonOperator() else {
            position = save
            return left
        }
        skipBlanks()
        let rightStart = position
        let right = try parseOperand()
        return .logical(.comparison(try comparable(left, at: start), op, try comparable(right, at: rightStart)))
    }

    private mutating func parseComparisonOperator() -> ComparisonOperator? {
        let two = current.map { String($0) + (peek(1).map { String($0) } ?? "") } ?? ""
        for op in [ComparisonOperator.equal, .notEqual, .lessOrEqual, .greaterOrEqual] where two == op.rawValue {
            position += 2
            return op
        }
        if current == "<" {
            position += 1
            return .less
        }
        if current == ">" {
            position += 1
            return .greater
        }
        return nil
    }

    /// A comparison's operand: a literal, a singular query, or a function with a value result.
    private func comparable(_ parsed: Parsed, at start: Int) throws(JSONPathSyntaxError) -> FilterComparable {
        switch parsed {
        case .literal(let literal): return .literal(literal)
        case .query(let query):
            guard query.isSingular else {
                throw error(
                    "a query compared with '==', '<'… must select at most one node (names and indices only)",
                    at: start
                )
            }
            return .query(query)
        case .function(let function, let returnsLogical):
            guard !returnsLogical else {
                throw error("\(function.name.rawValue)() is a test, its result cannot be compared", at: start)
            }
            return .function(function)
        case .logical:
            throw error("a test cannot be compared: only literals, singular queries and functions", at: start)
        }
    }

    private mutating func parseParenthesized() throws(JSONPathSyntaxError) -> FilterExpression {
        let open = position
        position += 1  // (
        try enter()
        skipBlanks()
        let start = position
        let inner = try logical(parseOr(), at: start)
        skipBlanks()
        guard current == ")" else {
            throw error("expected ')' to close the '(' at character \(open + 1), found \(found)")
        }
        position += 1
        nesting -= 1
        return inner
    }

    /// A query (`@…`, `$…`), a function call, or a literal.
    private mutating func parseOperand() throws(JSONPathSyntaxError) -> Parsed {
        guard let c = current else { throw error("expected a test or a comparison, found the end of the query") }
        switch c {
        case "@", "$":
            position += 1
            try enter()
            let segments = try parseSegments()
            nesting -= 1
            return .query(FilterQuery(isAbsolute: c == "$", segments: segments))
        case "'", "\"":
            return .literal(.string(try parseStringLiteral()))
        case "-", "0"..."9":
            return .literal(try parseNumber())
        case "a"..."z":
            let start = position
            var name = ""
            while let l = current, ("a"..."z").contains(l) || ("0"..."9").contains(l) || l == "_" {
                name.unicodeScalars.append(l)
                position += 1
            }
            if current == "(" { return try parseFunction(name, at: start) }
            if FilterFunction.Name(rawValue: name) != nil {
                throw error("a function name is followed directly by '(', without white space", at: position)
            }
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default: throw error("unknown word '\(name)': expected true, false, null or a function call", at: start)
            }
        default:
            throw error("expected a query (@… or $…), a function call, a literal or '(', found \(found)")
        }
    }

    /// `number`: JSON's number syntax, with `-0` allowed.
    private mutating func parseNumber() throws(JSONPathSyntaxError) -> FilterLiteral {
        let start = position
        func isDigit(_ c: Unicode.Scalar?) -> Bool { c.map { $0.value >= 0x30 && $0.value <= 0x39 } ?? false }
        if current == "-" { position += 1 }
        guard isDigit(current) else { throw error("expected a digit, found \(found)") }
        if current == "0" {
            position += 1
            if isDigit(current) { throw error("a number has no leading zeros", at: start) }
        } else {
            while isDigit(current) { position += 1 }
        }
        if current == "." {
            position += 1
            guard isDigit(current) else { throw error("expected a digit after '.', found \(found)") }
            while isDigit(current) { position += 1 }
        }
        if current == "e" || current == "E" {
            position += 1
            if current == "+" || current == "-" { position += 1 }
            guard isDigit(current) else { throw error("expected a digit in the exponent, found \(found)") }
            while isDigit(current) { position += 1 }
        }
        let text = scalars[start..<position].map { UInt8($0.value) }
        return .number(ExactNumber(text: text)!)
    }

    /// A call of one of RFC 9535's five functions, its arguments checked against their types.
    private mutating func parseFunction(_ name: String, at start: Int) throws(JSONPathSyntaxError) -> Parsed {
        guard let function = FilterFunction.Name(rawValue: name) else {
            throw error(
                "unknown function '\(name)': the functions are length, count, match, search and value",
                at: start
            )
        }
        position += 1  // (
        try enter()
        var arguments: [(Parsed, Int)] = []
        skipBlanks()
        if current != ")" {
            while true {
                let argumentStart = position
                arguments.append((try parseOr(), argumentStart))
                skipBlanks()
                if current == "," {
                    position += 1
                    skipBlanks()
                    continue
                }
                break
            }
        }
        guard current == ")" else { throw error("expected ',' or ')' in the call of \(name)(), found \(found)") }
        position += 1
        nesting -= 1

        let expectsNodes: [Bool]
        switch function {
        case .length: expectsNodes = [false]
        case .count, .value: expectsNodes = [true]
        case .match, .search: expectsNodes = [false, false]
        }
        guard arguments.count == expectsNodes.count else {
            throw error(
                "\(name)() takes \(expectsNodes.count) argument\(expectsNodes.count == 1 ? "" : "s"), "
                    + "got \(arguments.count)",
                at: start
            )
        }
        var checked: [FilterFunction.Argument] = []
        for ((argument, argumentStart), nodes) in zip(arguments, expectsNodes) {
            checked.append(try self.argument(argument, nodes: nodes, of: name, at: argumentStart))
        }
        var pattern: IRegexp?
        if function == .match || function == .search, case .literal(.string(let text)) = checked[1] {
            switch IRegexp.compile(text, wholeString: function == .match) {
            case .valid(let compiled): pattern = compiled
            case .invalid: pattern = nil  // false on every node, as RFC 9535 says
            case .tooLarge(let reason): throw error(reason, at: arguments[1].1)
            }
        }
        let call = FilterFunction(name: function, arguments: checked, compiledPattern: pattern)
        return .function(call, returnsLogical: function == .match || function == .search)
    }

    /// Checks one argument against its parameter: `NodesType` takes any query; `ValueType` takes a
    /// literal, a singular query or a function with a value result.
    private func argument(
        _ parsed: Parsed,
        nodes: Bool,
        of name: String,
        at start: Int
    ) throws(JSONPathSyntaxError) -> FilterFunction.Argument {
        switch parsed {
        case .query(let query):
            if !nodes && !query.isSingular {
                throw error("\(name)() takes a value here: the query must select at most one node", at: start)
            }
            return .query(query)
        case .literal(let literal) where !nodes: return .literal(literal)
        case .function(let function, let returnsLogical) where !nodes && !returnsLogical:
            return .function(function)
        default:
            throw error(
                nodes
                    ? "\(name)() takes a query (@… or $…)"
                    : "\(name)() takes a value: a literal, a singular query or a function",
                at: start
            )
        }
    }
}
