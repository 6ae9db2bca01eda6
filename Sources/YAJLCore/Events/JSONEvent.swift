/// One parse event as an owned value: the convenient, allocating counterpart of
/// ``JSONEventHandler``'s borrowed views.
///
/// Use it where clarity beats speed (tests, scripts, small documents) with
/// ``JSONParser/init(options:onEvent:)``.
public enum JSONEvent: Sendable, Hashable, CustomStringConvertible {
    /// An object begins (`{`).
    case startObject
    /// The innermost open object ends (`}`).
    case endObject
    /// An array begins (`[`).
    case startArray
    /// The innermost open array ends (`]`).
    case endArray
    /// An object key (unescaped).
    case key(String)
    /// A string value (unescaped).
    case string(String)
    /// A number, lossless.
    case number(JSONNumber)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// A compact rendering, e.g. `key("name")`, `number(1.5)`.
    public var description: String {
        switch self {
        case .startObject: return "startObject"
        case .endObject: return "endObject"
        case .startArray: return "startArray"
        case .endArray: return "endArray"
        case .key(let key): return "key(\(key.debugDescription))"
        case .string(let value): return "string(\(value.debugDescription))"
        case .number(let number): return "number(\(number.text))"
        case .bool(let value): return "bool(\(value))"
        case .null: return "null"
        }
    }
}

/// Adapts a closure over owned events to ``JSONEventHandler``.
final class ClosureEventHandler: JSONEventHandler {
    let body: (JSONEvent, JSONEventContext) throws -> Void

    init(_ body: @escaping (JSONEvent, JSONEventContext) throws -> Void) { self.body = body }

    func startObject(context: JSONEventContext) throws { try body(.startObject, context) }
    func endObject(context: JSONEventContext) throws { try body(.endObject, context) }
    func startArray(context: JSONEventContext) throws { try body(.startArray, context) }
    func endArray(context: JSONEventContext) throws { try body(.endArray, context) }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { try body(.key(key.string), context) }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { try body(.string(value.string), context) }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws { try body(.number(value.number), context) }
    func bool(_ value: Bool, context: JSONEventContext) throws { try body(.bool(value), context) }
    func null(context: JSONEventContext) throws { try body(.null, context) }
}
