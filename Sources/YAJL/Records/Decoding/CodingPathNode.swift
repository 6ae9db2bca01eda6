/// The coding path as a linked list, extended per container without copying and made into an
/// array only when someone asks, usually for an error message.
indirect enum CodingPathNode: Sendable {
    case root
    case key(String, parent: CodingPathNode)
    case index(Int, parent: CodingPathNode)

    var codingPath: [any CodingKey] {
        switch self {
        case .root: return []
        case .key(let key, let parent): return parent.codingPath + [RecordCodingKey(stringValue: key)]
        case .index(let index, let parent): return parent.codingPath + [RecordCodingKey(intValue: index)]
        }
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
