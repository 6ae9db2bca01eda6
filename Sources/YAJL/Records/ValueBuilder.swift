/// Assembles the events of one selected subtree into a ``JSONValue``.
struct ValueBuilder {
    private enum Partial {
        case array([JSONValue])
        case object([JSONObject.Member], key: String)
    }

    private var stack: [Partial] = []
    /// The finished value, once the subtree has closed.
    private(set) var result: JSONValue?

    var isComplete: Bool { result != nil }
    var depth: Int { stack.count }

    mutating func startArray() { stack.append(.array([])) }
    mutating func startObject() { stack.append(.object([], key: "")) }

    mutating func key(_ key: String) {
        guard case .object(let members, _) = stack.removeLast() else { return }
        stack.append(.object(members, key: key))
    }

    mutating func end() {
        switch stack.removeLast() {
        case .array(let elements): add(.array(elements))
        case .object(let members, _): add(.object(JSONObject(members)))
        }
    }

    mutating func add(_ value: JSONValue) {
        guard let top = stack.popLast() else {
            result = value
            return
        }
        switch top {
        case .array(var elements):
            elements.append(value)
            stack.append(.array(elements))
        case .object(var members, let key):
            members.append(JSONObject.Member(key: key, value: value))
            stack.append(.object(members, key: key))
        }
    }
}
