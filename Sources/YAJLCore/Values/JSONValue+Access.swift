/// Building ``JSONValue``s from Swift literals and text, and reading them back: the document mode
/// of yajl-objc (a tree of arrays and objects), for small documents and for pieces of big ones.
///
/// ```swift
/// let config: JSONValue = ["name": "import", "threads": 4, "paths": ["$.results[*]"], "dry": false]
/// let parsed = try JSONValue(parsing: #"{"a": [1, 2.5, null]}"#)
/// parsed[path: ["a", 1]]?.doubleValue  // 2.5
/// try parsed.select("$..[?@ > 1]")     // [2.5]
/// ```
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer, exactly.
    public init(integerLiteral value: Int) {
        self = .number(JSONNumber(text: String(value), value: .integer(Int64(value))))
    }
    /// A double, written with the shortest text that reads back as the same double.
    public init(floatLiteral value: Double) {
        precondition(value.isFinite, "JSON has no \(value)")
        self = .number(JSONNumber(text: "\(value)", value: .double(value)))
    }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(JSONArray(elements)) }
    /// An object, its members in the literal's order.
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// Parses one JSON document (strictly: one value, UTF-8 checked).
    /// - Throws: ``JSONParseError`` with the line, column and path of what is wrong.
    public init(parsing text: String, options: JSONParser.Options = JSONParser.Options()) throws {
        try self.init(parsing: Array(text.utf8), options: options)
    }

    /// Parses one JSON document from its UTF-8 bytes (`[UInt8]`, `Data`, …).
    /// - Throws: ``JSONParseError`` with the line, column and path of what is wrong.
    public init(parsing bytes: some Sequence<UInt8>, options: JSONParser.Options = JSONParser.Options()) throws {
        var recordOptions = JSONRecordOptions(parser: options)
        recordOptions.parsesConcurrently = false
        recordOptions.parser.allowMultipleValues = false
        let reader = try JSONRecordReader(JSONValue.self, at: "$", from: .bytes(bytes), options: recordOptions)
        self = try reader.next() ?? .null  // a parse always selects `$` or throws
        _ = try reader.next()  // anything after the value is an error
    }

    /// The boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as an `Int64`, if this is an integer within its range.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as a `Double` (the nearest), if this is a number.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array.elements }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The value at `path` below this one (keys and indices from here), or `nil` when a step is
    /// missing: `value[path: ["results", 0, "name"]]`, or a path a record reported.
    public subscript(path path: JSONPath) -> JSONValue? {
        var current = self
        for component in path.components {
            switch component {
            case .key(let key):
                guard let next = current[key] else { return nil }
                current = next
            case .index(let index):
                guard let next = current[index] else { return nil }
                current = next
            }
        }
        return current
    }

    /// The values an RFC 9535 JSONPath query selects in this value (its `$`), in the RFC's order.
    /// - Throws: ``JSONPathSyntaxError`` for an invalid query.
    public func select(_ query: String) throws -> [JSONValue] {
        var options = JSONRecordOptions()
        options.order = .rfc
        options.parsesConcurrently = false
        options.requireMatch = false  // an empty nodelist is an answer here
        options.maxBufferedBytes = Int.max
        let reader = try JSONRecordReader(JSONValue.self, at: query, from: .text(description), options: options)
        var values: [JSONValue] = []
        while let value = try reader.next() { values.append(value) }
        return values
    }
}

extension JSONPath.Component: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A key.
    public init(stringLiteral key: String) { self = .key(key) }
    /// An index.
    public init(integerLiteral index: Int) { self = .index(index) }
}
