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

/// A coding-path node that may not be made yet: `base` itself, or `base` followed by the key
/// `key`, made when first asked for (an error, a coding path, a value two levels down). A nested
/// struct decoded without error (a record's `address`) then costs no node.
struct DeferredCodingPathNode {
    private var base: CodingPathNode
    private var key: String?

    init(_ node: CodingPathNode) {
        base = node
        key = nil
    }

    init(key: String, parent: CodingPathNode) {
        base = parent
        self.key = key
    }

    /// Whether `other` stands for the same path with the same parts (the same base node, the same
    /// key): then storing it in place of this one changes nothing (and would cost a retain and a
    /// release of each part).
    @inline(__always)
    func isSame(as other: borrowing DeferredCodingPathNode) -> Bool {
        base === other.base && key == other.key
    }

    /// The node, made now (not kept).
    var made: CodingPathNode { key.map { .key($0, parent: base) } ?? base }

    /// The node, made on first use and kept.
    mutating func resolve() -> CodingPathNode {
        if let key {
            base = .key(key, parent: base)
            self.key = nil
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
