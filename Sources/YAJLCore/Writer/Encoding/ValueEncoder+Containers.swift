#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed container: writes members into its object, each key through the key strategy. A key
/// written again replaces its value; a nested container for a key that has one is that one.
struct ValueKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: EncodedObject
    /// The object's coding path.
    let path: EncodingPath
    /// The object's nesting level (1 for a top-level object).
    let depth: Int

    var codingPath: [any CodingKey] { path.codingPath }
    private var context: EncodingContext { encoder.context }

    private func name(_ key: Key) -> String { context.convert(key, in: path) }

    private func set(_ value: EncodedValue, _ key: Key) throws {
        if let error = context.pendingError { throw error }
        object.set(value, for: name(key))
    }

    mutating func encodeNil(forKey key: Key) throws { try set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try set(EncodedScalar.floatingPoint(value, context: context, at: path.appending(key)), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try set(EncodedScalar.floatingPoint(value, context: context, at: path.appending(key)), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try set(.number(String(value)), key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try set(.number(String(value)), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try set(encoder.wrap(value, at: path.appending(key), depth: depth), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let name = self.name(key)
        let nested: EncodedObject
        switch object[name] {
        case .object(let existing): nested = existing
        case .none:
            nested = EncodedObject()
            object.set(.object(nested), for: name)
            context.checkDepth(depth + 1, at: path.appending(key))
        default:
            context.misuse(
                "a nested keyed container for key '\(name)', which holds a value that is not an object",
                at: path
            )
            nested = EncodedObject()
        }
        return KeyedEncodingContainer(
            ValueKeyedContainer<NestedKey>(
                encoder: encoder,
                object: nested,
                path: path.appending(key),
                depth: depth + 1
            )
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = self.name(key)
        let nested: EncodedArray
        switch object[name] {
        case .array(let existing): nested = existing
        case .none:
            nested = EncodedArray()
            object.set(.array(nested), for: name)
            context.checkDepth(depth + 1, at: path.appending(key))
        default:
            context.misuse(
                "a nested unkeyed container for key '\(name)', which holds a value that is not an array",
                at: path
            )
            nested = EncodedArray()
        }
        return ValueUnkeyedContainer(encoder: encoder, array: nested, path: path.appending(key), depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: RecordCodingKey.superKey) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key) }

    private func superEncoder(key: some CodingKey) -> any Encoder {
        encoder.superEncoder(
            at: .member(object, context.convert(key, in: path)),
            path: path.appending(key),
            depth: depth
        )
    }
}

/// An unkeyed container: appends elements to its array.
struct ValueUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: EncodedArray
    /// The array's coding path.
    let path: EncodingPath
    /// The array's nesting level.
    let depth: Int

    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int { array.elements.count }
    private var context: EncodingContext { encoder.context }
    private var nextPath: EncodingPath { path.appending(index: count) }

    private func append(_ value: EncodedValue) throws {
        if let error = context.pendingError { throw error }
        array.elements.append(value)
    }

    mutating func encodeNil() throws { try append(.null) }
    mutating func encode(_ value: Bool) throws { try append(.bool(value)) }
    mutating func encode(_ value: String) throws { try append(.string(value)) }
    mutating func encode(_ value: Double) throws {
        try append(EncodedScalar.floatingPoint(value, context: context, at: nextPath))
    }
    mutating func encode(_ value: Float) throws {
        try append(EncodedScalar.floatingPoint(value, context: context, at: nextPath))
    }
    mutating func encode(_ value: Int) throws { try append(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { try append(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { try append(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { try append(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { try append(.number(String(value))) }
    mutating func encode(_ value: Int128) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { try append(.number(String(value))) }
    mutating func encode(_ value: UInt128) throws { try append(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try append(encoder.wrap(value, at: nextPath, depth: depth))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let nested = EncodedObject()
        array.elements.append(.object(nested))
        context.checkDepth(depth + 1, at: path)
        return KeyedEncodingContainer(
            ValueKeyedContainer<NestedKey>(encoder: encoder, object: nested, path: path, depth: depth + 1)
        )
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let nested = EncodedArray()
        array.elements.append(.array(nested))
        context.checkDepth(depth + 1, at: path)
        return ValueUnkeyedContainer(encoder: encoder, array: nested, path: path, depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        encoder.superEncoder(at: .element(array, count), path: nextPath, depth: depth)
    }
}

/// The single value container is the encoder itself, as in `JSONEncoder`; a second value throws.
struct ValueSingleContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var context: EncodingContext { encoder.context }

    mutating func encodeNil() throws { try encoder.setSingle(.null) }
    mutating func encode(_ value: Bool) throws { try encoder.setSingle(.bool(value)) }
    mutating func encode(_ value: String) throws { try encoder.setSingle(.string(value)) }
    mutating func encode(_ value: Double) throws {
        try encoder.setSingle(EncodedScalar.floatingPoint(value, context: context, at: encoder.path))
    }
    mutating func encode(_ value: Float) throws {
        try encoder.setSingle(EncodedScalar.floatingPoint(value, context: context, at: encoder.path))
    }
    mutating func encode(_ value: Int) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: Int128) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { try encoder.setSingle(.number(String(value))) }
    mutating func encode(_ value: UInt128) throws { try encoder.setSingle(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.checkSingleIsFree()
        try encoder.setSingle(encoder.wrap(value, at: encoder.path, depth: encoder.depth))
    }
}

/// Scalars as `JSONEncoder` writes them: integers in full, floating point in its shortest text
/// without a trailing `.0`, non-finite values as the strategy says.
enum EncodedScalar {
    /// `value` if it is a scalar type encoded directly (no child encoder), else nil.
    @inline(__always)
    static func value<T: Encodable>(
        of value: T,
        context: EncodingContext,
        at path: EncodingPath
    ) throws
        -> EncodedValue?
    {
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .number(String(value as! Int)) }
        if T.self == Double.self { return try floatingPoint(value as! Double, context: context, at: path) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == Int64.self { return .number(String(value as! Int64)) }
        if T.self == Float.self { return try floatingPoint(value as! Float, context: context, at: path) }
        if T.self == Int8.self { return .number(String(value as! Int8)) }
        if T.self == Int16.self { return .number(String(value as! Int16)) }
        if T.self == Int32.self { return .number(String(value as! Int32)) }
        if T.self == UInt.self { return .number(String(value as! UInt)) }
        if T.self == UInt8.self { return .number(String(value as! UInt8)) }
        if T.self == UInt16.self { return .number(String(value as! UInt16)) }
        if T.self == UInt32.self { return .number(String(value as! UInt32)) }
        if T.self == UInt64.self { return .number(String(value as! UInt64)) }
        if T.self == Int128.self { return .number(String(value as! Int128)) }
        if T.self == UInt128.self { return .number(String(value as! UInt128)) }
        return nil
    }

    /// A `Double` or `Float`; `strict` ignores the non-conforming strategy (dates in seconds).
    static func floatingPoint<F: BinaryFloatingPoint & CustomStringConvertible>(
        _ value: F,
        strict: Bool = false,
        context: EncodingContext,
        at path: EncodingPath
    ) throws -> EncodedValue {
        guard value.isFinite else {
            if !strict,
                case .convertToString(let positive, let negative, let nan) =
                    context.options.nonConformingFloatEncodingStrategy
            {
                return .string(value.isNaN ? nan : value > 0 ? positive : negative)
            }
            let name = value.isNaN ? "\(F.self).nan" : value > 0 ? "\(F.self).infinity" : "-\(F.self).infinity"
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription:
                        "Unable to encode \(name) directly in JSON. Set nonConformingFloatEncodingStrategy to .convertToString to write it as a string."
                )
            )
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }

    /// A `Decimal` as its text; NaN, which JSON has no number for, throws (`JSONEncoder` writes
    /// `NaN`, which is not JSON).
    static func decimal(_ value: Decimal, context: EncodingContext, at path: EncodingPath) throws -> EncodedValue {
        guard !value.isNaN else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription: "Unable to encode Decimal.nan in JSON: JSON has no number for it."
                )
            )
        }
        return .number(value.description)
    }
}
