/// Reads an `AsyncSequence` whose elements are chunks of bytes (`Data`, `[UInt8]`, slices…).
///
/// A chunk larger than the feeder's read is handed out in pieces; nothing beyond the current chunk
/// is held.
public struct AsyncChunkByteSource<Base: AsyncSequence>: AsyncJSONByteSource where Base.Element: Collection<UInt8> {
    private var iterator: Base.AsyncIterator
    private var pending: [UInt8] = []
    private var pendingOffset = 0

    /// A source over `chunks`.
    public init(_ chunks: Base) { iterator = chunks.makeAsyncIterator() }

    nonisolated(nonsending) public mutating func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        guard buffer.count > 0 else { return 0 }
        while pendingOffset == pending.count {
            guard let chunk = try await iterator.next(isolation: #isolation) else { return 0 }
            pending = Array(chunk)
            pendingOffset = 0
        }
        let n = min(buffer.count, pending.count - pendingOffset)
        pending.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + pendingOffset, byteCount: n)
        }
        pendingOffset += n
        return n
    }
}

/// Reads an `AsyncSequence` of single bytes, such as `FileHandle.AsyncBytes` or `URL.AsyncBytes`,
/// gathering them into the feeder's buffer.
///
/// Such sequences buffer internally, so a read costs one `next()` per byte but rarely a real
/// suspension. A read returns once the buffer is full or the input ends.
public struct AsyncByteSequenceSource<Base: AsyncSequence>: AsyncJSONByteSource where Base.Element == UInt8 {
    private var iterator: Base.AsyncIterator

    /// A source over `bytes`.
    public init(_ bytes: Base) { iterator = bytes.makeAsyncIterator() }

    nonisolated(nonsending) public mutating func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        var n = 0
        while n < buffer.count, let byte = try await iterator.next(isolation: #isolation) {
            buffer[n] = byte
            n += 1
        }
        return n
    }
}

/// Adapts a blocking ``JSONByteSource`` for the async entry points. Its reads block the calling
/// thread; prefer a truly asynchronous source for sockets and pipes in concurrent code.
public struct BlockingAsyncByteSource<Base: JSONByteSource>: AsyncJSONByteSource {
    private var base: Base

    /// Wraps `base`.
    public init(_ base: Base) { self.base = base }

    nonisolated(nonsending) public mutating func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        try base.read(into: buffer)
    }
}

extension AsyncJSONByteSource {
    /// An `AsyncSequence` of byte chunks (`Data`, `[UInt8]`, …).
    public static func chunks<Base>(_ chunks: Base) -> AsyncChunkByteSource<Base>
    where Self == AsyncChunkByteSource<Base> {
        AsyncChunkByteSource(chunks)
    }

    /// An `AsyncSequence` of bytes, e.g. `FileHandle.bytes` or `URL.resourceBytes`.
    public static func bytes<Base>(_ bytes: Base) -> AsyncByteSequenceSource<Base>
    where Self == AsyncByteSequenceSource<Base> {
        AsyncByteSequenceSource(bytes)
    }

    /// A blocking source (a file, a pipe), read from async code.
    public static func blocking<Base>(_ base: Base) -> BlockingAsyncByteSource<Base>
    where Self == BlockingAsyncByteSource<Base> {
        BlockingAsyncByteSource(base)
    }
}
