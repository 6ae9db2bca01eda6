import Foundation

/// Reads bytes already in memory (`Data`, `[UInt8]`, a `String`'s UTF-8), in chunks like any
/// other source, so that tests and small inputs go through the same path as files.
public struct MemoryByteSource: JSONByteSource {
    private let storage: [UInt8]
    private var offset = 0

    /// A source over a copy of `bytes`.
    public init(_ bytes: some Sequence<UInt8>) { storage = Array(bytes) }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, storage.count - offset)
        guard n > 0 else { return 0 }
        storage.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }

    /// Whether anything has been read.
    var hasStarted: Bool { offset > 0 }
}

/// Reads a Foundation `InputStream` (a file, `Data`, or a socket stream) with blocking reads; opens
/// it if needed. Run it off the main thread for streams that wait on the network.
public struct InputStreamByteSource: JSONByteSource {
    /// The stream being read.
    public let stream: InputStream

    /// A source over `stream`.
    public init(_ stream: InputStream) { self.stream = stream }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if stream.streamStatus == .notOpen { stream.open() }
        guard buffer.count > 0 else { return 0 }
        if stream.streamStatus == .atEnd || stream.streamStatus == .closed { return 0 }
        let n = stream.read(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
        if n < 0 {
            let message = stream.streamError.map { String(describing: $0) } ?? "stream error"
            throw JSONSourceError(source: "input stream", message: message)
        }
        return n
    }
}

extension JSONByteSource where Self == FileByteSource {
    /// The file at `path`, read in chunks.
    public static func file(_ path: String) -> FileByteSource { FileByteSource(path: path) }
    /// The file at a `file:` URL, read in chunks. Throws if `url` is not a file URL.
    public static func file(_ url: URL) throws -> FileByteSource { try FileByteSource(url: url) }
}

extension JSONByteSource where Self == FileHandleByteSource {
    /// An open file handle: standard input, a pipe, a file or a socket. It is not closed.
    public static func fileHandle(_ handle: FileHandle) -> FileHandleByteSource { FileHandleByteSource(handle) }
    /// Standard input.
    public static var standardInput: FileHandleByteSource { FileHandleByteSource(.standardInput, name: "stdin") }
}

extension JSONByteSource where Self == InputStreamByteSource {
    /// A Foundation `InputStream`, opened if it is not yet.
    public static func inputStream(_ stream: InputStream) -> InputStreamByteSource { InputStreamByteSource(stream) }
}

extension JSONByteSource where Self == MemoryByteSource {
    /// Bytes in memory: `Data`, `[UInt8]`, any sequence of `UInt8`.
    public static func bytes(_ bytes: some Sequence<UInt8>) -> MemoryByteSource { MemoryByteSource(bytes) }
    /// A string's UTF-8.
    public static func text(_ text: String) -> MemoryByteSource { MemoryByteSource(text.utf8) }
}
