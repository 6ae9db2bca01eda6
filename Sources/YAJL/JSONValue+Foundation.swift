import Foundation
import YAJLCore

/// ``JSONValue`` to and from the `Any` trees of `JSONSerialization`, numbers without rounding.
extension JSONValue {
    /// Converts what `JSONSerialization.jsonObject` produces (or any tree of `NSNull`, `Bool`,
    /// `NSNumber`, `Decimal`, Swift integers and floating-point numbers, `String`, `[Any]` and
    /// `[String: Any]`). Dictionary keys are sorted (Foundation keeps no order). A `char`-typed
    /// `NSNumber` is a boolean, as `JSONSerialization` makes them.
    /// - Throws: ``JSONValueConversionError`` for anything else, or a non-finite number.
    public init(foundation object: Any) throws {
        // The open arrays and dictionaries on an explicit stack: no recursion, whatever the depth.
        struct Open {
            let items: [Any]
            /// The dictionary's keys, sorted, in the order of `items`; `nil` for an array.
            let keys: [String]?
            var next = 0
            var values: [JSONValue] = []
        }
        var open: [Open] = []
        var item: Any? = object
        var made: JSONValue?
        while true {
            if let current = item {
                item = nil
                if let scalar = try Self.scalar(current) {
                    made = scalar
                } else if let array = current as? [Any] {
                    open.append(Open(items: array, keys: nil))
                } else if let dictionary = current as? [String: Any] {
                    let keys = dictionary.keys.sorted()
                    open.append(Open(items: keys.map { dictionary[$0]! }, keys: keys))
                } else {
                    throw JSONValueConversionError(message: "\(type(of: current)) is not a JSON value")
                }
            }
            if let value = made {
                made = nil
                guard !open.isEmpty else {
                    self = value
                    return
                }
                open[open.count - 1].values.append(value)
            }
            let top = open.count - 1
            if open[top].next < open[top].items.count {
                item = open[top].items[open[top].next]
                open[top].next += 1
            } else {
                let closed = open.removeLast()
                if let keys = closed.keys {
                    made = .object(JSONObject(zip(keys, closed.values).map { JSONObject.Member(key: $0, value: $1) }))
                } else {
                    made = .array(JSONArray(closed.values))
                }
            }
        }
    }

    /// A scalar (or an existing ``JSONValue``) converted; `nil` for an array or a dictionary.
    private static func scalar(_ object: Any) throws -> JSONValue? {
        switch object {
        case let value as JSONValue: return value
        case is NSNull: return .null
        case let value as Bool where type(of: object) == Bool.self: return .bool(value)
        case let value as String: return .string(value)
        case let value as NSDecimalNumber: return try number(value.description, object)
        case let value as Decimal: return try number(value.description, object)
        case let value as NSNumber:
            switch String(cString: value.objCType) {
            case "c", "B": return .bool(value.boolValue)
            case "f", "d": return try number(value.doubleValue, object)
            case "Q", "L", "I", "S", "C": return try number(String(value.uint64Value), object)
            default: return try number(String(value.int64Value), object)
            }
        case let value as Int: return try number(String(value), object)
        case let value as Int64: return try number(String(value), object)
        case let value as UInt64: return try number(String(value), object)
        case let value as Double: return try number(value, object)
        case let value as Float: return try number(Double(value), object)
        default: return nil
        }
    }

    private static func number(_ value: Double, _ object: Any) throws -> JSONValue {
        guard value.isFinite else { throw JSONValueConversionError(message: "\(value) is not a JSON number") }
        return try number("\(value)", object)
    }

    private static func number(_ text: String, _ object: Any) throws -> JSONValue {
        guard let number = JSONNumber(text) else {
            throw JSONValueConversionError(message: "\(object) (\(type(of: object))) is not a JSON number")
        }
        return .number(number)
    }

    /// The value as `JSONSerialization` would give it: `NSNull`, `Bool`, `String`, `[Any]`,
    /// `[String: Any]`, and numbers as `Int` (or `UInt64`) for integers in range, `Decimal` for
    /// other integers and for decimals that a `Double` would round, `Double` for the rest. Nothing
    /// is rounded: 123456789012345678901234567890 is a `Decimal` with every digit.
    /// - Throws: ``JSONValueConversionError`` for a number that neither a `Double` nor a `Decimal`
    ///   (38 significant digits) holds exactly, or an object with a key twice.
    public func foundationObject() throws -> Any {
        // Built with the open containers on an explicit stack: no recursion, whatever the depth.
        final class Open {
            var elements: [Any] = []
            var dictionary: [String: Any]?
            var key: String?
            init(isObject: Bool) { dictionary = isObject ? [:] : nil }
            var object: Any { dictionary ?? elements }
        }
        var open: [Open] = []
        var result: Any?
        func add(_ object: Any) throws {
            guard let top = open.last else {
                result = object
                return
            }
            if top.dictionary != nil, let key = top.key {
                guard top.dictionary![key] == nil else {
                    throw JSONValueConversionError(message: "the key \"\(key)\" appears twice; a dictionary keeps one")
                }
                top.dictionary![key] = object
                top.key = nil
            } else {
                top.elements.append(object)
            }
        }
        try walk { step in
            switch step {
            case .scalar(let scalar): try add(try scalar.foundationScalar())
            case .key(let key): open.last?.key = key
            case .startArray: open.append(Open(isObject: false))
            case .startObject: open.append(Open(isObject: true))
            case .endArray, .endObject: try add(open.removeLast().object)
            }
        }
        return result ?? NSNull()
    }

    /// ``foundationObject()`` of a null, a bool, a string or a number.
    private func foundationScalar() throws -> Any {
        switch self {
        case .null, .array, .object: return NSNull()
        case .bool(let value): return value
        case .string(let value): return value
        case .number(let number):
            guard let exact = ExactNumber(text: Array(number.text.utf8)) else {
                throw JSONValueConversionError(message: "\(number.text) is not a number")
            }
            if exact.exponent >= 0 {
                if let value = Int(number.text) { return value }
                if let value = UInt64(number.text) { return value }
            }
            if let double = Double(number.text), double.isFinite,
                ExactNumber(text: Array("\(double)".utf8)) == exact
            {
                return double
            }
            if exact.digits.count <= 38, let decimal = Decimal(string: number.text),
                ExactNumber(text: Array(decimal.description.utf8)) == exact
            {
                return decimal
            }
            throw JSONValueConversionError(
                message: "\(number.text) has more digits than a Double or a Decimal holds; read it as JSONNumber.text"
            )
        }
    }
}

/// A value that has no JSON form (or no Foundation form): what it was, in words.
public struct JSONValueConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What could not be converted, and why.
    public let message: String

    /// The message.
    public var description: String { message }
}

extension JSONValueConversionError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}
