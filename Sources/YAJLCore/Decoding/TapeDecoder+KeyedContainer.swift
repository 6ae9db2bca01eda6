#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a keyed container reads: its decoder, its object on the tape and its coding-path node.
/// A class, so that a cached container can be moved to the next object (see
/// ``DecodingSession/keyedContainer(keyedBy:decoder:object:depth:)``), and so that a
/// container is one reference: the standard library's box copies the container for every
/// `decode(_:forKey:)`, and each copy retains what it holds.
final class ObjectPosition {
    /// The decoder it reads through (retained: see ``TapeDecoder``'s ownership notes).
    let decoder: TapeDecoder
    /// Whether keys are compared as they are, with no key strategy.
    let usesDefaultKeys: Bool
    /// The object's entry on the tape.
    var object: Int
    /// The object's coding-path node, made when first asked for.
    var pendingNode: DeferredCodingPathNode
    /// The object's coding-path node.
    var node: CodingPathNode { pendingNode.resolve() }
    /// The object's nesting depth in the record.
    let depth: Int
    /// This depth's member hint (see ``DecodingSession/memberHint(depth:)``).
    let hint: UnsafeMutablePointer<MemberHint>?

    /// The decoder generation the container belongs to (see ``TapeDecoder``'s ownership notes).
    var generation: Int

    init(
        decoder: TapeDecoder,
        object: Int,
        node: DeferredCodingPathNode,
        depth: Int,
        hint: UnsafeMutablePointer<MemberHint>?,
        generation: Int
    ) {
        self.decoder = decoder
        usesDefaultKeys = decoder.session.usesDefaultKeys
        self.object = object
        self.pendingNode = node
        self.depth = depth
        self.hint = hint
        self.generation = generation
        aim(at: object)
    }

    /// Moves the position to `object` and aims this depth's member hint at its first member, so
    /// that the first key looked up in document order is found with one comparison too.
    @inline(__always)
    func aim(at object: Int) {
        self.object = object
        guard let hint else { return }
        let view = decoder.view
        hint.pointee = MemberHint(object: object, next: view.firstChild(object), end: view.end(object))
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Its decoder, object, node and generation (retained; the only stored property).
    let position: ObjectPosition

    init(position: ObjectPosition) {
        self.position = position
    }

    /// The decoder it reads through.
    private var decoder: TapeDecoder { position.decoder }
    private var usesDefaultKeys: Bool { position.usesDefaultKeys }

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

    /// Each distinct key once, in document order (a repeated key, or two keys the strategy maps
    /// to one name, count once: as in `JSONDecoder`, the first member is the one decoded).
    var allKeys: [Key] {
        var seen = Set<String>()
        return keyIndices.compactMap { index in
            let name = codingKeyName(forKeyAt: index)
            guard seen.insert(name).inserted else { return nil }
            return Key(stringValue: name)
        }
    }

    private func codingKeyName(forKeyAt index: Int) -> String {
        session.codingKeyName(forKeyAt: index, in: view, codingPath: codingPath)
    }

    /// The value entry of the member after the one found last (the member hint) when its key is
    /// `key`'s, with no key strategy; else nil. The fast path of ``require(_:)`` and
    /// ``present(_:)``, inlined into each `decode`: synthesized `init(from:)` asks for the keys in
    /// declaration order, which is usually the document's order.
    @inline(__always)
    private func hintedMember(_ key: Key) -> Int? {
        let position = self.position
        guard position.usesDefaultKeys, let hint = position.hint else { return nil }
        let next = hint.pointee.next
        guard hint.pointee.object == position.object, next < hint.pointee.end else { return nil }
        let view = position.decoder.view
        guard let value = view.valueOfKey(at: next, named: key.stringValue) else { return nil }
        hint.pointee.next = view.next(value)
        return value
    }

    /// The value entry of the first member whose key maps to `key`.
    ///
    /// The member after the last one found is tried first (see ``hintedMember(_:)``).
    private func member(_ key: Key) -> Int? {
        guard isLive else { return nil }
        if let value = hintedMember(key) { return value }
        return member(named: key.stringValue)
    }

    /// The value entry of the first member whose key maps to `wanted`.
    private func member(named wanted: String) -> Int? {
        guard isLive else { return nil }
        let view = self.view
        let object = self.object
        let end = view.end(object)
        let hint = position.hint
        // With a key strategy, the hinted member is compared through the strategy.
        if !usesDefaultKeys, let hint, hint.pointee.object == object, hint.pointee.next < end,
            view.kind(hint.pointee.next) == .key, matches(hint.pointee.next, wanted)
        {
            let value = view.next(hint.pointee.next)
            hint.pointee.next = view.next(value)
            return value
        }
        // The first member with the key (a repeated key: the first wins, as in `JSONDecoder`).
        // The hint is not moved here: it moves only past members found at it, so every member
        // before it was found for another key, and the member found at it is the key's first.
        var child = view.firstChild(object)
        while child < end {
            let value = view.next(child)
            if matches(child, wanted) { return value }
            child = view.next(value)
        }
        return nil
    }

    /// Whether the key entry at `index` maps to `wanted`.
    @inline(__always)
    private func matches(_ index: Int, _ wanted: String) -> Bool {
        usesDefaultKeys
            ? view.keyEquals(index, wanted) : session.key(at: index, in: view, matches: wanted, codingPath: codingPath)
    }

    private func childNode(_ key: Key) -> CodingPathNode { .key(key.stringValue, parent: node) }

    @inline(__always)
    private func require(_ key: Key) throws -> Int {
        if isLive, let value = hintedMember(key) { return value }
        return try requireSlowly(key)
    }

    /// ``require(_:)`` past the member hint: a scan of the object, or the error.
    @inline(never)
    private func requireSlowly(_ key: Key) throws -> Int {
        guard isLive else { throw Unbox.expired(node) }
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "missing key '\(key.stringValue)'"
                )
            )
        }
        return value
    }

    /// The member for `key`, or nil when it is absent or null (for `decodeIfPresent`).
    @inline(__always)
    private func present(_ key: Key) throws -> Int? {
        if isLive, let value = hintedMember(key) { return Unbox.isNull(view, value) ? nil : value }
        return try presentSlowly(key)
    }

    /// ``present(_:)`` past the member hint.
    @inline(never)
    private func presentSlowly(_ key: Key) throws -> Int? {
        guard isLive else { throw Unbox.expired(node) }
        guard let value = member(key), !Unbox.isNull(view, value) else { return nil }
        return value
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { Unbox.isNull(view, try require(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try Unbox.bool(view, require(key), childNode(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try Unbox.string(view, require(key), childNode(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try Unbox.double(view, require(key), childNode(key), session.floatStrings)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Unbox.float(view, require(key), childNode(key), session.floatStrings)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try Unbox.integer(view, require(key), childNode(key), as: type)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try Unbox.bool(view, $0, childNode(key)) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try Unbox.string(view, $0, childNode(key)) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try Unbox.double(view, $0, childNode(key), session.floatStrings) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try Unbox.integer(view, $0, childNode(key), as: type) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: require(key), node: DeferredCodingPathNode(key: key.stringValue, parent: node))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try present(key) else { return nil }
        return try decoder.decode(type, at: value, node: DeferredCodingPathNode(key: key.stringValue, parent: node))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try require(key)
        guard view.kind(value) == .object else { throw Unbox.mismatch([String: Any].self, view, value, childNode(key)) }
        return decoder.nestedKeyedContainer(
            keyedBy: NestedKey.self,
            object: value,
            depth: depth + 1,
            node: DeferredCodingPathNode(childNode(key))
        )
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try require(key)
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, childNode(key)) }
        let node = DeferredCodingPathNode(key: key.stringValue, parent: node)
        return UnkeyedContainer(session.arrayPosition(for: decoder, array: value, node: node), array: value)
    }

    func superDecoder() throws -> any Decoder {
        guard isLive else { throw Unbox.expired(node) }
        // The member named "super" (through the key strategy), or a null when there is none.
        return TapeDecoder(nestedIn: decoder, index: member(named: "super"), node: .key("super", parent: node))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard isLive else { throw Unbox.expired(node) }
        return TapeDecoder(nestedIn: decoder, index: member(key), node: childNode(key))
    }
}
