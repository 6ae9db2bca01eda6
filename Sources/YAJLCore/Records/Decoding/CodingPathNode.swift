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
