/// Selected subtrees recorded flat, as simdjson and swift-foundation's JSON decoder do: one array
/// of entries and one byte arena for the text of keys, strings and numbers. Both are reused from
/// record to record, so capturing a record allocates nothing once they have grown.
///
/// A container's entry holds the index just past its last entry (to skip it whole) and its number
/// of values; a key, string or number holds where its bytes are in the arena.
final class Tape {
    enum Kind: UInt8 { case object, array, key, string, number, bool, null }

    struct Entry {
        var kind: Kind
        /// Containers: index just past the container. Key, string, number: arena offset. Bool: 0 or 1.
        var a: Int
        /// Containers: number of values (members or elements). Key, string, number: byte length.
        var b: Int
    }

    // Manually managed storage: appends are a bounds check and a store, with no uniqueness or
    // exclusivity checks (this sits on the per-event path while a record is captured).
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var entryCapacity = 256
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var byteCapacity = 4096
    @exclusivity(unchecked) private var byteCount = 0
    @exclusivity(unchecked) private var open: [Int] = []

    init() {
        entries = .allocate(capacity: entryCapacity)
        bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        entries.deallocate()
        bytes.deallocate()
    }

    /// The bytes the recorded entries and text take.
    var footprint: Int { count * MemoryLayout<Entry>.stride + byteCount }

    /// Whether a container is open (a record is being captured).
    var isCapturing: Bool { !open.isEmpty }

    /// Forgets all records, keeping the storage.
    func removeAll() {
        count = 0
        byteCount = 0
        open.removeAll(keepingCapacity: true)
    }

    /// Drops every entry before `start` (the record being recorded), keeping that record and
    /// rebasing its indices, so the tape holds only what is still needed.
    func discard(before start: Int) {
        guard start > 0 else { return }
        let byteStart = byteOffset(ofEntriesFrom: start)
        let kept = count - start
        entries.update(from: entries + start, count: kept)
        count = kept
        bytes.update(from: bytes + byteStart, count: byteCount - byteStart)
        byteCount -= byteStart
        rebase(entriesBy: start, bytesBy: byteStart)
        for index in open.indices { open[index] -= start }
    }

    /// Moves the record being recorded in `other` (its entries from `start`) into this tape, which
    /// must be empty, rebased to index 0. `other` keeps the complete records before `start`.
    func takeIncompleteRecord(from other: Tape, at start: Int) {
        precondition(count == 0 && byteCount == 0, "the tape must be empty")
        let byteStart = other.byteOffset(ofEntriesFrom: start)
        for index in start..<other.count { append(other.entries[index]) }
        let byteLength = other.byteCount - byteStart
        reserveBytes(byteLength)
        bytes.update(from: other.bytes + byteStart, count: byteLength)
        byteCount = byteLength
        rebase(entriesBy: start, bytesBy: byteStart)
        open = other.open.map { $0 - start }
        other.count = start
        other.byteCount = byteStart
        other.open.removeAll(keepingCapacity: true)
    }

    /// Exchanges the contents (and storage) of two tapes.
    func swapContents(with other: Tape) {
        swap(&entries, &other.entries)
        swap(&entryCapacity, &other.entryCapacity)
        swap(&count, &other.count)
        swap(&bytes, &other.bytes)
        swap(&byteCapacity, &other.byteCapacity)
        swap(&byteCount, &other.byteCount)
        swap(&open, &other.open)
    }

    /// Where the bytes of the entries from `start` begin in the arena.
    private func byteOffset(ofEntriesFrom start: Int) -> Int {
        for index in start..<count where entries[index].kind == .key || entries[index].kind == .string || entries[index].kind == .number {
            return entries[index].a
        }
        return byteCount
    }

    /// Shifts every entry's indices down by `entryShift` and arena offsets by `byteShift`.
    private func rebase(entriesBy entryShift: Int, bytesBy byteShift: Int) {
        for index in 0..<count {
            switch entries[index].kind {
            case .object, .array: if entries[index].a >= 0 { entries[index].a -= entryShift }
            case .key, .string, .number: entries[index].a -= byteShift
            case .bool, .null: break
            }
        }
    }

    /// Makes room for `extra` more bytes in the arena.
    @inline(__always)
    private func reserveBytes(_ extra: Int) {
        guard byteCount + extra > byteCapacity else { return }
        var capacity = byteCapacity * 2
        while capacity < byteCount + extra { capacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = grown
        byteCapacity = capacity
    }

    @inline(__always)
    private func append(_ entry: Entry) {
        if count == entryCapacity {
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: entryCapacity * 2)
            grown.moveInitialize(from: entries, count: count)
            entries.deallocate()
            entries = grown
            entryCapacity *= 2
        }
        (entries + count).initialize(to: entry)
        count += 1
    }

    @inline(__always)
    private func valueStarts() {
        if let parent = open.last { entries[parent].b &+= 1 }
    }

    func startContainer(_ kind: Kind) {
        valueStarts()
        open.append(count)
        append(Entry(kind: kind, a: -1, b: 0))
    }

    func endContainer() {
        let start = open.removeLast()
        entries[start].a = count
    }

    func text(_ kind: Kind, _ text: UnsafeRawBufferPointer) {
        if kind != .key { valueStarts() }
        append(Entry(kind: kind, a: byteCount, b: text.count))
        guard let source = text.baseAddress, text.count > 0 else { return }
        reserveBytes(text.count)
        (bytes + byteCount).update(from: source.assumingMemoryBound(to: UInt8.self), count: text.count)
        byteCount += text.count
    }

    /// A number: its text, then its classified value (a tag byte and 8 bytes, unaligned), so that
    /// the number is classified here, while parsing, and not again by every reader.
    func number(_ text: UnsafeRawBufferPointer) {
        self.text(.number, text)
        reserveBytes(Self.numberValueSize)
        let value = bytes + byteCount
        switch JSONNumberParser.classify(text) {
        case .integer(let integer):
            value.pointee = 0
            UnsafeMutableRawPointer(value + 1).storeBytes(of: integer, as: Int64.self)
        case .double(let double):
            value.pointee = 1
            UnsafeMutableRawPointer(value + 1).storeBytes(of: double, as: Double.self)
        case .unrepresentable:
            value.pointee = 2
        }
        byteCount += Self.numberValueSize
    }

    /// The bytes after a number's text that hold its value.
    static var numberValueSize: Int { 9 }

    func scalar(_ kind: Kind, _ flag: Bool = false) {
        valueStarts()
        append(Entry(kind: kind, a: flag ? 1 : 0, b: 0))
    }

    /// Read access for decoding, valid until the tape is next changed.
    var view: TapeView {
        TapeView(entries: UnsafeBufferPointer(start: entries, count: count), bytes: UnsafeBufferPointer(start: bytes, count: byteCount))
    }
}

/// Read access to a tape for decoding, through unsafe buffers valid while the tape is not changed.
struct TapeView {
    let entries: UnsafeBufferPointer<Tape.Entry>
    let bytes: UnsafeBufferPointer<UInt8>

    /// The index just past the value at `index`.
    @inline(__always)
    func next(_ index: Int) -> Int {
        let entry = entries[index]
        return entry.kind == .object || entry.kind == .array ? entry.a : index + 1
    }

    @inline(__always)
    func text(_ index: Int) -> UnsafeRawBufferPointer {
        let entry = entries[index]
        return UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[entry.a..<(entry.a + entry.b)]))
    }

    func string(_ index: Int) -> String { String(decoding: text(index), as: UTF8.self) }

    func number(_ index: Int) -> JSONNumber {
        JSONNumber(text: String(decoding: text(index), as: UTF8.self), value: numberValue(index))
    }

    /// The value of the number at `index`, classified when it was recorded.
    @inline(__always)
    func numberValue(_ index: Int) -> JSONNumber.Value {
        let entry = entries[index]
        let value = UnsafeRawPointer(bytes.baseAddress! + entry.a + entry.b)
        switch value.load(as: UInt8.self) {
        case 0: return .integer(value.loadUnaligned(fromByteOffset: 1, as: Int64.self))
        case 1: return .double(value.loadUnaligned(fromByteOffset: 1, as: Double.self))
        default: return .unrepresentable
        }
    }

    /// Whether the key at `index` equals `key`'s UTF-8, without allocating.
    @inline(__always)
    func keyEquals(_ index: Int, _ key: String) -> Bool {
        let bytes = self.text(index)
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == bytes.count && (utf8.isEmpty || memcmpEqual(utf8.baseAddress!, bytes.baseAddress!, utf8.count))
        }
    }

    func kindName(_ index: Int) -> String {
        switch entries[index].kind {
        case .object: return "object"
        case .array: return "array"
        case .key, .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }

    /// The value at `index` as an owned ``JSONValue``.
    func value(_ index: Int) -> JSONValue {
        let entry = entries[index]
        switch entry.kind {
        case .null: return .null
        case .bool: return .bool(entry.a != 0)
        case .number: return .number(number(index))
        case .string, .key: return .string(string(index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(entry.b)
            var child = index + 1
            while child < entry.a {
                elements.append(value(child))
                child = next(child)
            }
            return .array(elements)
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(entry.b)
            var child = index + 1
            while child < entry.a {
                members.append(JSONObject.Member(key: string(child), value: value(child + 1)))
                child = next(child + 1)
            }
            return .object(JSONObject(members))
        }
    }
}

