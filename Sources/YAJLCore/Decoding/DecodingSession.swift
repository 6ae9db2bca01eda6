#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a keyed container's next lookup starts: `object` (its tape index; -1 for none) is the
/// object last looked up at its depth, `next` the member after the one found last, `end` the index
/// just past the object.
struct MemberHint {
    var object: Int
    var next: Int
    var end: Int

    /// No object: every lookup scans.
    static let none = MemberHint(object: -1, next: 0, end: 0)
}

/// Shared, per-stream decoding state: the strategies, and caches that make them cheap.
final class DecodingSession {
    let options: JSONRecordDecodingOptions
    let userInfo: [CodingUserInfoKey: Any]
    /// snake_case JSON keys, converted once per distinct key and compared as bytes.
    let snakeCaseKeys = SnakeCaseKeyCache()
    /// The object keys of owned `JSONValue`s, made once per distinct key.
    let keyStrings = KeyStringCache()
    /// Which decoded types are arrays and dictionaries that the decoder's own loops decode.
    let collectionTypes = CollectionTypeCache()
    /// The generator that writes ``JSONFragment``s, made once per session.
    var minifiedText = MinifiedText()

    /// Whether keys are compared as they are (no key strategy).
    let usesDefaultKeys: Bool
    /// The strings that stand for infinities and NaN, when the strategy converts them.
    let floatStrings: NonConformingFloatStrings?
    /// Per nesting depth (up to ``memberHintDepth``): the object last looked up, the member after
    /// the last one found, and the object's end, so that keys decoded in document order are found
    /// with one comparison. Never reallocated: containers keep a pointer to their slot.
    private let memberHints: UnsafeMutablePointer<MemberHint>
    static let memberHintDepth = 64
    /// Hint slots handed out so far (to containers that are cached and keep their slot: every
    /// one of them is reset after each record, not only those handed out during it).
    private var memberHintsUsed = 0

    init(options: JSONRecordDecodingOptions) {
        if case .convertFromString(let positive, let negative, let nan) = options.nonConformingFloatDecodingStrategy {
            floatStrings = NonConformingFloatStrings(positiveInfinity: positive, negativeInfinity: negative, nan: nan)
        } else {
            floatStrings = nil
        }
        self.options = options
        userInfo = options.userInfo
        if case .useDefaultKeys = options.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        memberHints = .allocate(capacity: Self.memberHintDepth)
        memberHints.initialize(repeating: MemberHint.none, count: Self.memberHintDepth)
    }

    deinit {
        memberHints.deallocate()
        collectionTypes.deallocate()
    }

    /// The member hint slot for containers at `depth`; none below ``memberHintDepth``.
    func memberHint(depth: Int) -> UnsafeMutablePointer<MemberHint>? {
        guard depth < Self.memberHintDepth else { return nil }
        memberHintsUsed = max(memberHintsUsed, depth + 1)
        return memberHints + depth
    }

    /// Forgets the member hints: they hold indices into the record just decoded, and the next
    /// record may start at the same index with another layout.
    private func resetMemberHints() {
        memberHints.update(repeating: MemberHint.none, count: memberHintsUsed)
    }

    /// The keyed containers made so far by the record decoder, one per depth and key type, in
    /// one flat list (a few entries): searched in place, without copying an array per lookup.
    @exclusivity(unchecked) private var keyedContainers: [CachedKeyedContainer] = []

    private struct CachedKeyedContainer {
        let depth: Int
        let keyType: ObjectIdentifier
        let position: ObjectPosition
        let holder: AnyObject
    }

    /// A cached container, handed out through ``copy``: a closure made by
    /// ``copier(of:)``, whose context holds the container and its type's metadata.
    ///
    /// `KeyedDecodingContainer<Key>` is a resilient generic type. Copying one in code generic over
    /// `Key` (as `container(keyedBy:)` always is: it is called through `any Decoder`) asks the
    /// runtime for its metadata, a hash-table lookup of about 460 instructions, at every call.
    /// The closure was made once, generic over the container's own type, so calling it copies
    /// with the metadata in its context.
    private final class ContainerHolder<Key: CodingKey> {
        let copy: () -> KeyedDecodingContainer<Key>
        init(_ container: KeyedDecodingContainer<Key>) { copy = DecodingSession.copier(of: container) }
    }

    /// A closure that returns a copy of `value`, generic over `Value` itself, so that calling it
    /// needs no metadata lookup (never specialized: a specialization generic over `Key` would look
    /// `KeyedDecodingContainer<Key>` up again).
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func copier<Value>(of value: Value) -> () -> Value { { value } }

    /// The record decoder's keyed container at `object`: the one made before for the same key
    /// type at the same depth, moved to `object`, or a new one.
    ///
    /// Making a `KeyedDecodingContainer` costs several lookups in the runtime's metadata caches
    /// (the container, its box, the conformance) and a box; reusing one costs none (see
    /// ``ContainerHolder``). Safe because the record decoder's containers at one depth are used
    /// one after the other: a container lives in one `init(from:)` call, and the values it
    /// decodes are one level deeper. (Nested containers, which can live side by side, are never
    /// cached.)
    func keyedContainer<Key: CodingKey>(
        keyedBy type: Key.Type,
        decoder: TapeDecoder,
        object: Int,
        depth: Int
    ) -> KeyedDecodingContainer<Key> {
        guard depth < Self.memberHintDepth else {
            return decoder.nestedKeyedContainer(
                keyedBy: type,
                object: object,
                depth: depth,
                node: decoder.currentPendingNode
            )
        }
        let keyType = ObjectIdentifier(Key.self)
        let found = keyedContainers.withUnsafeBufferPointer { cached in
            cached.firstIndex { $0.depth == depth && $0.keyType == keyType }
        }
        if let found {
            let position = keyedContainers[found].position
            position.aim(at: object)
            decoder.giveNode(to: position)
            position.generation = decoder.liveGeneration
            return unsafeDowncast(keyedContainers[found].holder, to: ContainerHolder<Key>.self).copy()
        }
        return newKeyedContainer(keyedBy: type, decoder: decoder, object: object, depth: depth)
    }

    /// A new container for ``keyedContainer(keyedBy:decoder:object:depth:)``, and cached. A
    /// function of its own, so that the cached path has no temporary of the container's type,
    /// which would need its metadata.
    @inline(never)
    private func newKeyedContainer<Key: CodingKey>(
        keyedBy type: Key.Type,
        decoder: TapeDecoder,
        object: Int,
        depth: Int
    ) -> KeyedDecodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        let position = ObjectPosition(
            decoder: decoder,
            object: object,
            node: decoder.currentPendingNode,
            depth: depth,
            hint: memberHint(depth: depth),
            generation: decoder.liveGeneration
        )
        let container = KeyedDecodingContainer(KeyedContainer<Key>(position: position))
        keyedContainers.append(
            CachedKeyedContainer(depth: depth, keyType: keyType, position: position, holder: ContainerHolder(container))
        )
        return container
    }

    /// The record decoder's unkeyed containers' fixed parts, made so far (at most
    /// ``maxArrayPositions`` kept).
    @exclusivity(unchecked) private var arrayPositions: [ArrayPosition] = []
    private static let maxArrayPositions = 16

    /// The fixed parts of a new unkeyed container over `array` at `node`: for the record decoder,
    /// one made before that no container holds any more (the session's reference is the only
    /// one), moved to `array`; else a new one. Reusing one saves an allocation per container
    /// (GeoJSON's `[lon, lat]` decoded by a struct of its own: one per point). Decoders made by
    /// `superDecoder` get new ones: they hold the session, which would then hold them.
    func arrayPosition(for decoder: TapeDecoder, array: Int, node: DeferredCodingPathNode) -> ArrayPosition {
        guard decoder.cachesContainers else { return ArrayPosition(decoder: decoder, array: array, node: node) }
        for index in arrayPositions.indices where isKnownUniquelyReferenced(&arrayPositions[index]) {
            let position = arrayPositions[index]
            position.aim(at: array, node: node)
            return position
        }
        let position = ArrayPosition(decoder: decoder, array: array, node: node)
        if arrayPositions.count < Self.maxArrayPositions { arrayPositions.append(position) }
        return position
    }

    /// The decoder of records, reused from record to record.
    private var recordDecoder: TapeDecoder?

    /// Decodes the value at `index` of the tape.
    func decode<T: Decodable>(_ type: T.Type, from view: TapeView, at index: Int) throws -> T {
        if T.self == JSONValue.self { return view.value(index, keys: keyStrings) as! T }
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
    func codingKeyName(forKeyAt index: Int, in view: TapeView, codingPath: @autoclosure () -> [any CodingKey]) -> String
    {
        let jsonKey = view.string(index)
        switch options.keyDecodingStrategy {
        case .useDefaultKeys: return jsonKey
        case .convertFromSnakeCase: return KeyCaseConversion.camelCase(fromSnakeCase: jsonKey)
        case .custom(let body): return body(codingPath() + [RecordCodingKey(stringValue: jsonKey)]).stringValue
        }
    }

    /// Whether the JSON key at `index` maps to the coding key `wanted` under the key strategy.
    func key(
        at index: Int,
        in view: TapeView,
        matches wanted: String,
        codingPath: @autoclosure () -> [any CodingKey]
    ) -> Bool {
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
                    if key(at: child, in: view, matches: codingKey.stringValue, codingPath: Array(codingPath[..<depth]))
                    {
                        found = value
                    }
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
}
