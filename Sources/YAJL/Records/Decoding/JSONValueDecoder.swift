import Foundation

/// Shared, per-stream decoding state: the strategies, and caches that make them cheap.
final class DecodingSession {
    let options: JSONRecordDecodingOptions
    let userInfo: [CodingUserInfoKey: Any]
    /// snake_case key → camelCase key, converted once per distinct key.
    private var convertedKeys: [String: String] = [:]
    private lazy var iso8601 = ISO8601DateFormatter()
    private lazy var iso8601Fractional: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    init(options: JSONRecordDecodingOptions) {
        self.options = options
        userInfo = options.userInfo
    }

    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try JSONValueDecoder(value: value, node: .root, session: self).decodeValue(T.self)
    }

    func convert(key: String) -> String {
        if let converted = convertedKeys[key] { return converted }
        let converted = Self.camelCase(fromSnakeCase: key)
        convertedKeys[key] = converted
        return converted
    }

    func date(from string: String) -> Date? {
        iso8601.date(from: string) ?? iso8601Fractional.date(from: string)
    }

    /// `JSONDecoder`'s rule: split on `_`, capitalize all but the first word, keep leading and
    /// trailing underscores.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard key.contains("_") else { return key }
        let characters = Array(key)
        guard let first = characters.firstIndex(where: { $0 != "_" }) else { return key }
        var last = characters.count - 1
        while last > first && characters[last] == "_" { last -= 1 }
        let words = String(characters[first...last]).split(separator: "_", omittingEmptySubsequences: true)
        guard let head = words.first else { return key }
        let body = String(head) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        return String(characters[..<first]) + body + String(characters[(last + 1)...])
    }
}

/// A `Decoder` over one ``JSONValue``. Decoding never copies the tree; containers keep their
/// position as a ``CodingPathNode`` linked list.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let node: CodingPathNode
    let session: DecodingSession

    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch(expected: "object", node: node, value: value) }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, node: node, session: session))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch(expected: "array", node: node, value: value) }
        return UnkeyedContainer(elements: elements, node: node, session: session)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Decodes `T`, with the special cases `JSONDecoder` has (dates, data, URLs, decimals).
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is JSONValue.Type: return value as! T
        case is Date.Type: return try decodeDate() as! T
        case is Data.Type:
            let text = try decode(String.self)
            guard let data = Data(base64Encoded: text) else { throw corrupted("expected Base64 data") }
            return data as! T
        case is URL.Type:
            let text = try decode(String.self)
            guard let url = URL(string: text) else { throw corrupted("invalid URL '\(text)'") }
            return url as! T
        case is Decimal.Type: return try decodeDecimal() as! T
        default: return try T(from: self)
        }
    }

    private func decodeDate() throws -> Date {
        switch session.options.dateDecodingStrategy {
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self) / 1000)
        case .iso8601:
            let text = try decode(String.self)
            guard let date = session.date(from: text) else { throw corrupted("expected an ISO 8601 date, found '\(text)'") }
            return date
        case .custom(let body): return try body(self)
        }
    }

    private func decodeDecimal() throws -> Decimal {
        let text: String
        switch value {
        case .number(let number): text = number.text
        case .string(let string): text = string
        default: throw mismatch(expected: "Decimal", node: node, value: value)
        }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw corrupted("'\(text)' is not a decimal number")
        }
        return decimal
    }

    func corrupted(_ message: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message))
    }
}

/// `expected String, found number` as a `DecodingError.typeMismatch`.
func mismatch(expected: String, node: CodingPathNode, value: JSONValue) -> DecodingError {
    .typeMismatch(Any.self, DecodingError.Context(
        codingPath: node.codingPath, debugDescription: "expected \(expected), found \(value.kindName)"))
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { if case .null = value { return true } else { return false } }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(expected: "Bool", node: node, value: value) }
        return bool
    }

    /// Strings decode as themselves; a number decodes as its exact text, so big integers can be
    /// kept losslessly in a `String`.
    func decode(_ type: String.Type) throws -> String {
        switch value {
        case .string(let string): return string
        case .number(let number): return number.text
        default: throw mismatch(expected: "String", node: node, value: value)
        }
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(expected: "Double", node: node, value: value) }
        guard let double = number.doubleValue else { throw corrupted("\(number.text) does not fit in Double") }
        return double
    }

    func decode(_ type: Float.Type) throws -> Float {
        let double = try decode(Double.self)
        guard let float = Float(exactly: double) ?? (abs(double) <= Double(Float.greatestFiniteMagnitude) ? Float(double) : nil) else {
            throw corrupted("\(double) does not fit in Float")
        }
        return float
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(expected: "\(T.self)", node: node, value: value) }
        switch number.value {
        case .integer(let integer):
            if let exact = T(exactly: integer) { return exact }
        case .double(let double):
            if let exact = T(exactly: double) { return exact }
            if let exact = T(number.text) { return exact }  // e.g. UInt64 above Int64.max
        case .unrepresentable:
            break
        }
        throw corrupted("\(number.text) does not fit in \(T.self)")
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let node: CodingPathNode
    let session: DecodingSession

    var codingPath: [any CodingKey] { node.codingPath }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: jsonKeyToCodingKey($0.key)) } }

    private func jsonKeyToCodingKey(_ key: String) -> String {
        switch session.options.keyDecodingStrategy {
        case .useDefaultKeys: return key
        case .convertFromSnakeCase: return session.convert(key: key)
        case .custom(let body): return body(codingPath + [RecordCodingKey(stringValue: key)]).stringValue
        }
    }

    /// The first member whose key maps to `key`.
    private func member(_ key: Key) -> JSONValue? {
        let wanted = key.stringValue
        switch session.options.keyDecodingStrategy {
        case .useDefaultKeys:
            for member in object.members where member.key == wanted { return member.value }
        default:
            for member in object.members where jsonKeyToCodingKey(member.key) == wanted { return member.value }
        }
        return nil
    }

    private func childNode(_ key: Key) -> CodingPathNode { .key(key.stringValue, parent: node) }

    private func require(_ key: Key) throws -> JSONValue {
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try require(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder(value: require(key), node: childNode(key), session: session).decodeValue(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return try JSONValueDecoder(value: value, node: childNode(key), session: session).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(value: require(key), node: childNode(key), session: session).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(value: require(key), node: childNode(key), session: session).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(value: member(Key(stringValue: "super")!) ?? .null, node: .key("super", parent: node), session: session)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(value: member(key) ?? .null, node: childNode(key), session: session)
    }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let node: CodingPathNode
    let session: DecodingSession
    private(set) var currentIndex = 0

    init(elements: [JSONValue], node: CodingPathNode, session: DecodingSession) {
        self.elements = elements
        self.node = node
        self.session = session
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> JSONValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [RecordCodingKey(intValue: currentIndex)], debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoder(value: elements[currentIndex], node: .index(currentIndex, parent: node), session: session)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next((any Decoder).self) }
}
