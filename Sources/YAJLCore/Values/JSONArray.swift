/// A JSON array's elements, in order: the payload of ``JSONValue/array(_:)-enum.case``.
///
/// It behaves as an `Array` of ``JSONValue`` (a mutable, range-replaceable random-access
/// collection with value semantics, built from an array literal), and ``elements`` is that array.
/// Its storage is released one nested array or object at a time, on an explicit stack, so that
/// dropping or comparing a value takes no stack in proportion to its depth, whatever the depth.
public struct JSONArray: Sendable, RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
    ExpressibleByArrayLiteral
{
    var storage: JSONArrayStorage

    /// An empty array.
    public init() { storage = JSONArrayStorage([]) }

    /// The elements of `elements`, in order.
    public init(_ elements: some Sequence<JSONValue>) { storage = JSONArrayStorage(Array(elements)) }

    /// The literal's elements, in order.
    public init(arrayLiteral elements: JSONValue...) { storage = JSONArrayStorage(elements) }

    /// The elements as a Swift array.
    public var elements: [JSONValue] {
        get { storage.items }
        set {
            makeUnique()
            storage.items = newValue
        }
        _modify {
            makeUnique()
            yield &storage.items
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.items.count }

    public subscript(position: Int) -> JSONValue {
        get { storage.items[position] }
        set {
            makeUnique()
            storage.items[position] = newValue
        }
    }

    public mutating func replaceSubrange<C: Collection<JSONValue>>(_ subrange: Range<Int>, with newElements: C) {
        makeUnique()
        storage.items.replaceSubrange(subrange, with: newElements)
    }

    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique()
        storage.items.reserveCapacity(minimumCapacity)
    }

    /// Copies the storage before a write when another value shares it (copy on write).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = JSONArrayStorage(storage.items) }
    }
}

extension JSONArray: Hashable {
    /// Whether both hold equal elements in the same order (compared without recursion).
    public static func == (lhs: JSONArray, rhs: JSONArray) -> Bool { JSONValue.array(lhs) == JSONValue.array(rhs) }

    public func hash(into hasher: inout Hasher) { JSONValue.array(self).hash(into: &hasher) }
}

extension JSONArray: CustomStringConvertible {
    /// The array as minified JSON (see ``JSONValue/description``).
    public var description: String { JSONValue.array(self).description }
}

extension JSONValue {
    /// An array of `elements`, in order.
    public static func array(_ elements: [JSONValue]) -> JSONValue { .array(JSONArray(elements)) }
}

/// The shared, copy-on-write storage of a ``JSONArray``. Mutated only while uniquely referenced
/// (``JSONArray`` copies it first otherwise), so sharing it across threads is safe.
final class JSONArrayStorage: @unchecked Sendable {
    var items: [JSONValue]

    init(_ items: [JSONValue]) { self.items = items }

    deinit { JSONValue.releaseNested(&items) }
}

/// The shared, copy-on-write storage of a ``JSONObject``, as ``JSONArrayStorage`` is for arrays.
final class JSONObjectStorage: @unchecked Sendable {
    var members: [JSONObject.Member]

    init(_ members: [JSONObject.Member]) { self.members = members }

    deinit { JSONValue.releaseNested(&members) }
}

extension JSONValue {
    /// Whether this is an array or an object.
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// Releases the arrays and objects nested in `items` one at a time, on an explicit stack:
    /// each container that nothing else holds gives up its own nested containers to the stack
    /// before it is released, so no release runs deeper than one level. Scalars stay in place and
    /// are released with their array as usual.
    static func releaseNested(_ items: inout [JSONValue]) {
        var pending: [JSONValue] = []
        takeContainers(&items, into: &pending)
        releaseAll(&pending)
    }

    /// The same as the array form, for an object's members.
    static func releaseNested(_ members: inout [JSONObject.Member]) {
        var pending: [JSONValue] = []
        takeContainers(&members, into: &pending)
        releaseAll(&pending)
    }

    private static func takeContainers(_ items: inout [JSONValue], into pending: inout [JSONValue]) {
        for index in items.indices where items[index].isContainer {
            pending.append(items[index])
            items[index] = .null
        }
    }

    private static func takeContainers(_ members: inout [JSONObject.Member], into pending: inout [JSONValue]) {
        for index in members.indices where members[index].value.isContainer {
            pending.append(members[index].value)
            members[index].value = .null
        }
    }

    private static func releaseAll(_ pending: inout [JSONValue]) {
        while let last = pending.indices.last {
            // The storage is taken out of the value, and the value dropped, before the check: then
            // the storage's only reference is ours, unless a value outside the tree shares it.
            var arrayStorage: JSONArrayStorage?
            var objectStorage: JSONObjectStorage?
            switch pending[last] {
            case .array(let array): arrayStorage = array.storage
            case .object(let object): objectStorage = object.storage
            default: break
            }
            pending.removeLast()
            if isKnownUniquelyReferenced(&arrayStorage) { takeContainers(&arrayStorage!.items, into: &pending) }
            if isKnownUniquelyReferenced(&objectStorage) { takeContainers(&objectStorage!.members, into: &pending) }
        }
    }
}
