import YAJL

/// Hashes every event (kind, bytes, depth), so two parses can be compared without keeping events.
package final class EventDigest: JSONEventHandler {
    package private(set) var events = 0
    package private(set) var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    private func mix(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer? = nil, _ depth: Int) {
        events += 1
        digest = (digest ^ UInt64(tag)) &* 0x100_0000_01b3
        digest = (digest ^ UInt64(depth)) &* 0x100_0000_01b3
        for byte in bytes ?? UnsafeRawBufferPointer(start: nil, count: 0) {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
    }

    package func startObject(context: JSONEventContext) throws { mix(1, nil, context.depth) }
    package func endObject(context: JSONEventContext) throws { mix(2, nil, context.depth) }
    package func startArray(context: JSONEventContext) throws { mix(3, nil, context.depth) }
    package func endArray(context: JSONEventContext) throws { mix(4, nil, context.depth) }
    package func key(_ key: JSONStringView, context: JSONEventContext) throws { mix(5, key.bytes, context.depth) }
    package func string(_ value: JSONStringView, context: JSONEventContext) throws {
        mix(6, value.bytes, context.depth)
    }
    package func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        mix(7, value.bytes, context.depth)
    }
    package func bool(_ value: Bool, context: JSONEventContext) throws { mix(value ? 8 : 9, nil, context.depth) }
    package func null(context: JSONEventContext) throws { mix(10, nil, context.depth) }
}
