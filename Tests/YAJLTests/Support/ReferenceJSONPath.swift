import YAJL

@testable import YAJLCore

/// A plain reading of RFC 9535 over an in-memory ``JSONValue``, written straight from the RFC's
/// text (recursion over the tree, Doubles for numbers): the oracle the streaming selection is
/// compared with. It shares the parsed query with the library, not the evaluation.
struct ReferenceJSONPath {
    typealias Node = (path: [JSONPath.Component], value: JSONValue)

    let root: JSONValue

    func select(_ query: JSONPathQuery) -> [Node] {
        apply(query.segments, to: [([], root)])
    }

    private func apply(_ segments: [JSONPathQuery.Segment], to input: [Node]) -> [Node] {
        var nodes = input
        for segment in segments {
            nodes = nodes.flatMap { node in
                segment.isDescendant
                    ? descendants(node).flatMap { children($0, segment.selectors) }
                    : children(node, segment.selectors)
            }
        }
        return nodes
    }

    private func descendants(_ node: Node) -> [Node] {
        [node] + members(node).flatMap(descendants)
    }

    private func members(_ node: Node) -> [Node] {
        switch node.value {
        case .array(let elements): return elements.enumerated().map { (node.path + [.index($0.offset)], $0.element) }
        case .object(let object): return object.members.map { (node.path + [.key($0.key)], $0.value) }
        default: return []
        }
    }

    private func children(_ node: Node, _ selectors: [JSONPathQuery.Selector]) -> [Node] {
        selectors.flatMap { selector -> [Node] in
            switch selector {
            case .wildcard: return members(node)
            case .key(let name):
                guard case .object = node.value else { return [] }
                return members(node).filter { $0.path.last == .key(name) }
            case .index(let index):
                guard case .array(let elements) = node.value else { return [] }
                let i = index < 0 ? elements.count + index : index
                return elements.indices.contains(i) ? [(node.path + [.index(i)], elements[i])] : []
            case .slice(let start, let end, let step):
                guard case .array(let elements) = node.value else { return [] }
                return sliceIndices(elements.count, start, end, step).map { (node.path + [.index($0)], elements[$0]) }
            case .filter(let filter):
                return members(node).filter { holds(filter.expression, $0) }
            }
        }
    }

    private func sliceIndices(_ length: Int, _ start: Int?, _ end: Int?, _ step: Int?) -> [Int] {
        let step = step ?? 1
        if step == 0 { return [] }
        func norm(_ i: Int) -> Int { i >= 0 ? i : length + i }
        if step > 0 {
            let lower = min(max(norm(start ?? 0), 0), length)
            let upper = min(max(norm(end ?? length), 0), length)
            return Array(stride(from: lower, to: upper, by: step))
        }
        let upper = min(max(norm(start ?? length - 1), -1), length - 1)
        let lower = min(max(end.map(norm) ?? -1, -1), length - 1)
        return Array(stride(from: upper, to: lower, by: step))
    }

    // MARK: Filters

    private enum Operand {
        case nothing
        case value(JSONValue)
    }

    private func holds(_ expression: FilterExpression, _ current: Node) -> Bool {
        switch expression {
        case .or(let terms): return terms.contains { holds($0, current) }
        case .and(let terms): return terms.allSatisfy { holds($0, current) }
        case .not(let term): return !holds(term, current)
        case .exists(let query): return !run(query, current).isEmpty
        case .test(let function):
            guard case .value(.string(let text)) = argument(function.arguments[0], current),
                case .value(.string(let pattern)) = argument(function.arguments[1], current),
                let regexp = IRegexp(pattern, wholeString: function.name == .match)
            else { return false }
            return regexp.matches(text)
        case .comparison(let left, let op, let right):
            let a = operand(left, current)
            let b = operand(right, current)
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

    private func run(_ query: FilterQuery, _ current: Node) -> [Node] {
        apply(query.segments, to: [query.isAbsolute ? ([], root) : current])
    }

    private func literal(_ literal: FilterLiteral) -> JSONValue {
        switch literal {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .string(let text): return .string(text)
        case .number(let number):
            let text =
                (number.isNegative ? "-" : "")
                + String(decoding: number.digits.isEmpty ? [48] : number.digits, as: UTF8.self)
                + "e\(number.exponent)"
            return .number(JSONNumber(text)!)
        }
    }

    private func operand(_ comparable: FilterComparable, _ current: Node) -> Operand {
        switch comparable {
        case .literal(let value): return .value(literal(value))
        case .query(let query): return run(query, current).first.map { .value($0.value) } ?? .nothing
        case .function(let function): return call(function, current)
        }
    }

    private func argument(_ argument: FilterFunction.Argument, _ current: Node) -> Operand {
        switch argument {
        case .literal(let value): return .value(literal(value))
        case .query(let query): return run(query, current).first.map { .value($0.value) } ?? .nothing
        case .function(let function): return call(function, current)
        case .logical: return .nothing
        }
    }

    private func call(_ function: FilterFunction, _ current: Node) -> Operand {
        switch function.name {
        case .length:
            switch argument(function.arguments[0], current) {
            case .value(.string(let text)): return .value(.number(JSONNumber("\(text.unicodeScalars.count)")!))
            case .value(.array(let elements)): return .value(.number(JSONNumber("\(elements.count)")!))
            case .value(.object(let object)): return .value(.number(JSONNumber("\(object.members.count)")!))
            default: return .nothing
            }
        case .count:
            guard case .query(let query) = function.arguments[0] else { return .nothing }
            return .value(.number(JSONNumber("\(run(query, current).count)")!))
        case .value:
            guard case .query(let query) = function.arguments[0] else { return .nothing }
            let nodes = run(query, current)
            return nodes.count == 1 ? .value(nodes[0].value) : .nothing
        case .match, .search:
            return .nothing
        }
    }

    private func number(_ value: JSONValue) -> Double? {
        guard case .number(let number) = value else { return nil }
        return Double(number.text)
    }

    private func equal(_ a: Operand, _ b: Operand) -> Bool {
        switch (a, b) {
        case (.nothing, .nothing): return true
        case (.value(let x), .value(let y)): return same(x, y)
        default: return false
        }
    }

    private func same(_ x: JSONValue, _ y: JSONValue) -> Bool {
        switch (x, y) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return Array(a.unicodeScalars) == Array(b.unicodeScalars)
        case (.number, .number): return number(x) == number(y)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.members.count == b.members.count
                && a.members.allSatisfy { m in b.members.contains { $0.key == m.key && same($0.value, m.value) } }
        default: return false
        }
    }

    private func less(_ a: Operand, _ b: Operand) -> Bool {
        guard case .value(let x) = a, case .value(let y) = b else { return false }
        if let p = number(x), let q = number(y) { return p < q }
        if case .string(let s) = x, case .string(let t) = y {
            return s.unicodeScalars.map(\.value).lexicographicallyPrecedes(t.unicodeScalars.map(\.value))
        }
        return false
    }
}
