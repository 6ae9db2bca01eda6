@testable import YAJL

/// A byte source that produces a document on the fly, so that hostile or huge inputs are streamed
/// and never exist in memory or on disk in full: `prefix`, then `fill` repeated `count` times (or
/// forever), then `suffix`.
struct RepeatingSource: JSONByteSource {
    let prefix: [UInt8]
    let fill: [UInt8]
    let count: Int?
    let suffix: [UInt8]
    private var position = 0
    private(set) var delivered = 0

    init(prefix: String, fill: String, count: Int?, suffix: String) {
        self.prefix = Array(prefix.utf8)
        self.fill = Array(fill.utf8)
        self.count = count
        self.suffix = Array(suffix.utf8)
    }

    var totalLength: Int? { count.map { prefix.count + fill.count * $0 + suffix.count } }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var n = 0
        while n < buffer.count {
            let byte: UInt8
            if position < prefix.count {
                byte = prefix[position]
            } else if count == nil || position < prefix.count + fill.count * count! {
                byte = fill[(position - prefix.count) % fill.count]
            } else if position < totalLength! {
                byte = suffix[position - prefix.count - fill.count * count!]
            } else {
                break
            }
            buffer[n] = byte
            n += 1
            position += 1
        }
        delivered += n
        return n
    }
}

/// Shares a source's delivered-byte count with the test after the parser consumed the source.
final class DeliveryProbe<Base: JSONByteSource>: JSONByteSource {
    var base: Base
    private(set) var delivered = 0
    init(_ base: Base) { self.base = base }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try base.read(into: buffer)
        delivered += n
        return n
    }
}
