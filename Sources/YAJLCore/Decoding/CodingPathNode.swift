/// The coding path as a linked list, extended per container without copying and made into an
/// array only when someone asks, usually for an error message.
///
/// A class, so that a container holds its node with one reference (see the ownership notes of
/// ``TapeDecoder``).
final class CodingPathNode: Sendable {
    private enum Step {
        case root
        case key(String)
        case index(Int)
    }

    private let step: Step
    private let parent: CodingPathNode?

    private init(_ step: Step, parent: CodingPathNode?) {
        self.step = step
        self.parent = parent
    }

    /// The empty path.
    static let root = CodingPathNode(.root, parent: nil)

    /// `parent`'s path followed by an object key.
    static func key(_ key: String, parent: CodingPathNode) -> CodingPathNode {
        CodingPathNode(.key(key), parent: parent)
    }

    /// `parent`'s path followed by an array index.
    static func index(_ index: Int, parent: CodingPathNode) -> CodingPathNode {
        CodingPathNode(.index(index), parent: parent)
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: CodingPathNode? = self
        while let current = node {
            switch current.step {
            case .root: break
            case .key(let key): keys.append(RecordCodingKey(stringValue: key))
            case .index(let index): keys.append(RecordCodingKey(intValue: index))
            }
            node = current.parent
        }
        return keys.reversed()
    }
}

/// A coding-path node that may not be made yet: `base` itself, or `base` followed by the key `key`
/// or the array index `index`, made when first asked for (an error, a coding path, a value two
/// levels down). A nested struct decoded without error (a record's `address`, an element of an
/// array of structs) then costs no node.
struct DeferredCodingPathNode {
    private var base: CodingPathNode
    private var key: String?
    /// An array index after `base` (when `key` is nil), or -1.
    private var index: Int

    init(_ node: CodingPathNode) {
        base = node
        key = nil
        index = -1
    }

    init(key: String, parent: CodingPathNode) {
        base = parent
        self.key = key
        index = -1
    }

    init(index: Int, parent: CodingPathNode) {
        base = parent
        key = nil
        self.index = index
    }

    /// Whether `other` stands for the same path with the same parts (the same base node, the same
    /// key or index): then storing it in place of this one changes nothing (and would cost a
    /// retain and a release of each part).
    @inline(__always)
    func isSame(as other: borrowing DeferredCodingPathNode) -> Bool {
        base === other.base && key == other.key && index == other.index
    }

    /// The node, made now (not kept).
    var made: CodingPathNode {
        if let key { return .key(key, parent: base) }
        return index >= 0 ? .index(index, parent: base) : base
    }

    /// The node, made on first use and kept.
    mutating func resolve() -> CodingPathNode {
        if key != nil || index >= 0 {
            base = made
            key = nil
            index = -1
        }
        return base
    }
}

/// A plain coding key, for paths, `superDecoder` and custom key strategies.
struct RecordCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let superKey = RecordCodingKey(stringValue: "super")
}
