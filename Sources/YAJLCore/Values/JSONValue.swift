// Values/: owned values (JSONValue, JSONArray, JSONObject, JSONFragment), built, compared and
// released without recursion; calls Tape/ (to build from a capture) and Writer/ token sinks.

/// An owned JSON value: one selected subtree of a streamed document.
///
/// Numbers are lossless (``JSONNumber`` keeps the original text) and objects keep their members'
/// order and any duplicate keys, so a value can be written back exactly as it was read (minified).
///
/// Values of any depth are built, compared, hashed, written and released without recursion:
/// arrays and objects keep their elements in storage (``JSONArray``, ``JSONObject``) that releases
/// nested containers one at a time.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, with its text exactly as written (so big integers and decimals stay exact).
    case number(JSONNumber)
    /// A string, unescaped.
    case string(String)
    /// An array's elements, in order (``JSONArray`` is a collection of them; build one from an array
    /// literal, or from a Swift array with ``array(_:)-type.method``).
    case array(JSONArray)
    /// An object's members, in document order (duplicate keys kept).
    case object(JSONObject)

    /// The member named `key` of an object (the first, if the key repeats); `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` if this is not an array or the index is out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value's kind, for messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON object's members in document order, duplicates kept.
///
/// Its storage is released one nested array or object at a time, as ``JSONArray``'s is.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        /// The member's key, unescaped.
        public var key: String
        /// The member's value.
        public var value: JSONValue
        /// A member with `key` and `value`.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    var storage: JSONObjectStorage

    /// The members, in document order.
    public var members: [Member] {
        get { storage.members }
        set {
            makeUnique()
            storage.members = newValue
        }
        _modify {
            makeUnique()
            yield &storage.members
        }
    }

    /// An object with `members`, in order.
    public init(_ members: [Member] = []) { storage = JSONObjectStorage(members) }

    /// An object with the literal's members, in order.
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self.init(members.map { Member(key: $0.0, value: $0.1) })
    }

    /// Copies the storage before a write when another value shares it (copy on write).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = JSONObjectStorage(storage.members) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.members.count }
    public subscript(position: Int) -> Member { storage.members[position] }

    /// Whether both have equal members in the same order (compared without recursion).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { JSONValue.object(lhs) == JSONValue.object(rhs) }

    public func hash(into hasher: inout Hasher) { JSONValue.object(self).hash(into: &hasher) }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// Every value for `key`, in order (more than one only when the key repeats).
    public func values(forKey key: String) -> [JSONValue] {
        members.filter { $0.key == key }.map(\.value)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as minified JSON, written by YAJL's generator at any depth: numbers exactly as
    /// written, strings escaped as `yajl_gen` escapes them (the same bytes as ``JSONFragment``).
    public var description: String {
        var text = MinifiedText()
        write(to: &text)
        return String(decoding: text.finish(), as: UTF8.self)
    }

    /// Writes the value to `sink`, token by token.
    func write<Sink: JSONTokenSink>(to sink: inout Sink) throws(Sink.Failure) {
        try walk { (step: JSONValue.Step) throws(Sink.Failure) in
            switch step {
            case .scalar(.bool(let value)): try sink.bool(value)
            case .scalar(.number(let number)): try sink.number(number)
            case .scalar(.string(let string)): try sink.string(string)
            case .scalar: try sink.null()
            case .key(let key): try sink.key(key)
            case .startArray: try sink.startArray()
            case .startObject: try sink.startObject()
            case .endArray: try sink.endArray()
            case .endObject: try sink.endObject()
            }
        }
    }

    /// A container ``walk(_:)`` is inside, and where in it.
    private enum WalkFrame {
        case array(JSONArray, next: Int)
        case object([JSONObject.Member], next: Int)
    }

    /// One token of a value, as ``walk(_:)`` visits them.
    package enum Step {
        /// A null, a bool, a number or a string.
        case scalar(JSONValue)
        case key(String)
        case startArray, startObject, endArray, endObject
    }

    /// Visits the value's tokens in order, the open containers on an explicit stack (no recursion,
    /// whatever the depth).
    package func walk<Failure: Error>(_ visit: (Step) throws(Failure) -> Void) throws(Failure) {
        var open: [WalkFrame] = []
        var current: JSONValue? = self
        while true {
            if let value = current {
                current = nil
                switch value {
                case .array(let elements):
                    try visit(.startArray)
                    open.append(.array(elements, next: 0))
                case .object(let object):
                    try visit(.startObject)
                    open.append(.object(object.members, next: 0))
                default:
                    try visit(.scalar(value))
                }
            }
            guard let top = open.popLast() else { return }
            switch top {
            case .array(let elements, let next):
                if next < elements.count {
                    current = elements[next]
                    open.append(.array(elements, next: next + 1))
                } else {
                    try visit(.endArray)
                }
            case .object(let members, let next):
                if next < members.count {
                    try visit(.key(members[next].key))
                    current = members[next].value
                    open.append(.object(members, next: next + 1))
                } else {
                    try visit(.endObject)
                }
            }
        }
    }
}

extension JSONValue: Decodable {
    /// Decodes any JSON. With swift-yajl's record decoding this is free (the value is handed over
    /// as is); with other decoders (e.g. `JSONDecoder`) numbers keep the text the decoder gives and
    /// object member order is the decoder's.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: RecordCodingKey.self) {
            var members: [JSONObject.Member] = []
            for key in container.allKeys {
                members.append(
                    JSONObject.Member(key: key.stringValue, value: try container.decode(JSONValue.self, forKey: key))
                )
            }
            self = .object(JSONObject(members))
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(text: String(value), value: .integer(value)))
        } else if let value = try? container.decode(Double.self) {
            self = .number(JSONNumber(text: "\(value)", value: .double(value)))
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

extension JSONValue: Encodable {
    /// Encodes the value. swift-yajl's writers write numbers from their original text; other
    /// encoders (e.g. `JSONEncoder`) get integers as `Int64`, other numbers as `Double` (or, when
    /// neither fits, as their text in a string).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let number):
            var container = encoder.singleValueContainer()
            switch number.value {
            case .integer(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .unrepresentable: try container.encode(number.text)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: RecordCodingKey.self)
            for member in object.members {
                try container.encode(member.value, forKey: RecordCodingKey(stringValue: member.key))
            }
        }
    }
}
