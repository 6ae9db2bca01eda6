#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` of ``JSONRecordWriter`` and ``JSONWriter/encode(_:options:)``: builds one value's
/// ``EncodedValue`` tree as `JSONEncoder` does (same containers, same special cases, same errors),
/// which the writer then writes token by token.
///
/// One encoder per value being encoded; a value's members and elements are encoded by child
/// encoders (one reused child per encoder while nothing keeps it). Where `JSONEncoder` stops the
/// process on a misuse (a keyed container asked for where an array was written), this records a
/// usage error that the next encoding call throws, and the record is not written.
final class ValueEncoder: Encoder {
    let context: EncodingContext
    /// The coding path of the value this encoder encodes.
    private(set) var path: EncodingPath
    /// How many containers enclose the value.
    private(set) var depth: Int
    /// How many encoders lead from the top-level value to this one (a bound on user recursion).
    private(set) var chain: Int
    /// What the value encoded so far: a scalar, or the array or object its containers write to.
    var storage: EncodedValue?
    /// Where a super-encoder puts its value when it is released (see ``superEncoder(of:)``).
    private var slot: SuperEncoderSlot?
    /// A child encoder to reuse for the next member or element.
    private var spare: ValueEncoder?

    init(context: EncodingContext, path: EncodingPath, depth: Int, chain: Int) {
        self.context = context
        self.path = path
        self.depth = depth
        self.chain = chain
    }

    deinit {
        guard let slot else { return }
        let value = storage ?? .object(EncodedObject())
        switch slot {
        case .element(let array, let index): array.elements.insert(value, at: min(index, array.elements.count))
        case .member(let object, let key): object.set(value, for: key)
        }
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { context.options.userInfo }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        switch storage {
        case .object(let existing): object = existing
        case .none:
            object = EncodedObject()
            storage = .object(object)
            context.checkDepth(depth + 1, at: path)
        default:
            context.misuse("a keyed container where a value that is not an object was already encoded", at: path)
            object = EncodedObject()
        }
        return KeyedEncodingContainer(
            ValueKeyedContainer<Key>(encoder: self, object: object, path: path, depth: depth + 1)
        )
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        switch storage {
        case .array(let existing): array = existing
        case .none:
            array = EncodedArray()
            storage = .array(array)
            context.checkDepth(depth + 1, at: path)
        default:
            context.misuse("an unkeyed container where a value that is not an array was already encoded", at: path)
            array = EncodedArray()
        }
        return ValueUnkeyedContainer(encoder: self, array: array, path: path, depth: depth + 1)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ValueSingleContainer(encoder: self) }

    /// Sets the single value, which may be set once (as in `JSONEncoder`).
    func setSingle(_ value: EncodedValue) throws {
        try checkSingleIsFree()
        storage = value
    }

    /// Throws unless the value is still to be encoded.
    func checkSingleIsFree() throws {
        if let error = context.pendingError { throw error }
        if case .some = storage {
            throw context.usageError(
                "a single value container encoded a second value at this path (each value is encoded once)",
                at: path
            )
        }
    }

    /// An encoder whose value goes into `slot` when it is released (`superEncoder()`), with
    /// `key` as the last key of its coding path.
    func superEncoder(at slot: SuperEncoderSlot, path: EncodingPath, depth: Int) -> ValueEncoder {
        let encoder = ValueEncoder(context: context, path: path, depth: depth, chain: chain + 1)
        encoder.slot = slot
        return encoder
    }

    // MARK: Values

    /// The tree of `value`, a member or element at `path` inside a container at `depth`: an empty
    /// object if it encoded nothing (as `JSONEncoder` writes it).
    func wrap<T: Encodable>(_ value: T, at path: EncodingPath, depth: Int) throws -> EncodedValue {
        try wrapIfAny(value, at: path, depth: depth) ?? .object(EncodedObject())
    }

    /// The tree of `value`, or nil if it encoded nothing. The types `JSONEncoder` treats on its
    /// own come first: scalars (no child encoder), dates, data, URLs, decimals, dictionaries
    /// keyed by strings; then ours, ``JSONValue``.
    func wrapIfAny<T: Encodable>(_ value: T, at path: EncodingPath, depth: Int) throws -> EncodedValue? {
        if let error = context.pendingError { throw error }
        if let scalar = try EncodedScalar.value(of: value, context: context, at: path) { return scalar }
        if let date = value as? Date { return try wrap(date: date, at: path, depth: depth) }
        if let data = value as? Data { return try wrap(data: data, at: path, depth: depth) }
        if let url = value as? URL { return .string(url.absoluteString) }
        if let decimal = value as? Decimal { return try EncodedScalar.decimal(decimal, context: context, at: path) }
        if let json = value as? JSONValue { return .json(json) }
        if let dictionary = value as? any StringKeyedEncodableDictionary {
            return try dictionary.encodedMembers(by: self, at: path, depth: depth)
        }
        return try withChild(at: path, depth: depth) { try value.encode(to: $0) }
    }

    /// Runs `body` with a child encoder at `path` and returns what it encoded.
    func withChild(at path: EncodingPath, depth: Int, _ body: (ValueEncoder) throws -> Void) throws -> EncodedValue? {
        guard chain < EncodingContext.maxChain else { throw context.tooDeep(at: path) }
        var child: ValueEncoder
        if let spare {
            self.spare = nil
            child = spare
            child.path = path
            child.depth = depth
            child.chain = chain + 1
        } else {
            child = ValueEncoder(context: context, path: path, depth: depth, chain: chain + 1)
        }
        defer {
            child.storage = nil
            // Kept for the next value unless something else holds it (an escaped container).
            if spare == nil, isKnownUniquelyReferenced(&child) { spare = child }
        }
        try body(child)
        return child.storage
    }

    private func wrap(date: Date, at path: EncodingPath, depth: Int) throws -> EncodedValue? {
        switch context.options.dateEncodingStrategy {
        case .deferredToDate: return try withChild(at: path, depth: depth) { try date.encode(to: $0) }
        case .secondsSince1970:
            return try EncodedScalar.floatingPoint(date.timeIntervalSince1970, strict: true, context: context, at: path)
        case .millisecondsSince1970:
            return try EncodedScalar.floatingPoint(
                1000 * date.timeIntervalSince1970,
                strict: true,
                context: context,
                at: path
            )
        case .iso8601: return .string(RFC3339.string(from: date))
        case .custom(let body):
            return try withChild(at: path, depth: depth) { try body(date, $0) } ?? .object(EncodedObject())
        case .formattedBy(let format): return .string(format(date))
        }
    }

    private func wrap(data: Data, at path: EncodingPath, depth: Int) throws -> EncodedValue? {
        switch context.options.dataEncodingStrategy {
        case .base64: return .string(data.base64EncodedString())
        case .deferredToData:
            guard depth < context.maxDepth else { throw context.tooDeep(at: path) }
            return .array(EncodedArray(data.map { .number(String($0)) }))
        case .custom(let body):
            return try withChild(at: path, depth: depth) { try body(data, $0) } ?? .object(EncodedObject())
        }
    }
}

/// Where a super-encoder's value goes: an element of an array (inserted at the index it was made
/// at) or a member of an object.
enum SuperEncoderSlot {
    case element(EncodedArray, Int)
    case member(EncodedObject, String)
}

/// What the encoders of one top-level value share: the options, the depth the writer allows, and
/// the first misuse of the `Encoder` API (thrown by the next call that can throw).
final class EncodingContext {
    let options: JSONRecordEncodingOptions
    /// The most containers the value may nest (what the writer has left at its position).
    let maxDepth: Int
    /// The first error a non-throwing call could not throw (a misused container, too deep).
    private(set) var pendingError: EncodingError?
    /// Key → snake_case key, converted once per distinct key.
    private var snakeCaseKeys: [String: String] = [:]

    /// The most encoders one value may chain through (values encoding values through single
    /// value containers, which nest no JSON): a bound on recursion in user code.
    static let maxChain = 4096

    init(options: JSONRecordEncodingOptions, maxDepth: Int) {
        self.options = options
        self.maxDepth = maxDepth
    }

    /// Records a container misuse at `path` (the first one wins).
    func misuse(_ message: String, at path: EncodingPath) {
        if pendingError == nil { pendingError = usageError(message, at: path) }
    }

    func usageError(_ message: String, at path: EncodingPath) -> EncodingError {
        EncodingError.invalidValue(
            "",
            EncodingError.Context(codingPath: path.codingPath, debugDescription: "Encoder misused: \(message).")
        )
    }

    /// Records an error if a container at `level` is deeper than the writer allows.
    func checkDepth(_ level: Int, at path: EncodingPath) {
        if level > maxDepth, pendingError == nil { pendingError = tooDeep(at: path) }
    }

    func tooDeep(at path: EncodingPath) -> EncodingError {
        EncodingError.invalidValue(
            "",
            EncodingError.Context(
                codingPath: path.codingPath,
                debugDescription:
                    "The value nests deeper than the writer allows: JSONWriter.maxDepth is \(JSONWriter.maxDepth) containers (YAJL's generator limit), \(maxDepth) of them left at this position."
            )
        )
    }

    /// `key` as the key strategy writes it; `containerPath` is the coding path of its container.
    func convert(_ key: some CodingKey, in containerPath: EncodingPath) -> String {
        switch options.keyEncodingStrategy {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase:
            let name = key.stringValue
            if let converted = snakeCaseKeys[name] { return converted }
            let converted = KeyCaseConversion.snakeCase(name)
            if snakeCaseKeys.count < 4096 { snakeCaseKeys[name] = converted }
            return converted
        case .custom(let body): return body(containerPath.codingPath + [key]).stringValue
        }
    }

    /// Encodes `value` at `path`, its containers nesting at most `maxDepth` deep. A top-level
    /// value that encodes nothing throws, as in `JSONEncoder`; an element (`asElement`) is then
    /// an empty object.
    static func encode<T: Encodable>(
        _ value: T,
        options: JSONRecordEncodingOptions,
        maxDepth: Int,
        at path: EncodingPath = .root,
        asElement: Bool = false
    ) throws -> EncodedValue {
        let context = EncodingContext(options: options, maxDepth: maxDepth)
        let root = ValueEncoder(context: context, path: path, depth: 0, chain: 0)
        let tree = try root.wrapIfAny(value, at: path, depth: 0)
        if let error = context.pendingError { throw error }
        guard let tree = tree ?? (asElement ? .object(EncodedObject()) : nil) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription: "Top-level \(T.self) did not encode any values."
                )
            )
        }
        return tree
    }
}

/// A coding path as a linked list of the keys themselves (the user's `CodingKey` values, as
/// `JSONEncoder` passes them to a custom key strategy), made into an array only when asked.
final class EncodingPath {
    private let key: (any CodingKey)?
    private let parent: EncodingPath?

    private init(key: (any CodingKey)?, parent: EncodingPath?) {
        self.key = key
        self.parent = parent
    }

    /// The empty path.
    nonisolated(unsafe) static let root = EncodingPath(key: nil, parent: nil)

    /// This path followed by `key`.
    func appending(_ key: any CodingKey) -> EncodingPath { EncodingPath(key: key, parent: self) }

    /// This path followed by an array index.
    func appending(index: Int) -> EncodingPath { appending(RecordCodingKey(intValue: index)) }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: EncodingPath? = self
        while let current = node, let key = current.key {
            keys.append(key)
            node = current.parent
        }
        return keys.reversed()
    }
}
