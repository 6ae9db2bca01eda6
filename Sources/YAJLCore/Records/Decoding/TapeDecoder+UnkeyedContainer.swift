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

struct UnkeyedContainer: UnkeyedDecodingContainer {
    /// Retained, as in ``KeyedContainer``.
    let decoder: TapeDecoder
    /// The array's coding-path node, made when first asked for: a struct decoded from an array
    /// (a GeoJSON position `[lon, lat]`) then costs no node.
    private var pendingNode: DeferredCodingPathNode
    /// The decoder generation the container belongs to.
    private let generation: Int
    private let end: Int
    private var position: Int
    private(set) var currentIndex = 0
    let count: Int?

    init(decoder: TapeDecoder, array: Int, node: DeferredCodingPathNode) {
        self.decoder = decoder
        pendingNode = node
        generation = decoder.liveGeneration
        end = decoder.view.end(array)
        count = decoder.view.count(array)
        position = decoder.view.firstChild(array)
    }

    /// The array's coding-path node (made now if it was not: not kept, outside mutating calls).
    private var node: CodingPathNode { pendingNode.made }
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
            node: DeferredCodingPathNode(index: index, parent: pendingNode.resolve())
        )
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, index) = try next(KeyedDecodingContainer<NestedKey>.self)
        let node = DeferredCodingPathNode(index: index, parent: pendingNode.resolve())
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
        let node = DeferredCodingPathNode(index: index, parent: pendingNode.resolve())
        guard view.kind(value) == .array else { throw Unbox.mismatch([Any].self, view, value, node.made) }
        return UnkeyedContainer(decoder: decoder, array: value, node: node)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, index) = try next((any Decoder).self)
        return TapeDecoder(nestedIn: decoder, index: value, node: .index(index, parent: pendingNode.resolve()))
    }
}
