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
/// one thread, one access at a time: unchecked for exclusivity (the checks cost 30M instructions
/// on 16 MiB of GeoJSON points).
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

    /// The next element's entry and index; moves past it.
    private mutating func next(_ type: Any.Type) throws -> (Int, Int) {
        guard decoder.liveGeneration == generation else { throw Unbox.expired(node) }
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [RecordCodingKey(intValue: currentIndex)],
                    debugDescription: "the array has no more elements"
                )
            )
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

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (v, i) = try next(type)
        return try Unbox.bool(view, v, elementNode(i))
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let (v, i) = try next(type)
        return try Unbox.string(view, v, elementNode(i))
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let (v, i) = try next(type)
        return try Unbox.double(view, v, elementNode(i), decoder.session.floatStrings)
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let (v, i) = try next(type)
        return try Unbox.float(view, v, elementNode(i), decoder.session.floatStrings)
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        let (v, i) = try next(type)
        return try Unbox.integer(view, v, elementNode(i), as: type)
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let (v, i) = try next(type)
        return try Unbox.integer(view, v, elementNode(i), as: type)
    }
    mutating func decode(_ type: Int128.Type) throws -> Int128 {
        let (v, i) = try next(type)
        return try Unbox.integer(view, v, elementNode(i), as: type)
    }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 {
        let (v, i) = try next(type)
        return try Unbox.integer(view, v, elementNode(i), as: type)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, index) = try next(type)
        return try decoder.decode(
            type,
            at: value,
            node: DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        )
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, index) = try next(KeyedDecodingContainer<NestedKey>.self)
        let node = DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        guard view.kind(value) == .object else { throw Unbox.mismatch([String: Any].self, view, value, node.made) }
        return decoder.nestedKeyedContainer(
            keyedBy: NestedKey.self,
            object: value,
            depth: decoder.depth + 1,
            node: node
        )
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, index) = try next((any UnkeyedDecodingContainer).self)
        let node = DeferredCodingPathNode(index: index, parent: shared.pendingNode.resolve())
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, node.made) }
        return UnkeyedContainer(decoder.session.arrayPosition(for: decoder, array: value, node: node), array: value)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, index) = try next((any Decoder).self)
        return TapeDecoder(nestedIn: decoder, index: value, node: .index(index, parent: shared.pendingNode.resolve()))
    }
}
