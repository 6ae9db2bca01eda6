import Foundation
import YAJLCore

/// Reads an open `FileHandle`: a file, standard input, a pipe or a socket. The handle stays open;
/// it belongs to the caller.
public struct FileHandleByteSource: JSONByteSource, InterruptibleByteSource {
    /// The handle being read.
    public let handle: FileHandle
    /// The reads themselves: those of a source over the handle's descriptor.
    private var descriptor: FileDescriptorByteSource

    package var interruption: ReadInterruption? {
        get { descriptor.interruption }
        set { descriptor.interruption = newValue }
    }

    /// A source over `handle`; `name` appears in I/O errors (default: `fd N`, or `stdin`).
    public init(_ handle: FileHandle, name: String? = nil) {
        self.handle = handle
        let fd = handle.fileDescriptor
        descriptor = FileDescriptorByteSource(fileDescriptor: fd, name: name ?? (fd == 0 ? "stdin" : "fd \(fd)"))
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try descriptor.read(into: buffer)
    }
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

extension JSONByteSource where Self == FileHandleByteSource {
    /// An open file handle: standard input, a pipe, a file or a socket. It is not closed.
    public static func fileHandle(_ handle: FileHandle) -> FileHandleByteSource { FileHandleByteSource(handle) }
}

extension JSONByteSource where Self == InputStreamByteSource {
    /// A Foundation `InputStream`, opened if it is not yet.
    public static func inputStream(_ stream: InputStream) -> InputStreamByteSource { InputStreamByteSource(stream) }
}
