/// RFC 9535's semantics over a ``CapturedTree``: segments applied to node lists in the RFC's
/// order, filters with comparisons, existence tests and the five functions.
///
/// `$` inside a filter is the tree's root; a query using it is only evaluated on a tree that
/// holds the whole document (``PathMatcher/bufferStates`` makes sure of that).
struct PathEvaluator {
    let tree: CapturedTree
    /// The document's root, when the tree holds the whole document.
    let documentRoot: Int?
    /// The longest node list built; past it lists are cut and ``overflowed`` is set (then the
    /// caller refuses the result: a query such as `$..*..*..*` on a deep document).
    var maxNodes = Int.max
    private let budget = Budget()
    private final class Budget {
        var overflowed = false
        var refusedPattern: (pattern: String, reason: String)?
    }

    /// Whether a node list was cut at ``maxNodes``: the results are then not to be used.
    var overflowed: Bool { budget.overflowed }
    /// A pattern read from the document that is too large to match (then the results are not
    /// to be used either: the filter would have been false because of a limit).
    var refusedPattern: (pattern: String, reason: String)? { budget.refusedPattern }

    // MARK: Segments

    /// The nodes that `segments` select from `input`, in the RFC's order (duplicates kept).
    func select(_ segments: ArraySlice<JSONPathQuery.Segment>, from input: [Int]) -> [Int] {
        var nodes = input
        for segment in segments {
            var next: [Int] = []
            for node in nodes {
                if segment.isDescendant {
                    // The node and its descendants, each before its own descendants, arrays in order.
                    var pending = [node]
                    while let visited = pending.popLast(), next.count <= maxNodes {
                        apply(segment.selectors, to: visited, into: &next)
                        let children = tree.children(visited)
                        for child in children.reversed() { pending.append(child) }
                    }
                } else {
                    apply(segment.selectors, to: node, into: &next)
                }
            }
            nodes = next
            if nodes.isEmpty { break }
            if nodes.count > maxNodes {
                budget.overflowed = true
                nodes.removeLast(nodes.count - maxNodes)
            }
        }
        return nodes
    }

    /// The children of `node` that each selector selects, selector by selector.
    private func apply(_ selectors: [JSONPathQuery.Selector], to node: Int, into output: inout [Int]) {
        let kind = tree.kind(node)
        guard kind == .object || kind == .array else { return }
        let children = tree.children(node)
        for selector in selectors {
            switch selector {
            case .wildcard:
                output.append(contentsOf: children)
            case .key(let name):
                guard kind == .object else { continue }
                for child in children where tree.keyEquals(child, name) { output.append(child) }
            case .index(let index):
                guard kind == .array else { continue }
                let normalized = index >= 0 ? index : children.count + index
                if normalized >= 0 && normalized < children.count { output.append(children.lowerBound + normalized) }
            case .slice(let start, let end, let step):
                guard kind == .array else { continue }
                for offset in Self.sliceIndices(count: children.count, start: start, end: end, step: step) {
                    output.append(children.lowerBound + offset)
                }
            case .filter(let filter):
                for child in children where test(filter.expression, current: child) { output.append(child) }
            }
        }
    }

    /// RFC 9535 §2.3.4.2.2: the indices a slice selects from an array of `count` elements.
    static func sliceIndices(count: Int, start: Int?, end: Int?, step: Int?) -> [Int] {
        let step = step ?? 1
        guard step != 0, count > 0 else { return [] }
        func normalize(_ index: Int) -> Int { index >= 0 ? index : count + index }
        var indices: [Int] = []
        if step > 0 {
            let lower = min(max(normalize(start ?? 0), 0), count)
            let upper = min(max(normalize(end ?? count), 0), count)
            var index = lower
            while index < upper {
                indices.append(index)
                index += step
            }
        } else {
            let upper = min(max(normalize(start ?? count - 1), -1), count - 1)
            let lower = min(max(end.map(normalize) ?? -1, -1), count - 1)
            var index = upper
            while lower < index {
                indices.append(index)
                index += step
            }
        }
        return indices
    }

    // MARK: Filters

    /// A filter's operand once evaluated: nothing (an empty query, a function without result),
    /// a node of the tree, or a literal.
    private enum Operand {
        case nothing
        case node(Int)
        case literal(FilterLiteral)
    }

    func test(_ expression: FilterExpression, current: Int) -> Bool {
        switch expression {
        case .or(let terms): return terms.contains { test($0, current: current) }
        case .and(let terms): return terms.allSatisfy { test($0, current: current) }
        case .not(let term): return !test(term, current: current)
        case .exists(let query):
            if query.isSingular { return singular(query, current: current) != nil }
            return !nodes(query, current: current).isEmpty
        case .test(let function): return logical(function, current: current)
        case .comparison(let left, let op, let right):
            let a = operand(left, current: current)
            let b = operand(right, current: current)
            switch op {
            case .equal: return equal(a, b)
            case .notEqual: return !equal(a, b)
            case .less: return less(a, b)
            case .lessOrEqual: return less(a, b) || equal(a, b)
            case .greater: return less(b, a)
            case .greaterOrEqual: return less(b, a) || equal(a, b)
            }
        }
    }

    private func start(of query: FilterQuery, current: Int) -> Int {
        guard query.isAbsolute else { return current }
        guard let documentRoot else {
            preconditionFailure("an absolute query is evaluated only on a captured document")
        }
        return documentRoot
    }

    private func nodes(_ query: FilterQuery, current: Int) -> [Int] {
        if query.isSingular { return singular(query, current: current).map { [$0] } ?? [] }
        return select(query.segments[...], from: [start(of: query, current: current)])
    }

    /// The node a singular query (names and indices only) selects, without building lists.
    private func singular(_ query: FilterQuery, current: Int) -> Int? {
        var node = start(of: query, current: current)
        for segment in query.segments {
            let kind = tree.kind(node)
            let children = tree.children(node)
            switch segment.selectors[0] {
            case .key(let name):
                guard kind == .object, let member = children.first(where: { tree.keyEquals($0, name) }) else {
                    return nil
                }
                node = member
            case .index(let index):
                guard kind == .array else { return nil }
                let normalized = index >= 0 ? index : children.count + index
                guard normalized >= 0 && normalized < children.count else { return nil }
                node = children.lowerBound + normalized
            default:
                preconditionFailure("a singular query has only names and indices")
            }
        }
        return node
    }

    private func operand(_ comparable: FilterComparable, current: Int) -> Operand {
        switch comparable {
        case .literal(let literal): return .literal(literal)
        case .query(let query): return singular(query, current: current).map(Operand.node) ?? .nothing
        case .function(let function): return value(function, current: current)
        }
    }

    private func argumentValue(_ argument: FilterFunction.Argument, current: Int) -> Operand {
        switch argument {
        case .literal(let literal): return .literal(literal)
        case .query(let query): return singular(query, current: current).map(Operand.node) ?? .nothing
        case .function(let function): return value(function, current: current)
        case .logical: return .nothing  // no function of RFC 9535 takes one as a value
        }
    }

    /// `length`, `count` and `value`: functions with a value result.
    private func value(_ function: FilterFunction, current: Int) -> Operand {
        switch function.name {
        case .length:
            switch argumentValue(function.arguments[0], current: current) {
            case .literal(.string(let text)): return .literal(.number(ExactNumber(text.unicodeScalars.count)))
            case .node(let node):
                switch tree.kind(node) {
                case .string:
                    let count = String(decoding: tree.view.text(tree.nodes[node].tape), as: UTF8.self).unicodeScalars
                        .count
                    return .literal(.number(ExactNumber(count)))
                case .array, .object: return .literal(.number(ExactNumber(tree.nodes[node].childCount)))
                default: return .nothing
                }
            default: return .nothing
            }
        case .count:
            guard case .query(let query) = function.arguments[0] else { return .nothing }
            return .literal(.number(ExactNumber(nodes(query, current: current).count)))
        case .value:
            guard case .query(let query) = function.arguments[0] else { return .nothing }
            let selected = nodes(query, current: current)
            return selected.count == 1 ? .node(selected[0]) : .nothing
        case .match, .search:
            return .nothing
        }
    }

    /// `match` and `search`: false unless both arguments are strings and the pattern is valid.
    private func logical(_ function: FilterFunction, current: Int) -> Bool {
        guard let text = string(argumentValue(function.arguments[0], current: current)) else { return false }
        let pattern: IRegexp?
        if let compiled = function.compiledPattern {
            pattern = compiled
        } else if case .literal(.string) = function.arguments[1] {
            return false  // a literal pattern that is not an I-Regexp
        } else {
            guard let source = string(argumentValue(function.arguments[1], current: current)) else { return false }
            switch IRegexp.compile(source, wholeString: function.name == .match) {
            case .valid(let compiled): pattern = compiled
            case .invalid: return false
            case .tooLarge(let reason):
                if budget.refusedPattern == nil { budget.refusedPattern = (source, reason) }
                return false
            }
        }
        return pattern?.matches(text) ?? false
    }

    private func string(_ operand: Operand) -> String? {
        switch operand {
        case .literal(.string(let text)): return text
        case .node(let node) where tree.kind(node) == .string: return tree.view.string(tree.nodes[node].tape)
        default: return nil
        }
    }

    // MARK: Comparisons

    /// A scalar to compare: strings as UTF-8 (whose byte order is the code points' order).
    private enum Scalar: Equatable {
        case null
        case bool(Bool)
        case number(ExactNumber)
        case string([UInt8])
    }

    private func scalar(_ operand: Operand) -> Scalar? {
        switch operand {
        case .nothing: return nil
        case .literal(.null): return .null
        case .literal(.bool(let value)): return .bool(value)
        case .literal(.number(let number)): return .number(number)
        case .literal(.string(let text)): return .string(Array(text.utf8))
        case .node(let node): return scalar(ofNode: node)
        }
    }

    private func scalar(ofNode node: Int) -> Scalar? {
        let tape = tree.nodes[node].tape
        switch tree.kind(node) {
        case .null: return .null
        case .bool: return .bool(tree.view.bool(tape))
        case .number: return ExactNumber(text: tree.view.text(tape)).map(Scalar.number)
        case .string, .key: return .string(Array(tree.view.text(tape)))
        case .object, .array: return nil
        }
    }

    private func equal(_ a: Operand, _ b: Operand) -> Bool {
        switch (a, b) {
        case (.nothing, .nothing): return true
        case (.nothing, _), (_, .nothing): return false
        case (.node(let x), .node(let y)): return equalNodes(x, y)
        case (.node(let node), .literal(let literal)), (.literal(let literal), .node(let node)):
            return compare(node, literal) == .some(0)
        case (.literal(let x), .literal(let y)):
            guard let p = scalar(.literal(x)), let q = scalar(.literal(y)) else { return false }
            return p == q
        }
    }

    /// A node against a literal without allocating for the common cases: -1, 0 or 1 when they
    /// are comparable (same kind; only numbers and strings are ordered, else 0 or `nil`), `nil`
    /// when they are not. Numbers compare exactly.
    private func compare(_ node: Int, _ literal: FilterLiteral) -> Int? {
        let tape = tree.nodes[node].tape
        switch (tree.kind(node), literal) {
        case (.null, .null): return 0
        case (.bool, .bool(let value)): return tree.view.bool(tape) == value ? 0 : nil
        case (.string, .string(let text)):
            let bytes = tree.view.text(tape)
            var text = text
            return text.withUTF8 { utf8 in
                if bytes.elementsEqual(utf8) { return 0 }
                return bytes.lexicographicallyPrecedes(utf8) ? -1 : 1
            }
        case (.number, .number(let number)):
            if let wanted = number.integerValue, case .integer(let value) = tree.view.numberValue(tape) {
                return value == Int64(wanted) ? 0 : (value < Int64(wanted) ? -1 : 1)
            }
            guard let value = ExactNumber(text: tree.view.text(tape)) else { return nil }
            return value == number ? 0 : (value < number ? -1 : 1)
        default: return nil
        }
    }

    /// Deep equality: arrays element by element, objects by their sets of members (each member
    /// against the other object's first member of that key). The pairs still to compare wait on
    /// an explicit list: no recursion, whatever the depth.
    private func equalNodes(_ x: Int, _ y: Int) -> Bool {
        var pending = [(x, y)]
        while let (x, y) = pending.popLast() {
            let kind = tree.kind(x)
            guard kind == tree.kind(y) else { return false }
            switch kind {
            case .array:
                let a = tree.children(x)
                let b = tree.children(y)
                guard a.count == b.count else { return false }
                pending.append(contentsOf: zip(a, b))
            case .object:
                let a = tree.children(x)
                let b = tree.children(y)
                guard a.count == b.count else { return false }
                for member in a {
                    let key = tree.view.text(tree.nodes[member].key)
                    guard let other = b.first(where: { tree.view.text(tree.nodes[$0].key).elementsEqual(key) }) else {
                        return false
                    }
                    pending.append((member, other))
                }
            default:
                if scalar(ofNode: x) != scalar(ofNode: y) { return false }
            }
        }
        return true
    }

    private func less(_ a: Operand, _ b: Operand) -> Bool {
        switch (a, b) {
        case (.node(let node), .literal(let literal)):
            return isOrdered(literal) && compare(node, literal) == -1
        case (.literal(let literal), .node(let node)):
            return isOrdered(literal) && compare(node, literal) == 1
        default:
            switch (scalar(a), scalar(b)) {
            case (.number(let x)?, .number(let y)?): return x < y
            case (.string(let x)?, .string(let y)?): return x.lexicographicallyPrecedes(y)
            default: return false
            }
        }
    }

    private func isOrdered(_ literal: FilterLiteral) -> Bool {
        switch literal {
        case .number, .string: return true
        case .bool, .null: return false
        }
    }
}
