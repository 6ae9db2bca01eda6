#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `Encoder` that writes straight into a ``JSONWriter``, in the order the value encodes itself.
///
/// The `Encoder` API never says when a container is finished, so each container remembers its
/// level (how many containers were open when it was made); writing through a container first closes
/// any deeper container still open, and finishing a value closes everything it opened. Nothing is
/// buffered beyond the writer's output buffer.
final class StreamingEncoder: Encoder {
    let writer: JSONWriter
    let options: JSONRecordEncodingOptions
    /// Containers opened by this encoder and still open, outermost first (`true` for objects).
    private var open: [Bool] = []
    /// Values written, to notice a value that wrote nothing.
    private var written = 0
    private(set) var node: CodingPathNode = .root
    /// Key → snake_case key, converted once per distinct key (at most 4096 kept).
    private var snakeCaseKeys: [String: String] = [:]

    init(writer: JSONWriter, options: JSONRecordEncodingOptions) {
        self.writer = writer
        self.options = options
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// Encodes one whole value (a record, or a member or element).
    func encodeValue<T: Encodable>(_ value: T, at node: CodingPathNode) throws {
        let level = open.count
        let before = written
        let savedNode = self.node
        self.node = node
        defer { self.node = savedNode }
        try encodeSpecial(value)
        try close(deeperThan: level)
        if written == before {  // the value encoded nothing: like JSONEncoder, write an empty object
            try writer.startObject()
            try writer.endObject()
            written += 1
        }
    }

    private func encodeSpecial<T: Encodable>(_ value: T) throws {
        switch value {
        case let date as Date: try encode(date: date)
        case let data as Data:
            switch options.dataEncodingStrategy {
            case .base64: try primitive { try writer.string(data.base64EncodedString()) }
            case .deferredToData:
                // Data's own form, an array of its bytes, written here: `Data.encode(to:)` asks for
                // a single value container and would come back to this case.
                let level = try openContainer(object: false)
                for byte in data { try writer.integer(Int64(byte)) }
                try close(deeperThan: level - 1)
            case .custom(let body): try body(data, self)
            }
        case let url as URL: try primitive { try writer.string(url.absoluteString) }
        case let decimal as Decimal:
            try primitive { try writer.number(JSONNumber(text: "\(decimal)", value: .unrepresentable)) }
        case let json as JSONValue: try primitive { try write(json) }
        case let dictionary as any StringKeyedEncodableDictionary: try dictionary.encodeMembers(to: self)
        default: try value.encode(to: self)
        }
    }

    private func encode(date: Date) throws {
        switch options.dateEncodingStrategy {
        case .deferredToDate: try date.encode(to: self)
        case .secondsSince1970: try primitive { try writer.double(date.timeIntervalSince1970) }
        case .millisecondsSince1970: try primitive { try writer.double(date.timeIntervalSince1970 * 1000) }
        case .iso8601: try primitive { try writer.string(RFC3339.string(from: date)) }
        case .custom(let body): try body(date, self)
        case .formattedBy(let format): try primitive { try writer.string(format(date)) }
        }
    }

    /// An integer of any width, written as its decimal text (exact, never through `Double`).
    func integerText(_ text: String) throws {
        try writer.number(JSONNumber(text: text, value: Int64(text).map(JSONNumber.Value.integer) ?? .unrepresentable))
    }

    /// A `Double` or `Float`: infinities and NaN as the strategy says (JSON has no number for them).
    func floatingPoint(_ value: Double) throws {
        guard !value.isFinite,
            case .convertToString(let positive, let negative, let nan) = options.nonConformingFloatEncodingStrategy
        else {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: node.codingPath,
                        debugDescription:
                            "\(value) has no JSON number; set nonConformingFloatEncodingStrategy to .convertToString to write it as a string"
                    )
                )
            }
            try writer.double(value)
            return
        }
        try writer.string(value.isNaN ? nan : value > 0 ? positive : negative)
    }

    private func write(_ value: JSONValue) throws {
        var sink = writer
        try value.write(to: &sink)
    }

    /// Writes one scalar at the current position.
    func primitive(_ body: () throws -> Void) throws {
        try body()
        written += 1
    }

    /// Closes containers opened after `level`.
    func close(deeperThan level: Int) throws {
        while open.count > level {
            if open.removeLast() { try writer.endObject() } else { try writer.endArray() }
        }
    }

    /// Opens a container at the current position and returns its level.
    func openContainer(object: Bool) throws -> Int {
        if object { try writer.startObject() } else { try writer.startArray() }
        open.append(object)
        written += 1
        return open.count
    }

    func key(_ key: some CodingKey) throws {
        let name: String
        switch options.keyEncodingStrategy {
        case .useDefaultKeys: name = key.stringValue
        case .convertToSnakeCase: name = snakeCase(key.stringValue)
        case .custom(let body): name = body(codingPath + [key]).stringValue
        }
        try writer.key(name)
    }

    private func snakeCase(_ key: String) -> String {
        if let converted = snakeCaseKeys[key] { return converted }
        let converted = KeyCaseConversion.snakeCase(key)
        if snakeCaseKeys.count < 4096 { snakeCaseKeys[key] = converted }
        return converted
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let level = (try? openContainer(object: true)) ?? open.count
        return KeyedEncodingContainer(StreamingKeyedContainer<Key>(encoder: self, level: level, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let level = (try? openContainer(object: false)) ?? open.count
        return StreamingUnkeyedContainer(encoder: self, level: level, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { StreamingSingleValue(encoder: self) }
}

/// Writes a value through a keyed container: close deeper containers, write the key, then the value.
struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamingEncoder
    let level: Int
    let node: CodingPathNode

    var codingPath: [any CodingKey] { node.codingPath }

    private func member(_ key: Key, _ body: () throws -> Void) throws {
        try encoder.close(deeperThan: level)
        try encoder.key(key)
        try encoder.primitive(body)
    }

    mutating func encodeNil(forKey key: Key) throws { try member(key) { try encoder.writer.null() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try member(key) { try encoder.writer.bool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws {
        try member(key) { try encoder.writer.string(value) }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try member(key) { try encoder.floatingPoint(value) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try member(key) { try encoder.floatingPoint(Double(value)) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        try member(key) { try encoder.writer.integer(Int64(value)) }
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try member(key) { try encoder.writer.integer(value) }
    }

    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try member(key) { try encoder.integerText(String(value)) }
    }
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try member(key) { try encoder.integerText(String(value)) }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.close(deeperThan: level)
        try encoder.key(key)
        try encoder.encodeValue(value, at: .key(key.stringValue, parent: node))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        try? encoder.close(deeperThan: level)
        try? encoder.key(key)
        let nested = (try? encoder.openContainer(object: true)) ?? level
        return KeyedEncodingContainer(
            StreamingKeyedContainer<NestedKey>(
                encoder: encoder,
                level: nested,
                node: .key(key.stringValue, parent: node)
            )
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        try? encoder.close(deeperThan: level)
        try? encoder.key(key)
        let nested = (try? encoder.openContainer(object: false)) ?? level
        return StreamingUnkeyedContainer(encoder: encoder, level: nested, node: .key(key.stringValue, parent: node))
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        try? encoder.close(deeperThan: level)
        try? encoder.key(key)
        return encoder
    }
}

struct StreamingUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: StreamingEncoder
    let level: Int
    let node: CodingPathNode
    private(set) var count = 0

    init(encoder: StreamingEncoder, level: Int, node: CodingPathNode) {
        self.encoder = encoder
        self.level = level
        self.node = node
    }

    var codingPath: [any CodingKey] { node.codingPath }

    private mutating func element(_ body: () throws -> Void) throws {
        try encoder.close(deeperThan: level)
        try encoder.primitive(body)
        count += 1
    }

    mutating func encodeNil() throws {
        let writer = encoder.writer
        try element { try writer.null() }
    }
    mutating func encode(_ value: Bool) throws {
        let writer = encoder.writer
        try element { try writer.bool(value) }
    }
    mutating func encode(_ value: String) throws {
        let writer = encoder.writer
        try element { try writer.string(value) }
    }
    mutating func encode(_ value: Double) throws {
        let encoder = self.encoder
        try element { try encoder.floatingPoint(value) }
    }
    mutating func encode(_ value: Int) throws {
        let writer = encoder.writer
        try element { try writer.integer(Int64(value)) }
    }

    mutating func encode(_ value: Int128) throws {
        let encoder = self.encoder
        try element { try encoder.integerText(String(value)) }
    }
    mutating func encode(_ value: UInt128) throws {
        let encoder = self.encoder
        try element { try encoder.integerText(String(value)) }
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.close(deeperThan: level)
        try encoder.encodeValue(value, at: .index(count, parent: node))
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        try? encoder.close(deeperThan: level)
        let nested = (try? encoder.openContainer(object: true)) ?? level
        count += 1
        return KeyedEncodingContainer(
            StreamingKeyedContainer<NestedKey>(encoder: encoder, level: nested, node: .index(count - 1, parent: node))
        )
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        try? encoder.close(deeperThan: level)
        let nested = (try? encoder.openContainer(object: false)) ?? level
        count += 1
        return StreamingUnkeyedContainer(encoder: encoder, level: nested, node: .index(count - 1, parent: node))
    }

    mutating func superEncoder() -> any Encoder {
        try? encoder.close(deeperThan: level)
        count += 1
        return encoder
    }
}

struct StreamingSingleValue: SingleValueEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try encoder.primitive { try encoder.writer.null() } }
    mutating func encode(_ value: Bool) throws { try encoder.primitive { try encoder.writer.bool(value) } }
    mutating func encode(_ value: String) throws { try encoder.primitive { try encoder.writer.string(value) } }
    mutating func encode(_ value: Double) throws { try encoder.primitive { try encoder.floatingPoint(value) } }
    mutating func encode(_ value: Float) throws { try encoder.primitive { try encoder.floatingPoint(Double(value)) } }
    mutating func encode(_ value: Int) throws { try encoder.primitive { try encoder.writer.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { try encoder.primitive { try encoder.writer.integer(value) } }
    mutating func encode(_ value: UInt64) throws {
        try encoder.primitive {
            try encoder.writer.number(JSONNumber(text: String(value), value: .double(Double(value))))
        }
    }
    mutating func encode(_ value: Int128) throws { try encoder.primitive { try encoder.integerText(String(value)) } }
    mutating func encode(_ value: UInt128) throws { try encoder.primitive { try encoder.integerText(String(value)) } }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value, at: encoder.node) }
}
