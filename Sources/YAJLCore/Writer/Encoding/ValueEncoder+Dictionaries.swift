/// Dictionaries keyed by strings, encoded by ``ValueEncoder`` with their keys as they are:
/// `JSONEncoder` applies its key strategy (snake case, custom) to the keys of a type's
/// `CodingKeys`, never to a dictionary's keys, which are data. Through the standard library's
/// `Dictionary.encode(to:)`, a keyed container would have converted them.
protocol StringKeyedEncodableDictionary {
    /// The dictionary as an object, keys unconverted, each value at its key's coding path.
    func encodedMembers(by encoder: ValueEncoder, at path: EncodingPath, depth: Int) throws -> EncodedValue
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func encodedMembers(by encoder: ValueEncoder, at path: EncodingPath, depth: Int) throws -> EncodedValue {
        guard depth < encoder.context.maxDepth else { throw encoder.context.tooDeep(at: path) }
        let object = EncodedObject()
        for (key, value) in self {
            object.set(
                try encoder.wrap(value, at: path.appending(RecordCodingKey(stringValue: key)), depth: depth + 1),
                for: key
            )
        }
        return .object(object)
    }
}
