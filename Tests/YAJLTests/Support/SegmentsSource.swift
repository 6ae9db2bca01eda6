import YAJL

/// A byte source of text segments, each repeated a number of times, produced on the fly: for
/// documents too large to build in memory (64 nested objects with 8 MB keys).
struct SegmentsSource: JSONByteSource {
    private let segments: [(bytes: [UInt8], count: Int)]
    private var segment = 0
    private var repetition = 0
    private var offset = 0

    init(_ segments: [(String, Int)]) {
        self.segments = segments.map { (Array($0.0.utf8), $0.1) }
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var n = 0
        while n < buffer.count, segment < segments.count {
            let bytes = segments[segment].bytes
            if repetition >= segments[segment].count || bytes.isEmpty {
                segment += 1
                repetition = 0
                offset = 0
                continue
            }
            let run = min(bytes.count - offset, buffer.count - n)
            bytes.withUnsafeBytes {
                buffer.baseAddress!.advanced(by: n).copyMemory(from: $0.baseAddress! + offset, byteCount: run)
            }
            n += run
            offset += run
            if offset == bytes.count {
                offset = 0
                repetition += 1
            }
        }
        return n
    }
}
