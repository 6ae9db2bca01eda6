/// A selected value with where it came from.
public struct JSONRecord<Value> {
    /// The selected value (owned, or decoded).
    public var value: Value
    /// The value's path in its document, e.g. `$.results[41]`.
    public let path: JSONPath
    /// Which of the selected paths matched (its position in the list given).
    public let queryIndex: Int
    /// Which top-level value it belongs to (0 unless multiple values are allowed: NDJSON lines).
    public let topLevelIndex: Int
    /// The 1-based line where the value starts (for NDJSON, the line number).
    public let line: Int
    /// The absolute byte offset where the value starts (its first byte).
    public let byteOffset: Int
}

extension JSONRecord: Sendable where Value: Sendable {}
