/// One value being encoded: the tree `JSONEncoder` builds, made here for one record (or one
/// ``JSONWriter/encode(_:options:)`` value) at a time and then written through the writer.
///
/// The `Encoder` protocol lets a value come back to a container it already wrote to: two
/// `nestedContainer(keyedBy:forKey:)` calls for one key share one object, a key encoded twice
/// keeps its last value, containers may be written to alternately, and a super-encoder fills its
/// slot when it is released. A stream cannot be amended, so the record is built first; its
/// containers are references, so that each container a value holds writes into the one node.
enum EncodedValue {
    case null
    case bool(Bool)
    /// A number as its JSON text (integers in full, floating point in shortest form).
    case number(String)
    case string(String)
    case array(EncodedArray)
    case object(EncodedObject)
    /// A ``JSONValue``, written as it is (numbers from their text, members in order).
    case json(JSONValue)
}

/// An array's elements, shared by the containers that write to it.
final class EncodedArray {
    var elements: [EncodedValue] = []

    init() {}
    init(_ elements: [EncodedValue]) { self.elements = elements }
}

/// An object's members in the order their keys were first written; writing a key again replaces
/// its value in place (as `JSONEncoder`'s dictionary does), so a key is written once.
final class EncodedObject {
    private(set) var keys: [String] = []
    private(set) var values: [EncodedValue] = []
    /// Key → position, built once the object has more members than a scan is worth.
    private var positions: [String: Int]?
    private static let scanLimit = 12

    init() {}

    var count: Int { keys.count }

    /// The position of `key`, if the object has it.
    func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    /// The value at `key`, if any.
    subscript(key: String) -> EncodedValue? { position(of: key).map { values[$0] } }

    /// Sets `key` to `value`: in place if the key is there, else as a new last member.
    func set(_ value: EncodedValue, for key: String) {
        if let position = position(of: key) {
            values[position] = value
            return
        }
        keys.append(key)
        values.append(value)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.scanLimit {
            positions = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }
}

extension EncodedValue {
    /// Writes the value through `writer`'s checked calls, with an explicit stack (no recursion,
    /// whatever the depth). The writer enforces its depth limit and reports it.
    /// With `sortedKeys`, each object's members are written in the byte order of their keys'
    /// UTF-8, as `JSONEncoder`'s `.sortedKeys` writes them.
    func write(to writer: JSONWriter, sortedKeys: Bool = false) throws {
        var stack: [EncodedFrame] = []
        var next: EncodedValue? = self
        while true {
            if let value = next {
                next = nil
                switch value {
                case .null: try writer.null()
                case .bool(let flag): try writer.bool(flag)
                case .number(let text):
                    var text = text
                    try text.withUTF8 { try writer.number(text: UnsafeRawBufferPointer($0)) }
                case .string(let text): try writer.string(text)
                case .array(let array):
                    try writer.startArray()
                    stack.append(.array(array.elements, 0))
                case .object(let object):
                    try writer.startObject()
                    stack.append(.object(object, sortedKeys ? Self.order(of: object.keys) : nil, 0))
                case .json(let json):
                    switch json {
                    case .array(let elements):
                        try writer.startArray()
                        stack.append(.jsonArray(elements, 0))
                    case .object(let object):
                        try writer.startObject()
                        stack.append(
                            .jsonObject(object, sortedKeys ? Self.order(of: object.members.map(\.key)) : nil, 0)
                        )
                    default: try writer.write(json)  // a scalar: no nesting
                    }
                }
            }
            guard let top = stack.popLast() else { return }
            switch top {
            case .array(let elements, let index):
                if index == elements.count {
                    try writer.endArray()
                } else {
                    stack.append(.array(elements, index + 1))
                    next = elements[index]
                }
            case .object(let object, let order, let index):
                if index == object.count {
                    try writer.endObject()
                } else {
                    stack.append(.object(object, order, index + 1))
                    let member = order?[index] ?? index
                    try writer.key(object.keys[member])
                    next = object.values[member]
                }
            case .jsonArray(let elements, let index):
                if index == elements.count {
                    try writer.endArray()
                } else {
                    stack.append(.jsonArray(elements, index + 1))
                    next = .json(elements[index])
                }
            case .jsonObject(let object, let order, let index):
                if index == object.count {
                    try writer.endObject()
                } else {
                    stack.append(.jsonObject(object, order, index + 1))
                    let member = object.members[order?[index] ?? index]
                    try writer.key(member.key)
                    next = .json(member.value)
                }
            }
        }
    }
}

extension EncodedValue {
    /// The positions of `keys` in the byte order of their UTF-8 (stable for equal keys).
    fileprivate static func order(of keys: [String]) -> [Int] {
        keys.indices.sorted { a, b in
            keys[a].utf8.lexicographicallyPrecedes(keys[b].utf8) || (keys[a].utf8.elementsEqual(keys[b].utf8) && a < b)
        }
    }
}

/// A container being written, and the position of its next member or element.
private enum EncodedFrame {
    case array([EncodedValue], Int)
    /// An object, the order of its members when keys are sorted, the next position.
    case object(EncodedObject, [Int]?, Int)
    case jsonArray(JSONArray, Int)
    case jsonObject(JSONObject, [Int]?, Int)
}
