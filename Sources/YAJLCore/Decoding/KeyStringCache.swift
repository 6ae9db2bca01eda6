/// Object keys as `String`s, made once per distinct short key, for the owned ``JSONValue``s built
/// from a tape: a stream's records repeat their keys, and making a `String` (checking and copying
/// its bytes) costs several times more than finding the one made before.
///
/// Direct-mapped: one slot per hash of the key's bytes, the newest key wins, so a document with
/// more distinct keys than slots only makes more strings; keys longer than 16 bytes are made every
/// time. A key's bytes are kept whole in its slot (two words and the length), so a hit is an exact
/// match. One per decoding session: not shared between threads.
final class KeyStringCache {
    private struct Entry {
        var length: Int
        var head: UInt64
        var tail: UInt64
        var string: String
    }

    private static let slotCount = 256
    private let entries: UnsafeMutablePointer<Entry>

    init() {
        entries = .allocate(capacity: Self.slotCount)
        entries.initialize(repeating: Entry(length: -1, head: 0, tail: 0, string: ""), count: Self.slotCount)
    }

    deinit {
        entries.deinitialize(count: Self.slotCount)
        entries.deallocate()
    }

    /// The key whose UTF-8 is `text`, as `String(decoding: text, as: UTF8.self)` makes it.
    func string(_ text: UnsafeRawBufferPointer) -> String {
        let length = text.count
        guard length > 0, length <= 16, let base = text.baseAddress else {
            return String(decoding: text, as: UTF8.self)
        }
        let (head, tail) = Self.pack(base, length)
        let hash =
            (head ^ (tail &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15
        let entry = entries + Int(truncatingIfNeeded: hash >> 56)
        if entry.pointee.length == length, entry.pointee.head == head, entry.pointee.tail == tail {
            return entry.pointee.string
        }
        let string = makeString(text)
        entry.pointee = Entry(length: length, head: head, tail: tail, string: string)
        return string
    }

    /// The 1 to 16 bytes at `base` in two words that, with the length, determine them: overlapping
    /// loads from both ends (which together cover every byte), as in `memcmpEqual`.
    @inline(__always)
    static func pack(_ base: UnsafeRawPointer, _ length: Int) -> (head: UInt64, tail: UInt64) {
        if length >= 8 {
            return (
                base.loadUnaligned(as: UInt64.self),
                base.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
            )
        }
        if length >= 4 {
            let low = UInt64(base.loadUnaligned(as: UInt32.self))
            let high = UInt64(base.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self))
            return (low | high << 32, 0)
        }
        let first = UInt64(base.load(as: UInt8.self))
        let middle = UInt64(base.load(fromByteOffset: length >> 1, as: UInt8.self))
        let last = UInt64(base.load(fromByteOffset: length &- 1, as: UInt8.self))
        return (first | middle << 8 | last << 16, 0)
    }
}
