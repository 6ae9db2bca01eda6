#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The current value's coding-path node, made when first asked for (see ``node``).
    private var pendingNode = DeferredCodingPathNode(.root)
    /// The current value's coding-path node.
    var node: CodingPathNode { pendingNode.resolve() }
    /// The current value's coding-path node, maybe not made yet (for a container made here).
    var currentPendingNode: DeferredCodingPathNode { pendingNode }

    /// Gives a container's `position` the current value's node, unless it has the same one
    /// already: a record's containers usually have the same path from record to record, and
    /// storing it again would retain and release its parts (copying it out to pass it, too).
    @inline(__always)
    func giveNode(to position: ObjectPosition) {
        if !position.pendingNode.isSame(as: pendingNode) { position.pendingNode = pendingNode }
    }

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

    /// A decoder of the value at `index` of `parent`'s record, at `node` (for `superDecoder`);
    /// with `index` nil, of a `null` (a super-decoder for a key the object does not have decodes
    /// as null, as in `JSONDecoder`).
    init(nestedIn parent: TapeDecoder, index: Int?, node: CodingPathNode) {
        view = index == nil ? .null : parent.view
        self.index = index ?? 0
        pendingNode = DeferredCodingPathNode(node)
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
        pendingNode = DeferredCodingPathNode(.root)
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
        if cachesContainers {
            return session.keyedContainer(keyedBy: Key.self, decoder: self, object: index, depth: depth)
        }
        return nestedKeyedContainer(keyedBy: Key.self, object: index, depth: depth, node: pendingNode)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkLive()
        guard view.kind(index) == .array else { throw Unbox.mismatch([Any].self, view, index, node) }
        return UnkeyedContainer(session.arrayPosition(for: self, array: index, node: pendingNode), array: index)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try checkLive()
        return self
    }

    /// Decodes `T` from the value at `index` at `node`, then returns to the current value.
    /// Primitives and arrays of primitives are decoded directly; no node is made unless asked for.
    func decode<T: Decodable>(
        _ type: T.Type,
        at index: Int,
        node: @autoclosure () -> DeferredCodingPathNode
    ) throws -> T {
        if let direct = KnownTypes.shared.direct(T.self) {
            return try decodeDirect(type, direct, at: index, node: node().made)
        }
        if _slowPath(depth >= session.options.maxDepth) { throw tooDeep(node().made) }
        let (savedIndex, savedNode) = (self.index, pendingNode)
        self.index = index
        pendingNode = node()
        depth += 1
        defer {
            self.index = savedIndex
            pendingNode = savedNode
            depth -= 1
        }
        return try decodeCurrent(type)
    }

    /// The error of a value nested deeper than ``JSONRecordDecodingOptions/maxDepth``.
    @inline(never)
    private func tooDeep(_ node: CodingPathNode) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: node.codingPath,
                debugDescription:
                    "values nested more than \(session.options.maxDepth) levels deep are not decoded "
                    + "(raise JSONRecordDecodingOptions.maxDepth only where the decoding thread's stack holds "
                    + "that many levels of init(from:))"
            )
        )
    }

    /// `T`, one of the types decoded directly (`direct` says which): the common fields of records.
    /// Saves the generic path's node, container and existential per value. `direct` came from
    /// `KnownTypes.direct(T.self)`, which names `T` exactly, so each `as! T` below casts a type to
    /// itself (a `String` to `T == String`), which the runtime's cast checks first.
    @inline(__always)
    private func decodeDirect<T>(
        _ type: T.Type,
        _ direct: KnownTypes.Direct,
        at index: Int,
        node: @autoclosure () -> CodingPathNode
    ) throws -> T {
        switch direct {
        case .string: return try Unbox.string(view, index, node()) as! T
        case .double: return try Unbox.double(view, index, node(), session.floatStrings) as! T
        case .int: return try Unbox.integer(view, index, node(), as: Int.self) as! T
        case .bool: return try Unbox.bool(view, index, node()) as! T
        case .strings: return try array(at: index, node: node(), Unbox.string) as! T
        case .doubles:
            let session = self.session
            return try array(at: index, node: node()) { try Unbox.double($0, $1, $2(), session.floatStrings) } as! T
        case .ints:
            return try array(at: index, node: node()) { try Unbox.integer($0, $1, $2(), as: Int.self) } as! T
        case .doubles2: return try doubles2(at: index, node: node()) as! T
        case .doubles3:
            return try array(at: index, node: node()) { try self.doubles2(at: $1, node: $2()) } as! T
        case .doubles4:
            let polygons = try array(at: index, node: node()) { _, ring, node in
                try self.array(at: ring, node: node()) { try self.doubles2(at: $1, node: $2()) }
            }
            return polygons as! T
        }
    }

    /// `[[Double]]`, each element an array of numbers (GeoJSON's line or ring of points).
    private func doubles2(at index: Int, node: @autoclosure () -> CodingPathNode) throws -> [[Double]] {
        let floatStrings = session.floatStrings
        return try array(at: index, node: node()) { _, point, node in
            try self.array(at: point, node: node()) { try Unbox.double($0, $1, $2(), floatStrings) }
        }
    }

    /// An array of primitives, decoded element by element with `element`. Its node and its
    /// elements' are made only for an error: an element that fails is decoded again with its
    /// node, to throw the error at its coding path (the conversions are pure). Inlined, so that
    /// `element` is too: called through a closure, it cost a thunk and a context per element.
    @inline(__always)
    private func array<E>(
        at index: Int,
        node: @autoclosure () -> CodingPathNode,
        _ element: (TapeView, Int, @autoclosure () -> CodingPathNode) throws -> E
    ) throws -> [E] {
        guard view.kind(index) == .array else { throw Unbox.mismatch([Any].self, view, index, node()) }
        var elements: [E] = []
        elements.reserveCapacity(view.count(index))
        var child = view.firstChild(index)
        let end = view.end(index)
        while child < end {
            do {
                elements.append(try element(view, child, .root))
            } catch {
                let elementNode = CodingPathNode.index(elements.count, parent: node())
                _ = try element(view, child, elementNode)
                throw error
            }
            child = view.next(child)
        }
        return elements
    }

    /// Decodes `T` from the current value, with the special cases `JSONDecoder` has (dates, data,
    /// URLs, decimals, dictionaries keyed by strings) and ours (`JSONValue`, arrays: see
    /// ``TapeDecodableCollection``).
    func decodeCurrent<T: Decodable>(_ type: T.Type) throws -> T {
        if let direct = KnownTypes.shared.direct(T.self) {
            return try decodeDirect(type, direct, at: index, node: node)
        }
        if T.self == JSONValue.self { return view.value(index, keys: session.keyStrings) as! T }
        if T.self == JSONFragment.self {
            return JSONFragment(bytes: view.minified(index, using: &session.minifiedText)) as! T
        }
        if T.self == Date.self { return try decodeDate() as! T }
        if T.self == Decimal.self { return try decodeDecimal() as! T }
        if T.self == Data.self {
            switch session.options.dataDecodingStrategy {
            case .base64:
                let text = try Unbox.string(view, index, node)
                guard let data = Data(base64Encoded: text) else { throw Unbox.corrupted("expected Base64 data", node) }
                return data as! T
            case .deferredToData: return Data(try [UInt8](from: self)) as! T  // Data's own form: its bytes
            case .custom(let body): return try body(self) as! T
            }
        }
        if T.self == URL.self {
            let text = try Unbox.string(view, index, node)
            guard let url = URL(string: text) else { throw Unbox.corrupted("invalid URL '\(text)'", node) }
            return url as! T
        }
        if let collection = session.collectionTypes.collection(T.self) {
            return try collection.decodeCollection(from: self, as: T.self)
        }
        return try T(from: self)
    }

    private func decodeDate() throws -> Date {
        switch session.options.dateDecodingStrategy {
        case .deferredToDate:
            guard view.kind(index) != .string else {
                throw Self.withDateStrategyHint(Unbox.mismatch(Double.self, view, index, node))
            }
            return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try Unbox.double(view, index, node))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try Unbox.double(view, index, node) / 1000)
        case .iso8601:
            guard view.kind(index) == .string else { throw Unbox.mismatch(String.self, view, index, node) }
            guard let date = RFC3339.date(from: view.text(index)) else {
                throw Unbox.corrupted(
                    "Expected date string to be ISO8601-formatted, found '\(view.string(index))'",
                    node
                )
            }
            return date
        case .custom(let body): return try body(self)
        case .parsed(let parse):
            let text = try Unbox.string(view, index, node)
            do {
                return try parse(text)
            } catch let mismatch as DateFormatMismatch {
                throw Unbox.corrupted("Date string '\(text)' does not match the format \(mismatch.format)", node)
            } catch {
                throw Unbox.corrupted("Date string '\(text)' could not be parsed: \(error)", node)
            }
        }
    }

    /// `JSONDecoder`'s error for a date written as text under `.deferredToDate`, with the option
    /// that decodes it (see FoundationParity.md).
    private static func withDateStrategyHint(_ error: DecodingError) -> DecodingError {
        guard case .typeMismatch(let type, let context) = error else { return error }
        return .typeMismatch(
            type,
            DecodingError.Context(
                codingPath: context.codingPath,
                debugDescription: context.debugDescription
                    + " A Date decodes from a number of seconds since 2001 by default (dateDecodingStrategy .deferredToDate): set dateDecodingStrategy (.iso8601, .formatted(_:), …) for dates written as text."
            )
        )
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

extension TapeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { isLive && Unbox.isNull(view, index) }
    func decode(_ type: Bool.Type) throws -> Bool {
        try checkLive()
        return try Unbox.bool(view, index, node)
    }
    func decode(_ type: String.Type) throws -> String {
        try checkLive()
        return try Unbox.string(view, index, node)
    }
    func decode(_ type: Double.Type) throws -> Double {
        try checkLive()
        return try Unbox.double(view, index, node, session.floatStrings)
    }
    func decode(_ type: Float.Type) throws -> Float {
        try checkLive()
        return try Unbox.float(view, index, node, session.floatStrings)
    }
    func decode(_ type: Int.Type) throws -> Int {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: Int8.Type) throws -> Int8 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: Int16.Type) throws -> Int16 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: Int32.Type) throws -> Int32 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: Int64.Type) throws -> Int64 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt.Type) throws -> UInt {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: Int128.Type) throws -> Int128 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode(_ type: UInt128.Type) throws -> UInt128 {
        try checkLive()
        return try Unbox.integer(view, index, node, as: type)
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkLive()
        return try decodeCurrent(type)
    }
}
