/// Arrays of any decodable element and dictionaries keyed by strings, decoded by the tape
/// decoder's own loops instead of the standard library's `init(from:)`.
///
/// The standard library's `Array.init(from:)` runs unspecialized: every element it appends asks
/// the runtime for `Array<Element>`'s metadata (a hash-table lookup of about 330 instructions),
/// and it makes a boxed unkeyed container for each array. Its `Dictionary.init(from:)` goes
/// through a keyed container, so a key strategy (snake case, custom) renamed the dictionary's
/// keys and a repeated key's last value won, where `JSONDecoder` keeps a dictionary's keys as
/// they are and its first value for a repeated key, not decoding the others. These loops do what
/// `JSONDecoder` does, with one metadata lookup per collection.
protocol TapeDecodableCollection {
    /// `Self` decoded from the decoder's current value, returned as `Result`, which is `Self`
    /// (the caller found this conformance for its `Result`: ``CollectionTypeCache``).
    static func decodeCollection<Result>(from decoder: TapeDecoder, as result: Result.Type) throws -> Result
}

extension Array: TapeDecodableCollection where Element: Decodable {
    static func decodeCollection<Result>(from decoder: TapeDecoder, as result: Result.Type) throws -> Result {
        try decoder.decodeElements(Element.self) as! Result
    }
}

extension Dictionary: TapeDecodableCollection where Key == String, Value: Decodable {
    static func decodeCollection<Result>(from decoder: TapeDecoder, as result: Result.Type) throws -> Result {
        try decoder.decodeMembers(Value.self) as! Result
    }
}

/// Which decoded types are collections with a loop of their own (``TapeDecodableCollection``),
/// remembered per type: asking the runtime whether a type conforms costs a lookup in its
/// conformance cache at every value, finding the answer here about twenty instructions.
///
/// Direct-mapped: one slot per hash of the type's identity, the newest type wins. A struct over
/// storage that its owner frees (``deallocate()``), so that reading it from the session retains
/// nothing. One per decoding session: not shared between threads.
struct CollectionTypeCache {
    private struct Entry {
        var type: ObjectIdentifier?
        var collection: (any TapeDecodableCollection.Type)?
    }

    private static let slotCount = 32
    private let entries: UnsafeMutablePointer<Entry>

    init() {
        entries = .allocate(capacity: Self.slotCount)
        entries.initialize(repeating: Entry(type: nil, collection: nil), count: Self.slotCount)
    }

    /// Frees the storage (the owner's `deinit`).
    func deallocate() {
        entries.deinitialize(count: Self.slotCount)
        entries.deallocate()
    }

    /// `type` as a collection decoded by the tape decoder's loops, or nil.
    @inline(__always)
    func collection<T>(_ type: T.Type) -> (any TapeDecodableCollection.Type)? {
        let id = ObjectIdentifier(type)
        let entry = entries + Int(truncatingIfNeeded: (UInt(bitPattern: id) >> 4) % UInt(Self.slotCount))
        if entry.pointee.type == id { return entry.pointee.collection }
        let collection = type as? any TapeDecodableCollection.Type
        entry.pointee = Entry(type: id, collection: collection)
        return collection
    }
}

extension TapeDecoder {
    /// The current value, an array, with each element decoded as `Element` (at its index's coding
    /// path, made only when asked for).
    func decodeElements<Element: Decodable>(_ type: Element.Type) throws -> [Element] {
        try checkLive()
        let array = index
        guard view.kind(array) == .array else { throw Unbox.mismatch([Any].self, view, array, node) }
        let count = view.count(array)
        guard count > 0 else { return [] }
        let parent = node
        // Written in place: `append` in code generic over `Element` looks `Array<Element>`'s
        // metadata up at every call (about 200 instructions). If an element throws, the array
        // holds (and frees) the ones decoded before it.
        return try [Element](unsafeUninitializedCapacity: count) { elements, initialized in
            var child = view.firstChild(array)
            while initialized < count {
                let node = DeferredCodingPathNode(index: initialized, parent: parent)
                (elements.baseAddress! + initialized).initialize(to: try decode(Element.self, at: child, node: node))
                initialized += 1
                child = view.next(child)
            }
        }
    }

    /// The current value, an object, as a dictionary of its members decoded as `Value`: keys as
    /// they are (no key strategy), the first member of a repeated key (later ones not decoded), as
    /// `JSONDecoder` does.
    func decodeMembers<Value: Decodable>(_ type: Value.Type) throws -> [String: Value] {
        try checkLive()
        let object = index
        guard view.kind(object) == .object else { throw Unbox.mismatch([String: Any].self, view, object, node) }
        var members: [String: Value] = [:]
        var child = view.firstChild(object)
        let end = view.end(object)
        guard child < end else { return members }
        members.reserveCapacity(view.count(object))
        let parent = node
        let keys = session.keyStrings
        while child < end {
            let value = view.next(child)
            let key = keys.string(view.text(child))
            try Self.fillIfAbsent(&members[key]) {
                try decode(Value.self, at: value, node: DeferredCodingPathNode(key: key, parent: parent))
            }
            child = view.next(value)
        }
        return members
    }

    /// Stores `make()` in `slot` unless it holds a value: one hash of the key for the test and
    /// the insertion (a dictionary's subscript is modified in place).
    @inline(__always)
    private static func fillIfAbsent<Value>(_ slot: inout Value?, _ make: () throws -> Value) rethrows {
        if case .none = slot { slot = try make() }
    }
}
