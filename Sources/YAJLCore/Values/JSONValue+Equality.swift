/// Equality and hashing of ``JSONValue``s, on explicit stacks: two values of any depth compare
/// and hash without recursion (the synthesized conformances would recurse once per level).
extension JSONValue {
    /// Whether both are the same JSON: the same kind; equal booleans, strings and numbers (a
    /// number's text and value, as ``JSONNumber`` compares them); arrays with equal elements in
    /// order; objects with equal keys and values in order, duplicates included.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        // Pairs still to compare inside containers; a scalar comparison never allocates it.
        var pending: [(JSONValue, JSONValue)] = []
        var pair = (lhs, rhs)
        while true {
            switch pair {
            case (.null, .null):
                break
            case (.bool(let a), .bool(let b)):
                if a != b { return false }
            case (.number(let a), .number(let b)):
                if a != b { return false }
            case (.string(let a), .string(let b)):
                if a != b { return false }
            case (.array(let a), .array(let b)):
                if a.storage === b.storage { break }
                guard a.count == b.count else { return false }
                for index in a.indices { pending.append((a[index], b[index])) }
            case (.object(let a), .object(let b)):
                if a.storage === b.storage { break }
                guard a.count == b.count else { return false }
                for index in a.indices {
                    guard a[index].key == b[index].key else { return false }
                    pending.append((a[index].value, b[index].value))
                }
            default:
                return false
            }
            guard let next = pending.popLast() else { return true }
            pair = next
        }
    }

    /// Hashes the value's tokens in order, so that equal values hash equally.
    public func hash(into hasher: inout Hasher) {
        walk { (step: Step) in
            switch step {
            case .scalar(.null): hasher.combine(0 as UInt8)
            case .scalar(.bool(let value)):
                hasher.combine(1 as UInt8)
                hasher.combine(value)
            case .scalar(.number(let number)):
                hasher.combine(2 as UInt8)
                hasher.combine(number)
            case .scalar(.string(let string)):
                hasher.combine(3 as UInt8)
                hasher.combine(string)
            case .scalar: break  // containers are not scalars
            case .key(let key):
                hasher.combine(4 as UInt8)
                hasher.combine(key)
            case .startArray: hasher.combine(5 as UInt8)
            case .endArray: hasher.combine(6 as UInt8)
            case .startObject: hasher.combine(7 as UInt8)
            case .endObject: hasher.combine(8 as UInt8)
            }
        }
    }
}
