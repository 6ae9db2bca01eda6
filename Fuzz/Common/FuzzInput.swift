// Shared by the fuzz targets (each is built with the library's sources into one module; see
// scripts/fuzz.sh).

/// Reads a fuzzer's bytes as settings, then a payload: the fuzzer chooses options and chunking
/// the same way it chooses the document.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next four bytes as a number.
    mutating func uint32() -> UInt32 {
        (0..<4).reduce(0) { value, _ in value << 8 | UInt32(byte()) }
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

/// Chunk sizes (1 to 64 bytes, from a small PRNG seeded by the fuzzer) that add up to `total`.
func chunkSizes(seed: UInt32, total: Int) -> [Int] {
    var state = seed | 1
    var sizes: [Int] = []
    var left = total
    while left > 0 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        let size = min(left, Int(state % 64) + 1)
        sizes.append(size)
        left -= size
    }
    return sizes
}

/// Ends the process with a message libFuzzer reports as a crash, with the input saved.
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz check failed: \(message)")
}
