// Source/: byte sources (files, descriptors, memory, async sequences), each filling a caller's
// buffer; calls only Support/Syscalls.

/// Where JSON bytes come from: a file, a file handle or pipe, an `InputStream`, memory.
///
/// A byte source hands out bytes in pieces of the size the feeder asks for; it never has to hold
/// the document. Pass one to ``JSONParser/parse(from:)-(JSONByteSource)``; the built-in sources are reached with
/// static members, so call sites read naturally:
///
/// ```swift
/// try parser.parse(from: .file("/data/export.json"))
/// try parser.parse(from: .fileHandle(.standardInput))
/// try parser.parse(from: .inputStream(stream))
/// try parser.parse(from: .bytes(data))
/// ```
///
/// Conform your own type to feed from anything else (a decompressor, a socket).
/// For `async` producers see ``AsyncJSONByteSource``.
public protocol JSONByteSource {
    /// Reads at most `buffer.count` bytes into `buffer` and returns how many it read. Blocks until
    /// at least one byte is available; returns 0 only at the end of the input.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A JSON byte source read with `await`: an `AsyncSequence` of chunks or of bytes, a network body.
///
/// Pass one to ``JSONParser/parse(from:)-(AsyncJSONByteSource)``. Parsing stays synchronous inside:
/// the parser suspends only to wait for bytes, never per event.
///
/// ```swift
/// try await parser.parse(from: .chunks(asyncSequenceOfData))
/// try await parser.parse(from: .bytes(url.resourceBytes))   // an AsyncSequence of UInt8
/// ```
public protocol AsyncJSONByteSource {
    /// Reads at most `buffer.count` bytes into `buffer` and returns how many it read. Suspends until
    /// at least one byte is available; returns 0 only at the end of the input.
    nonisolated(nonsending) mutating func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int
}

extension JSONByteSource {
    /// Reads until `buffer` is full or the input ends; returns how many bytes it read.
    mutating func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}

extension AsyncJSONByteSource {
    /// Reads until `buffer` is full or the input ends; returns how many bytes it read.
    nonisolated(nonsending) mutating func readFully(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try await read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
