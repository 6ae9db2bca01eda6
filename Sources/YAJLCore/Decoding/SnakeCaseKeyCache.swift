/// `.convertFromSnakeCase` without a `String` per key: each distinct JSON key is converted once
/// (`JSONDecoder`'s rule, ``KeyCaseConversion/camelCase(fromSnakeCase:)``) and kept as bytes, found
/// again by a hash of the key's bytes; a key without `_` converts to itself and is compared as is.
///
/// At most ``maxEntries`` keys are kept, so a document of endless distinct keys cannot grow it
/// without bound (past that, keys are converted on each use).
final class SnakeCaseKeyCache {
    private struct Entry {
        let hash: UInt64
        let key: [UInt8]
        let converted: [UInt8]
    }

    static let maxEntries = 4096
    /// Open addressing, twice the largest number of entries, so a probe always ends at a gap.
    /// Empty until the first key with `_` is converted: every decoding session has a cache, and
    /// the table (192 KiB, written through when it is made) would otherwise be resident in
    /// sessions that use no key strategy at all.
    private var slots: [Entry?] = []
    private var count = 0

    /// Whether the table has been made (tests).
    var hasTable: Bool { !slots.isEmpty }

    /// Whether the JSON key `key` (UTF-8) converts to `wanted`.
    func matches(_ key: UnsafeRawBufferPointer, _ wanted: String) -> Bool {
        var wanted = wanted
        return wanted.withUTF8 { wantedBytes in
            if !key.contains(UInt8(ascii: "_")) { return key.elementsEqual(wantedBytes) }
            return withConverted(key) { $0.elementsEqual(wantedBytes) }
        }
    }

    /// Calls `body` with the camelCase form of `key`.
    private func withConverted<R>(_ key: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        if slots.isEmpty { slots = [Entry?](repeating: nil, count: 2 * Self.maxEntries) }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[slot] {
            if entry.hash == hash && key.elementsEqual(entry.key) {
                return entry.converted.withUnsafeBufferPointer(body)
            }
            slot = (slot + 1) & mask
        }
        let converted = Array(KeyCaseConversion.camelCase(fromSnakeCase: String(decoding: key, as: UTF8.self)).utf8)
        if count < Self.maxEntries {
            slots[slot] = Entry(hash: hash, key: Array(key), converted: converted)
            count += 1
        }
        return converted.withUnsafeBufferPointer(body)
    }
}
