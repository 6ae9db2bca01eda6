#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TapeDecoder {
    /// A new keyed container (not cached), owning its position.
    func nestedKeyedContainer<Key: CodingKey>(
        keyedBy type: Key.Type,
        object: Int,
        depth: Int,
        node: DeferredCodingPathNode
    ) -> KeyedDecodingContainer<Key> {
        let position = ObjectPosition(
            decoder: self,
            object: object,
            node: node,
            depth: depth,
            hint: session.memberHint(depth: depth),
            generation: liveGeneration
        )
        return KeyedDecodingContainer(KeyedContainer<Key>(position: position))
    }
}

/// The parts of an unkeyed container that do not change as it moves: its decoder, its array's
/// end and count, its coding-path node and its generation. A class shared by the container's
/// copies (which each keep their own place), so that the container is three words and fits in the
/// inline buffer of `any UnkeyedDecodingContainer`: no box is allocated per container, and none is
/// made unique at every `decode`. The record decoder's are reused once no container holds them
/// (``DecodingSession/arrayPosition(for:array:node:)``). Its properties are read and written by
/// one thread, one access at a time: unchecked for exclusivity (a check per access would be a
/// call per decoded element).
final class ArrayPosition {
    /// Retained, as in ``ObjectPosition``.
    let decoder: TapeDecoder
    /// The index just past the array's last element.
    @exclusivity(unchecked) private(set) var end = 0
    /// The number of elements.
    @exclusivity(unchecked) private(set) var count = 0
    /// The array's coding-path node, made when first asked for: a struct decoded from an array
    /// (a GeoJSON position `[lon, lat]`) then costs no node.
    @exclusivity(unchecked) var pendingNode: DeferredCodingPathNode
    /// The decoder generation the container belongs to.
    @exclusivity(unchecked) private(set) var generation = 0

    init(decoder: TapeDecoder, array: Int, node: DeferredCodingPathNode) {
        self.decoder = decoder
        pendingNode = node
        aim(at: array, node: node)
    }

    /// Moves the position to `array`, at `node`, in the decoder's current generation.
    func aim(at array: Int, node: DeferredCodingPathNode) {
        let view = decoder.view
        end = view.end(array)
        count = view.count(array)
        if !pendingNode.isSame(as: node) { pendingNode = node }
        generation = decoder.liveGeneration
    }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    /// Shared by the container's copies; never changed while one holds it.
    private let shared: ArrayPosition
    /// The next element's entry.
    private var position: Int
    private(set) var currentIndex = 0

    /// A container over `array`, whose fixed parts `shared` holds.
    init(_ shared: ArrayPosition, array: Int) {
        self.shared = shared
        position = shared.decoder.view.firstChild(array)
    }

    /// Retained (through ``ArrayPosition``), as in ``KeyedContainer``.
    private var decoder: TapeDecoder { shared.decoder }
    private var end: Int { shared.end }
    private var generation: Int { shared.generation }
    var count: Int? { shared.count }

    /// The array's coding-path node (made now if it was not: not kept, outside mutating calls).
    private var node: CodingPathNode { shared.pendingNode.made }
    var codingPath: [any CodingKey] { node.codingPath }
    var isAtEnd: Bool { position >= end }
    private var view: TapeView { decoder.view }

    /// The next element's entry and index, not moved past: a decode that fails leaves the
    /// container where it was (as in `JSONDecoder`), so `try?` can try another type.
    private func peek(_ type: Any.Type) throws -> (Int, Int) {
        guard decoder.liveGeneration == generation else { throw Unbox.expired(node) }
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [RecordCodingKey(intValue: currentIndex)],
                    debugDescription: "Unkeyed container is at end."
                )
            )
        }
        return (position, currentIndex)
    }

    /// Moves past the element at `element` (after it decoded).
    @inline(__always)
    private mutating func advance(past element: Int) {
        position = view.next(element)
        currentIndex += 1
    }

    /// The coding-path node of element `index`, built only when needed.
    private func elementNode(_ index: Int) -> CodingPathNode { .index(index, parent: node) }

    mutating func decodeNil() throws -> Bool {
        let (element, _) = try peek(Optional<Any>.self)
        guard Unbox.isNull(view, element) else { return false }
        advance(past: element)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (v, i) = try peek(type)
        let value = try Unbox.bool(view, v, elementNode(i))
        advance(past: v)
        return value
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let (v, i) = try peek(type)
        let value = try Unbox.string(view, v, elementNode(i))
        advance(past: v)
        return value
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let (v, i) = try peek(type)
        let value = try Unbox.double(view, v, elementNode(i), decoder.session.floatStrings)
        advance(past: v)
        return value
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let (v, i) = try peek(type)
        let value = try Unbox.float(view, v, elementNode(i), decoder.session.floatStrings)
        advance(past: v)
        return value
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        let (v, i) = try peek(type)
        let value = try Unbox.integer(view, v, elementNode(i), as: type)
        advance(past: v)
        return value
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let (v, i) = try peek(type)
        let value = try Unbox.integer(view, v, elementNode(i), as: type)
        advance(past: v)
        return value
    }
    mutating func decode(_ type: Int128.Type) throws -> Int128 {
        let (v, i) = try peek(type)
        let value = try Unbox.integer(view, v, elementNode(i), as: type)
        advance(past: v)
        return value
    }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 {
        let (v, i) = try peek(type)
        let value = try Unbox.integer(view, v, elementNode(i), as: type)
        advance(past: v)
        return value
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (element, index) = try peek(type)
        let value = try decoder.decode(
            type,
            at: element,
            node: DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        )
        advance(past: element)
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, index) = try peek(KeyedDecodingContainer<NestedKey>.self)
        let node = DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        guard view.kind(value) == .object else { throw Unbox.mismatch([String: Any].self, view, value, node.made) }
        let container = decoder.nestedKeyedContainer(
            keyedBy: NestedKey.self,
            object: value,
            depth: decoder.depth + 1,
            node: node
        )
        advance(past: value)
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, index) = try peek((any UnkeyedDecodingContainer).self)
        let node = DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, node.made) }
        let container = UnkeyedContainer(
            decoder.session.arrayPosition(for: decoder, array: value, node: node),
            array: value
        )
        advance(past: value)
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, index) = try peek((any Decoder).self)
        advance(past: value)
        return TapeDecoder(nestedIn: decoder, index: value, node: .index(index, parent: shared.pendingNode.resolve()))
    }
}
