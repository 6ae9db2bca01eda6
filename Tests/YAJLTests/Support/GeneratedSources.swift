import YAJL

/// A byte source that produces a document on the fly, so that hostile or huge inputs are streamed
/// and never exist in memory or on disk in full: `prefix`, then `fill` repeated `count` times (or
/// forever), then `suffix`.
struct RepeatingSource: JSONByteSource {
    let prefix: [UInt8]
    let fill: [UInt8]
    let count: Int?
    let suffix: [UInt8]
    /// `fill` repeated to a few KiB, so that reads copy long runs.
    private let periodicFill: [UInt8]
    private var position = 0
    private(set) var delivered = 0

    init(prefix: String, fill: String, count: Int?, suffix: String) {
        self.prefix = Array(prefix.utf8)
        self.fill = Array(fill.utf8)
        periodicFill = Array(repeating: self.fill, count: max(1, 4096 / max(1, self.fill.count))).flatMap { $0 }
        self.count = count
        self.suffix = Array(suffix.utf8)
    }

    var totalLength: Int? { count.map { prefix.count + fill.count * $0 + suffix.count } }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        // Whole runs of the prefix, the fill pattern and the suffix are copied at a time, so that
        // gigabytes stream fast even in a debug build.
        var n = 0
        let fillEnd = count.map { prefix.count + fill.count * $0 }
        while n < buffer.count {
            let run: ArraySlice<UInt8>
            if position < prefix.count {
                run = prefix[position...]
            } else if fillEnd == nil || position < fillEnd! {
                let phase = (position - prefix.count) % fill.count
                var available = periodicFill.count - phase
                if let fillEnd { available = min(available, fillEnd - position) }
                run = periodicFill[phase..<(phase + available)]
            } else if position < totalLength! {
                run = suffix[(position - fillEnd!)...]
            } else {
                break
            }
            let length = min(run.count, buffer.count - n)
            run.prefix(length).withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[n..<(n + length)]).copyMemory(from: bytes)
            }
            n += length
            position += length
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
