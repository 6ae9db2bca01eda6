/// Dictionaries keyed by strings, written by ``StreamingEncoder`` with their keys as they are:
/// `JSONEncoder` applies its key strategy (snake case, custom) to the keys of a type's
/// `CodingKeys`, never to a dictionary's keys, which are data. Through the standard library's
/// `Dictionary.encode(to:)`, a keyed container would have converted them.
protocol StringKeyedEncodableDictionary {
    /// Writes the dictionary as an object through `encoder`, keys unconverted.
    func encodeMembers(to encoder: StreamingEncoder) throws
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func encodeMembers(to encoder: StreamingEncoder) throws {
        try encoder.encodeMembers(self)
    }
}

extension StreamingEncoder {
    /// `members` as an object, in the dictionary's order (as `Dictionary.encode(to:)` writes it),
    /// each value at its key's coding path.
    func encodeMembers<Value: Encodable>(_ members: [String: Value]) throws {
        let level = try openContainer(object: true)
        for (key, value) in members {
            try close(deeperThan: level)
            try writer.key(key)
            try encodeValue(value, at: .key(key, parent: node))
        }
        try close(deeperThan: level - 1)
    }
}
