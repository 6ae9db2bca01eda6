/// The tokens of one parsed chunk, kept compactly for ``JSONTokenReader``: a kind, a source
/// position, and text in one byte arena (no `String` until a token is read).
final class TokenLog: JSONEventHandler {
    enum Kind: UInt8 {
        case startObject, endObject, startArray, endArray, key, string, number, `true`, `false`, null

        /// Whether the token starts a value (a scalar, or an object or array).
        var startsValue: Bool {
            switch self {
            case .endObject, .endArray, .key: return false
            default: return true
            }
        }
    }

    struct Entry {
        let kind: Kind
        let textStart: Int
        let textLength: Int
        let position: SourcePosition
    }

    private(set) var entries: [Entry] = []
    private var arena: [UInt8] = []

    func removeAll() {
        entries.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    private func add(_ kind: Kind, _ position: SourcePosition, text: UnsafeRawBufferPointer? = nil) {
        let start = arena.count
        if let text { arena.append(contentsOf: text) }
        entries.append(Entry(kind: kind, textStart: start, textLength: arena.count - start, position: position))
    }

    func text(_ entry: Entry) -> String {
        arena.withUnsafeBufferPointer {
            String(decoding: $0[entry.textStart..<(entry.textStart + entry.textLength)], as: UTF8.self)
        }
    }

    /// The token as an owned event.
    func event(_ entry: Entry) -> JSONEvent {
        switch entry.kind {
        case .startObject: return .startObject
        case .endObject: return .endObject
        case .startArray: return .startArray
        case .endArray: return .endArray
        case .key: return .key(text(entry))
        case .string: return .string(text(entry))
        case .number:
            let text = text(entry)
            return .number(JSONNumber(text) ?? JSONNumber(text: text, value: .unrepresentable))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    /// Appends the token to `tape` (as the capture of a record does).
    func record(_ entry: Entry, on tape: Tape) {
        arena.withUnsafeBytes { bytes in
            let text = UnsafeRawBufferPointer(rebasing: bytes[entry.textStart..<(entry.textStart + entry.textLength)])
            switch entry.kind {
            case .startObject: tape.startContainer(.object, at: entry.position)
            case .startArray: tape.startContainer(.array, at: entry.position)
            case .endObject, .endArray: tape.endContainer()
            case .key: tape.text(.key, text)
            case .string: tape.text(.string, text, at: entry.position)
            case .number: tape.number(text, at: entry.position)
            case .true: tape.scalar(.bool, true, at: entry.position)
            case .false: tape.scalar(.bool, false, at: entry.position)
            case .null: tape.scalar(.null, at: entry.position)
            }
        }
    }

    // MARK: Events

    func startObject(context: JSONEventContext) throws { add(.startObject, context.start(ofTokenLength: 1)) }
    func endObject(context: JSONEventContext) throws { add(.endObject, context.start(ofTokenLength: 1)) }
    func startArray(context: JSONEventContext) throws { add(.startArray, context.start(ofTokenLength: 1)) }
    func endArray(context: JSONEventContext) throws { add(.endArray, context.start(ofTokenLength: 1)) }
    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        add(.key, context.start(ofString: key), text: key.bytes)
    }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        add(.string, context.start(ofString: value), text: value.bytes)
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        add(.number, context.start(ofTokenLength: value.bytes.count), text: value.bytes)
    }
    func bool(_ value: Bool, context: JSONEventContext) throws {
        add(value ? .true : .false, context.start(ofTokenLength: value ? 4 : 5))
    }
    func null(context: JSONEventContext) throws { add(.null, context.start(ofTokenLength: 4)) }
}
