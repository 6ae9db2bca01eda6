import Foundation

/// Shared, per-stream decoding state: the strategies, and caches that make them cheap.
final class DecodingSession {
    let options: JSONRecordDecodingOptions
    let userInfo: [CodingUserInfoKey: Any]
    /// snake_case JSON keys, converted once per distinct key and compared as bytes.
    let snakeCaseKeys = SnakeCaseKeyCache()

    /// Whether keys are compared as they are (no key strategy).
    let usesDefaultKeys: Bool
    /// Per nesting depth (up to ``memberHintDepth``): the object last looked up and the member
    /// after the last one found, so that keys decoded in document order are found with one
    /// comparison. Never reallocated: containers keep a pointer to their slot.
    private let memberHints: UnsafeMutablePointer<(object: Int, next: Int)>
    static let memberHintDepth = 64
    /// Hint slots handed out since the last reset.
    private var memberHintsUsed = 0

    init(options: JSONRecordDecodingOptions) {
        self.options = options
        userInfo = options.userInfo
        if case .useDefaultKeys = options.keyDecodingStrategy { usesDefaultKeys = true } else { usesDefaultKeys = false }
        memberHints = .allocate(capacity: Self.memberHintDepth)
        memberHints.initialize(repeating: (-1, 0), count: Self.memberHintDepth)
    }

    deinit { memberHints.deallocate() }

    /// The member hint slot for containers at `depth`; none below ``memberHintDepth``.
    func memberHint(depth: Int) -> UnsafeMutablePointer<(object: Int, next: Int)>? {
        guard depth < Self.memberHintDepth else { return nil }
        memberHintsUsed = max(memberHintsUsed, depth + 1)
        return memberHints + depth
    }

    /// Forgets the member hints: they hold indices into the record just decoded.
    private func resetMemberHints() {
        memberHints.update(repeating: (-1, 0), count: memberHintsUsed)
        memberHintsUsed = 0
    }

    /// Per depth, the keyed containers made so far by the record decoder, one per key type.
    private var keyedContainers: [[CachedKeyedContainer]] = []

    private struct CachedKeyedContainer {
        let keyType: ObjectIdentifier
        let position: ObjectPosition
        let holder: AnyObject
    }

    private final class ContainerHolder<Key: CodingKey> {
        let container: KeyedDecodingContainer<Key>
        init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
    }

    /// The record decoder's keyed container at `object`: the one made before for the same key
    /// type at the same depth, moved to `object`, or a new one.
    ///
    /// Making a `KeyedDecodingContainer` costs several lookups in the runtime's metadata caches
    /// (the container, its box, the conformance) and a box; reusing one costs one lookup. Safe
    /// because the record decoder's containers at one depth are used one after the other: a
    /// container lives in one `init(from:)` call, and the values it decodes are one level
    /// deeper. (Nested containers, which can live side by side, are never cached.)
    func keyedContainer<Key: CodingKey>(
        keyedBy type: Key.Type, decoder: TapeDecoder, object: Int, depth: Int, node: CodingPathNode
    ) -> KeyedDecodingContainer<Key> {
        guard depth < Self.memberHintDepth else {
            return decoder.nestedKeyedContainer(keyedBy: type, object: object, depth: depth, node: node)
        }
        while keyedContainers.count <= depth { keyedContainers.append([]) }
        let keyType = ObjectIdentifier(Key.self)
        for cached in keyedContainers[depth] where cached.keyType == keyType {
            cached.position.object = object
            cached.position.node = node
            cached.position.generation = decoder.liveGeneration
            return unsafeDowncast(cached.holder, to: ContainerHolder<Key>.self).container
        }
        let position = ObjectPosition(
            object: object, node: node, depth: depth, hint: memberHint(depth: depth), generation: decoder.liveGeneration)
        let container = KeyedDecodingContainer(KeyedContainer<Key>(decoder: decoder, position: position))
        keyedContainers[depth].append(CachedKeyedContainer(keyType: keyType, position: position, holder: ContainerHolder(container)))
        return container
    }

    /// The decoder of records, reused from record to record.
    private var recordDecoder: TapeDecoder?

    /// Decodes the value at `index` of the tape.
    func decode<T: Decodable>(_ type: T.Type, from view: TapeView, at index: Int) throws -> T {
        if T.self == JSONValue.self { return view.value(index) as! T }
        defer { resetMemberHints() }
        let decoder: TapeDecoder
        if let recordDecoder {
            decoder = recordDecoder
        } else {
            decoder = TapeDecoder(view: view, index: index, session: self, cachesContainers: true)
            recordDecoder = decoder
        }
        decoder.beginRecord(view: view, index: index)
        defer { decoder.endRecord() }
        return try decoder.decodeCurrent(T.self)
    }

    /// The coding key name of the JSON key at `index`, under the key strategy.
    func codingKeyName(forKeyAt index: Int, in view: TapeView, codingPath: @autoclosure () -> [any CodingKey]) -> String {
        let jsonKey = view.string(index)
        switch options.keyDecodingStrategy {
        case .useDefaultKeys: return jsonKey
        case .convertFromSnakeCase: return Self.camelCase(fromSnakeCase: jsonKey)
        case .custom(let body): return body(codingPath() + [RecordCodingKey(stringValue: jsonKey)]).stringValue
        }
    }

    /// Whether the JSON key at `index` maps to the coding key `wanted` under the key strategy.
    func key(at index: Int, in view: TapeView, matches wanted: String, codingPath: @autoclosure () -> [any CodingKey]) -> Bool {
        switch options.keyDecodingStrategy {
        case .useDefaultKeys: return view.keyEquals(index, wanted)
        case .convertFromSnakeCase: return snakeCaseKeys.matches(view.text(index), wanted)
        case .custom: return codingKeyName(forKeyAt: index, in: view, codingPath: codingPath()) == wanted
        }
    }

    /// The value a coding path leads to from the record at `start`, as far as it leads: the
    /// failing value of a `DecodingError` (or, for a missing key, its object).
    func index(of codingPath: [any CodingKey], in view: TapeView, from start: Int) -> Int {
        var index = start
        for (depth, codingKey) in codingPath.enumerated() {
            var found: Int?
            switch view.kind(index) {
            case .object:
                var child = view.firstChild(index)
                let end = view.end(index)
                while child < end, found == nil {
                    let value = view.next(child)
                    if key(at: child, in: view, matches: codingKey.stringValue, codingPath: Array(codingPath[..<depth])) { found = value }
                    child = view.next(value)
                }
            case .array:
                guard let position = codingKey.intValue, position >= 0, position < view.count(index) else { break }
                var child = view.firstChild(index)
                for _ in 0..<position { child = view.next(child) }
                found = child
            default: break
            }
            guard let found else { return index }
            index = found
        }
        return index
    }

    /// `JSONDecoder`'s rule, exactly: between the leading and trailing underscores (kept), split
    /// on `_`; with more than one word, the first is lowercased and the others `capitalized`.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first && key[last] == "_" { key.formIndex(before: &last) }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let body = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + body + String(key[key.index(after: last)...])
    }
}

/// A `Decoder` over one record on a ``Tape``, in the style of swift-foundation's `JSONDecoder`:
/// one instance, which moves its current position and coding-path node down and back up as nested
/// values are decoded (and which the session reuses from record to record). Keys are compared as
/// bytes; a `String` is made only for `String` values. Containers decode the primitive types
/// directly, without the generic path.
///
/// ## Ownership (the invariant every container relies on)
/// - A container holds strong references to everything it reads through: its decoder, its
///   ``ObjectPosition`` and its coding-path node (one retain when it is made, none per value).
/// - A decoder made by `superDecoder` holds the session and the record decoder strongly; the
///   session's record decoder refers back to the session unowned (the session holds it).
/// - The tape is valid only while its record is decoded. The record decoder's ``generation`` is
///   odd during a record and changes when it begins and ends; every container and decoder checks
///   it before reading, so one kept past its record (escaped from `init(from:)`) throws
///   `dataCorrupted` instead of reading memory that was freed or reused.
final class TapeDecoder: Decoder {
    private(set) var view: TapeView
    private(set) var index: Int
    private(set) var node: CodingPathNode = .root
    /// How many values deep the current value is in the record (for the member hints).
    private(set) var depth = 0
    /// Not retained by the record decoder (the session holds it); see `sessionOwner`.
    unowned(unsafe) let session: DecodingSession
    /// The session, retained by decoders made by `superDecoder` (nothing else holds them).
    private let sessionOwner: DecodingSession?
    /// The session's record decoder, for decoders made by `superDecoder`; `nil` for itself.
    private let recordDecoder: TapeDecoder?
    /// The record decoder's ``generation`` when a `superDecoder` decoder was made.
    private let birth: Int
    /// Record decoder only: odd while a record is being decoded; changes at its start and end.
    private(set) var generation = 0
    /// Whether `container(keyedBy:)` reuses the session's cached containers: only for the
    /// session's record decoder (their containers refer to it).
    let cachesContainers: Bool

    /// The session's record decoder.
    init(view: TapeView, index: Int, session: DecodingSession, cachesContainers: Bool = false) {
        self.view = view
        self.index = index
        self.session = session
        self.cachesContainers = cachesContainers
        sessionOwner = nil
        recordDecoder = nil
        birth = 0
    }

    /// A decoder of the value at `index` of `parent`'s record, at `node` (for `superDecoder`).
    init(nestedIn parent: TapeDecoder, index: Int, node: CodingPathNode) {
        view = parent.view
        self.index = index
        self.node = node
        depth = parent.depth + 1
        session = parent.session
        sessionOwner = parent.session
        let root = parent.recordDecoder ?? parent
        recordDecoder = root
        birth = root.generation
        cachesContainers = false
    }

    /// Places the decoder at the root of the record at `index` of `view` (decoders are reused
    /// from record to record), and begins a new generation.
    func beginRecord(view: TapeView, index: Int) {
        self.view = view
        self.index = index
        node = .root
        depth = 0
        generation &+= 1
    }

    /// Ends the record: containers and decoders made for it stop reading.
    func endRecord() {
        generation &+= 1
    }

    /// The generation that containers made now belong to.
    var liveGeneration: Int { recordDecoder?.generation ?? generation }

    /// Whether this decoder's record is still being decoded.
    private var isLive: Bool {
        if let recordDecoder { return recordDecoder.generation == birth }
        return generation & 1 == 1
    }

    /// Throws unless this decoder's record is still being decoded.
    @inline(__always)
    func checkLive() throws {
        guard isLive else { throw Unbox.expired(node) }
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try checkLive()
        guard view.kind(index) == .object else { throw Unbox.mismatch([String: Any].self, view, index, node) }
        if cachesContainers { return session.keyedContainer(keyedBy: Key.self, decoder: self, object: index, depth: depth, node: node) }
        return nestedKeyedContainer(keyedBy: Key.self, object: index, depth: depth, node: node)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkLive()
        guard view.kind(index) == .array else { throw Unbox.mismatch([Any].self, view, index, node) }
        return UnkeyedContainer(decoder: self, array: index, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try checkLive()
        return self
    }

    /// Decodes `T` from the value at `index` at `node`, then returns to the current value.
    /// Primitives and arrays of primitives are decoded directly, without building the node.
    func decode<T: Decodable>(_ type: T.Type, at index: Int, node: @autoclosure () -> CodingPathNode) throws -> T {
        if let direct = KnownTypes.shared.direct(T.self) { return try decodeDirect(type, direct, at: index, node: node()) }
        let (savedIndex, savedNode) = (self.index, self.node)
        self.index = index
        self.node = node()
        depth += 1
        defer {
            self.index = savedIndex
            self.node = savedNode
            depth -= 1
        }
        return try decodeCurrent(type)
    }

    /// `T`, one of the types decoded directly (`direct` says which): the common fields of records.
    /// Saves the generic path's node, container and existential per value.
    @inline(__always)
    private func decodeDirect<T>(_ type: T.Type, _ direct: KnownTypes.Direct, at index: Int, node: @autoclosure () -> CodingPathNode) throws -> T {
        switch direct {
        case .string: return unsafeBitCast(try Unbox.string(view, index, node()), to: T.self)
        case .double: return unsafeBitCast(try Unbox.double(view, index, node()), to: T.self)
        case .int: return unsafeBitCast(try Unbox.integer(view, index, node(), as: Int.self), to: T.self)
        case .bool: return unsafeBitCast(try Unbox.bool(view, index, node()), to: T.self)
        case .strings: return unsafeBitCast(try array(at: index, node: node(), Unbox.string), to: T.self)
        case .doubles: return unsafeBitCast(try array(at: index, node: node(), Unbox.double), to: T.self)
        case .ints: return unsafeBitCast(try array(at: index, node: node()) { try Unbox.integer($0, $1, $2(), as: Int.self) }, to: T.self)
        }
    }

    /// An array of primitives, decoded element by element with `element`.
    private func array<E>(
        at index: Int, node: CodingPathNode,
        _ element: (TapeView, Int, @autoclosure () -> CodingPathNode) throws -> E
    ) throws -> [E] {
        guard view.kind(index) == .array else { throw Unbox.mismatch([Any].self, view, index, node) }
        var elements: [E] = []
        elements.reserveCapacity(view.count(index))
        var child = view.firstChild(index)
        let end = view.end(index)
        while child < end {
            let position = elements.count
            elements.append(try element(view, child, CodingPathNode.index(position, parent: node)))
            child = view.next(child)
        }
        return elements
    }

    /// Decodes `T` from the current value, with the special cases `JSONDecoder` has (dates, data,
    /// URLs, decimals) and ours (`JSONValue`).
    func decodeCurrent<T: Decodable>(_ type: T.Type) throws -> T {
        if let direct = KnownTypes.shared.direct(T.self) { return try decodeDirect(type, direct, at: index, node: node) }
        if T.self == JSONValue.self { return view.value(index) as! T }
        if T.self == JSONFragment.self {
            var bytes: [UInt8] = []
            view.appendMinified(index, to: &bytes)
            return JSONFragment(bytes: bytes) as! T
        }
        if T.self == Date.self { return try decodeDate() as! T }
        if T.self == Decimal.self { return try decodeDecimal() as! T }
        if T.self == Data.self {
            let text = try Unbox.string(view, index, node)
            guard let data = Data(base64Encoded: text) else { throw Unbox.corrupted("expected Base64 data", node) }
            return data as! T
        }
        if T.self == URL.self {
            let text = try Unbox.string(view, index, node)
            guard let url = URL(string: text) else { throw Unbox.corrupted("invalid URL '\(text)'", node) }
            return url as! T
        }
        return try T(from: self)
    }

    private func decodeDate() throws -> Date {
        switch session.options.dateDecodingStrategy {
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try Unbox.double(view, index, node))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try Unbox.double(view, index, node) / 1000)
        case .iso8601:
            guard view.kind(index) == .string else { throw Unbox.mismatch(String.self, view, index, node) }
            guard let date = RFC3339.date(from: view.text(index)) else {
                throw Unbox.corrupted("Expected date string to be ISO8601-formatted, found '\(view.string(index))'", node)
            }
            return date
        case .custom(let body): return try body(self)
        }
    }

    private func decodeDecimal() throws -> Decimal {
        guard view.kind(index) == .number else { throw Unbox.mismatch(Decimal.self, view, index, node) }
        let text = view.string(index)
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Unbox.corrupted("'\(text)' is not a decimal number", node)
        }
        return decimal
    }
}

/// Where a keyed container reads: its object on the tape and its coding-path node. A class, so
/// that a cached container can be moved to the next object (see
/// ``DecodingSession/keyedContainer(keyedBy:decoder:object:depth:node:)``).
final class ObjectPosition {
    /// The object's entry on the tape.
    var object: Int
    /// The object's coding-path node.
    var node: CodingPathNode
    /// The object's nesting depth in the record.
    let depth: Int
    /// This depth's member hint (see ``DecodingSession/memberHint(depth:)``).
    let hint: UnsafeMutablePointer<(object: Int, next: Int)>?

    /// The decoder generation the container belongs to (see ``TapeDecoder``'s ownership notes).
    var generation: Int

    init(object: Int, node: CodingPathNode, depth: Int, hint: UnsafeMutablePointer<(object: Int, next: Int)>?, generation: Int) {
        self.object = object
        self.node = node
        self.depth = depth
        self.hint = hint
        self.generation = generation
    }
}

/// The types ``TapeDecoder`` decodes directly, recognized by identities computed once: writing
/// `[String].self` on the decoding path would ask the runtime for `Array<String>`'s metadata on
/// every call, and returning `T?` from a generic function would ask for `Optional<T>`'s.
struct KnownTypes: Sendable {
    /// One of the directly decoded types.
    enum Direct { case string, double, int, bool, strings, doubles, ints }

    private let string = ObjectIdentifier(String.self)
    private let double = ObjectIdentifier(Double.self)
    private let int = ObjectIdentifier(Int.self)
    private let bool = ObjectIdentifier(Bool.self)
    private let strings = ObjectIdentifier([String].self)
    private let doubles = ObjectIdentifier([Double].self)
    private let ints = ObjectIdentifier([Int].self)

    /// Which directly decoded type `type` is, if any.
    @inline(__always)
    func direct<T>(_ type: T.Type) -> Direct? {
        let id = ObjectIdentifier(type)
        if id == string { return .string }
        if id == double { return .double }
        if id == int { return .int }
        if id == bool { return .bool }
        if id == strings { return .strings }
        if id == doubles { return .doubles }
        if id == ints { return .ints }
        return nil
    }

    static let shared = KnownTypes()
}

/// The conversions from a tape value to Swift's primitive types, shared by all containers, with
/// `JSONDecoder`'s semantics: a wrong type is `typeMismatch` naming the expected type, `null` where a
/// value is required is `valueNotFound`, and a number that does not fit is `dataCorrupted`.
enum Unbox {
    /// `Expected to decode String but found number instead.` as a `DecodingError.typeMismatch`, or
    /// `valueNotFound` when the value is `null`.
    static func mismatch(_ expected: Any.Type, _ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) -> DecodingError {
        let codingPath = node().codingPath
        if view.kind(index) == .null {
            return .valueNotFound(expected, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get value of type \(typeName(expected)) -- found null value instead"))
        }
        return .typeMismatch(expected, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected to decode \(typeName(expected)) but found \(view.kindName(index)) instead."))
    }

    /// How a type is named in messages: `String`, `object` for keyed containers, `array` for unkeyed.
    static func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "object" }
        if type == [Any].self { return "array" }
        return "\(type)"
    }

    /// A container or decoder used after its record was decoded.
    static func expired(_ node: CodingPathNode) -> DecodingError {
        corrupted("a decoder or container was used after its record was decoded (keep values, not containers)", node)
    }

    static func corrupted(_ message: String, _ node: @autoclosure () -> CodingPathNode) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: node().codingPath, debugDescription: message))
    }

    static func isNull(_ view: TapeView, _ index: Int) -> Bool { view.kind(index) == .null }

    static func bool(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> Bool {
        let kind = view.kind(index)
        guard kind == .bool else {
            // JSONDecoder reports null into Bool as a type mismatch, not valueNotFound: so do we.
            if kind == .null {
                throw DecodingError.typeMismatch(Bool.self, DecodingError.Context(
                    codingPath: node().codingPath, debugDescription: "Expected to decode Bool but found null instead."))
            }
            throw mismatch(Bool.self, view, index, node())
        }
        return view.bool(index)
    }

    /// Strings only, as `JSONDecoder`: a number is a type mismatch (decode big integers into
    /// `Decimal`, `Int128` or `UInt64`, or take the whole value as a ``JSONValue``).
    static func string(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> String {
        guard view.kind(index) == .string else { throw mismatch(String.self, view, index, node()) }
        return view.string(index)
    }

    static func double(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> Double {
        guard view.kind(index) == .number else { throw mismatch(Double.self, view, index, node()) }
        switch view.numberValue(index) {
        case .integer(let integer):
            // `-0` is an integer of value 0 with a sign that a Double keeps.
            if integer == 0 && view.text(index).first == UInt8(ascii: "-") { return -0.0 }
            return Double(integer)
        case .double(let double): return double
        case .unrepresentable:
            // An integer beyond Int64 converts (rounded, as JSONDecoder does); `1e400` does not.
            let text = view.string(index)
            if let double = Double(text), double.isFinite { return double }
            throw corrupted("Number \(text) is not representable in Double", node())
        }
    }

    /// A `Float` as if rounded once from the text, as with `JSONDecoder`; out of range, or a
    /// non-zero value that underflows to zero, is `dataCorrupted`.
    ///
    /// Rounding the double again gives the same `Float` unless the double lies exactly halfway
    /// between two floats (or overflows or underflows): only then is the text itself rounded,
    /// so the common case makes no `String`.
    static func float(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> Float {
        guard view.kind(index) == .number else { throw mismatch(Float.self, view, index, node()) }
        let double = try Self.double(view, index, node())
        var float = Float(double)
        if !float.isFinite || (float == 0 && double != 0) || isHalfway(double, float) {
            float = Float(view.string(index)) ?? float
        }
        guard float.isFinite, float != 0 || double == 0 else {
            throw corrupted("Number \(view.string(index)) is not representable in Float", node())
        }
        return float
    }

    /// Whether `double` lies exactly halfway between `float` (its rounding) and the next float
    /// away from it, where a second rounding may differ from rounding the text once.
    private static func isHalfway(_ double: Double, _ float: Float) -> Bool {
        let rounded = Double(float)
        guard rounded != double else { return false }
        let neighbour = Double(double > rounded ? float.nextUp : float.nextDown)
        return double == (rounded + neighbour) / 2
    }

    /// Any integer type, exactly: from the classified `Int64` when it fits, else from the number's
    /// text (`12345678901234567890` into `UInt64`, 39 digits into `Int128`); a number written with a
    /// fraction or exponent decodes when its exact value is a whole number in range
    /// (`9007199254740993.0`, `1e2`), as with `JSONDecoder`. Never through `Double`.
    static func integer<T: FixedWidthInteger>(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode, as type: T.Type) throws -> T {
        guard view.kind(index) == .number else { throw mismatch(T.self, view, index, node()) }
        if case .integer(let integer) = view.numberValue(index), let exact = T(exactly: integer) { return exact }
        if let exact: T = ExactInteger.parse(view.text(index)) { return exact }
        throw corrupted("Number \(view.string(index)) is not representable in \(T.self)", node())
    }
}

/// Exact conversion of JSON number text to an integer type, without going through `Double`.
enum ExactInteger {
    /// The integer `text` denotes, when its exact value is a whole number that fits `T`: `1.0e3`
    /// is 1000, `1.5` and `1e-1` are not whole, `1e30` does not fit `Int64`.
    static func parse<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer) -> T? {
        let bytes = text.bindMemory(to: UInt8.self)
        var i = 0
        let n = bytes.count
        let negative = n > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        // The significant digits (integer part then fraction) and the power of ten they scale by.
        var digits: [UInt8] = []
        var scale = 0
        while i < n, bytes[i].isASCIIDigit { digits.append(bytes[i]); i += 1 }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, bytes[i].isASCIIDigit { digits.append(bytes[i]); scale -= 1; i += 1 }
        }
        if i < n, (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var exponent = 0
            while i < n, bytes[i].isASCIIDigit {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        guard i == n, !digits.isEmpty else { return nil }
        // Leading zeros carry nothing; trailing zeros move into the scale.
        while let first = digits.first, first == UInt8(ascii: "0") { digits.removeFirst() }
        if digits.isEmpty { return 0 }
        while let last = digits.last, last == UInt8(ascii: "0") { digits.removeLast(); scale += 1 }
        guard scale >= 0 else { return nil }  // a fraction remains
        // 128-bit integers have at most 39 digits: anything longer cannot fit.
        guard digits.count + scale <= 40 else { return nil }
        var magnitude = T.Magnitude(0)
        for digit in digits + [UInt8](repeating: UInt8(ascii: "0"), count: scale) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(T.Magnitude(digit &- UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        if negative {
            guard T.isSigned else { return nil }
            if magnitude == T.Magnitude(T.max) + 1 { return T.min }
            guard let value = T(exactly: magnitude) else { return nil }
            return 0 - value
        }
        return T(exactly: magnitude)
    }
}

extension TapeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { isLive && Unbox.isNull(view, index) }
    func decode(_ type: Bool.Type) throws -> Bool { try checkLive(); return try Unbox.bool(view, index, node) }
    func decode(_ type: String.Type) throws -> String { try checkLive(); return try Unbox.string(view, index, node) }
    func decode(_ type: Double.Type) throws -> Double { try checkLive(); return try Unbox.double(view, index, node) }
    func decode(_ type: Float.Type) throws -> Float { try checkLive(); return try Unbox.float(view, index, node) }
    func decode(_ type: Int.Type) throws -> Int { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try checkLive(); return try Unbox.integer(view, index, node, as: type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkLive()
        return try decodeCurrent(type)
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder it reads through (retained: see ``TapeDecoder``'s ownership notes).
    let decoder: TapeDecoder
    /// Its object, node and generation (retained).
    let position: ObjectPosition
    /// Whether keys are compared as they are, with no key strategy.
    private let usesDefaultKeys: Bool

    init(decoder: TapeDecoder, position: ObjectPosition) {
        self.decoder = decoder
        self.position = position
        usesDefaultKeys = decoder.session.usesDefaultKeys
    }

    /// The object's entry on the tape.
    private var object: Int { position.object }
    private var node: CodingPathNode { position.node }
    private var depth: Int { position.depth }

    var codingPath: [any CodingKey] { node.codingPath }
    private var view: TapeView { decoder.view }
    private var session: DecodingSession { decoder.session }

    /// Whether the container's record is still being decoded.
    private var isLive: Bool { decoder.liveGeneration == position.generation }

    /// The key entries of the members, in order (none once the record is over).
    private var keyIndices: [Int] {
        guard isLive else { return [] }
        var keys: [Int] = []
        var child = view.firstChild(object)
        let end = view.end(object)
        while child < end {
            keys.append(child)
            child = view.next(view.next(child))
        }
        return keys
    }

    var allKeys: [Key] { keyIndices.compactMap { Key(stringValue: codingKeyName(forKeyAt: $0)) } }

    private func codingKeyName(forKeyAt index: Int) -> String {
        session.codingKeyName(forKeyAt: index, in: view, codingPath: codingPath)
    }

    /// The value entry of the first member whose key maps to `key`.
    ///
    /// Synthesized `init(from:)` asks for the keys in declaration order, which is usually the
    /// document's order: the member after the last one found is tried first.
    private func member(_ key: Key) -> Int? {
        guard isLive else { return nil }
        let wanted = key.stringValue
        let end = view.end(object)
        let hint = position.hint
        if let hint, hint.pointee.object == object, hint.pointee.next < end, matches(hint.pointee.next, wanted) {
            let value = view.next(hint.pointee.next)
            hint.pointee.next = view.next(value)
            return value
        }
        var child = view.firstChild(object)
        while child < end {
            let value = view.next(child)
            if matches(child, wanted) {
                hint?.pointee = (object, view.next(value))
                return value
            }
            child = view.next(value)
        }
        return nil
    }

    /// Whether the key entry at `index` maps to `wanted`.
    @inline(__always)
    private func matches(_ index: Int, _ wanted: String) -> Bool {
        usesDefaultKeys ? view.keyEquals(index, wanted) : session.key(at: index, in: view, matches: wanted, codingPath: codingPath)
    }

    private func childNode(_ key: Key) -> CodingPathNode { .key(key.stringValue, parent: node) }

    private func require(_ key: Key) throws -> Int {
        guard isLive else { throw Unbox.expired(node) }
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'"))
        }
        return value
    }

    /// The member for `key`, or nil when it is absent or null (for `decodeIfPresent`).
    private func present(_ key: Key) throws -> Int? {
        guard isLive else { throw Unbox.expired(node) }
        guard let value = member(key), !Unbox.isNull(view, value) else { return nil }
        return value
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { Unbox.isNull(view, try require(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Unbox.bool(view, require(key), childNode(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Unbox.string(view, require(key), childNode(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Unbox.double(view, require(key), childNode(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Unbox.float(view, require(key), childNode(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Unbox.integer(view, require(key), childNode(key), as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Unbox.integer(view, require(key), childNode(key), as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Unbox.integer(view, require(key), childNode(key), as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Unbox.integer(view, require(key), childNode(key), as: type) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try Unbox.integer(view, require(key), childNode(key), as: type) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try Unbox.integer(view, require(key), childNode(key), as: type) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try Unbox.bool(view, $0, childNode(key)) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try Unbox.string(view, $0, childNode(key)) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try Unbox.double(view, $0, childNode(key)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try Unbox.integer(view, $0, childNode(key), as: type) } }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: require(key), node: childNode(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try present(key) else { return nil }
        return try decoder.decode(type, at: value, node: childNode(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try require(key)
        guard view.kind(value) == .object else { throw Unbox.mismatch([String: Any].self, view, value, childNode(key)) }
        return decoder.nestedKeyedContainer(keyedBy: NestedKey.self, object: value, depth: depth + 1, node: childNode(key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try require(key)
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, childNode(key)) }
        return UnkeyedContainer(decoder: decoder, array: value, node: childNode(key))
    }

    func superDecoder() throws -> any Decoder {
        guard isLive else { throw Unbox.expired(node) }
        guard let value = member(Key(stringValue: "super")!) else {
            throw DecodingError.keyNotFound(RecordCodingKey.superKey, DecodingError.Context(codingPath: codingPath, debugDescription: "missing key 'super'"))
        }
        return TapeDecoder(nestedIn: decoder, index: value, node: .key("super", parent: node))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TapeDecoder(nestedIn: decoder, index: try require(key), node: childNode(key))
    }
}

extension TapeDecoder {
    /// A new keyed container (not cached), owning its position.
    func nestedKeyedContainer<Key: CodingKey>(keyedBy type: Key.Type, object: Int, depth: Int, node: CodingPathNode) -> KeyedDecodingContainer<Key> {
        let position = ObjectPosition(
            object: object, node: node, depth: depth, hint: session.memberHint(depth: depth), generation: liveGeneration)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, position: position))
    }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    /// Retained, as in ``KeyedContainer``.
    let decoder: TapeDecoder
    /// Retained, as in ``KeyedContainer``.
    let node: CodingPathNode
    /// The decoder generation the container belongs to.
    private let generation: Int
    private let end: Int
    private var position: Int
    private(set) var currentIndex = 0
    let count: Int?

    init(decoder: TapeDecoder, array: Int, node: CodingPathNode) {
        self.decoder = decoder
        self.node = node
        generation = decoder.liveGeneration
        end = decoder.view.end(array)
        count = decoder.view.count(array)
        position = decoder.view.firstChild(array)
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var isAtEnd: Bool { position >= end }
    private var view: TapeView { decoder.view }

    /// The next element's entry and index; moves past it.
    private mutating func next(_ type: Any.Type) throws -> (Int, Int) {
        guard decoder.liveGeneration == generation else { throw Unbox.expired(node) }
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [RecordCodingKey(intValue: currentIndex)], debugDescription: "the array has no more elements"))
        }
        let element = position
        position = view.next(position)
        currentIndex += 1
        return (element, currentIndex - 1)
    }

    /// The coding-path node of element `index`, built only when needed.
    private func elementNode(_ index: Int) -> CodingPathNode { .index(index, parent: node) }

    mutating func decodeNil() throws -> Bool {
        guard decoder.liveGeneration == generation else { throw Unbox.expired(node) }
        guard !isAtEnd, Unbox.isNull(view, position) else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, i) = try next(type); return try Unbox.bool(view, v, elementNode(i)) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, i) = try next(type); return try Unbox.string(view, v, elementNode(i)) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, i) = try next(type); return try Unbox.double(view, v, elementNode(i)) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, i) = try next(type); return try Unbox.float(view, v, elementNode(i)) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, i) = try next(type); return try Unbox.integer(view, v, elementNode(i), as: type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, i) = try next(type); return try Unbox.integer(view, v, elementNode(i), as: type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { let (v, i) = try next(type); return try Unbox.integer(view, v, elementNode(i), as: type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { let (v, i) = try next(type); return try Unbox.integer(view, v, elementNode(i), as: type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, index) = try next(type)
        return try decoder.decode(type, at: value, node: elementNode(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, index) = try next(KeyedDecodingContainer<NestedKey>.self)
        let node = elementNode(index)
        guard view.kind(value) == .object else { throw Unbox.mismatch([String: Any].self, view, value, node) }
        return decoder.nestedKeyedContainer(keyedBy: NestedKey.self, object: value, depth: decoder.depth + 1, node: node)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, index) = try next((any UnkeyedDecodingContainer).self)
        let node = elementNode(index)
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, node) }
        return UnkeyedContainer(decoder: decoder, array: value, node: node)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, index) = try next((any Decoder).self)
        return TapeDecoder(nestedIn: decoder, index: value, node: elementNode(index))
    }
}
