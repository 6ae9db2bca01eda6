#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a file by path (or file URL) with plain `read(2)` calls in chunks.
///
/// The file is opened at the first read, not when the source is made, and closed at the end of the
/// input or when the source is released, whichever comes first.
public struct FileByteSource: JSONByteSource, InterruptibleByteSource {
    /// The path being read.
    public let path: String
    private var descriptor: FileDescriptorOwner?
    package var interruption: ReadInterruption?

    /// A source over the file at `path`.
    public init(path: String) { self.path = path }

    /// A source over a `file:` URL. Throws if the URL is not a file URL.
    public init(url: URL) throws {
        guard url.isFileURL else {
            throw JSONSourceError(source: url.absoluteString, message: "not a file URL")
        }
        self.path = url.path
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if descriptor == nil { descriptor = try FileDescriptorOwner(opening: path) }
        guard let owner = descriptor, owner.isOpen else { return 0 }
        if let interruption, try !owner.waitUntilReadable(interruption, source: path) { throw CancellationError() }
        let n = try owner.read(into: buffer, source: path)
        if n == 0 { owner.close() }
        return n
    }

    /// Whether the file has been opened (by this source or a copy read before it was made).
    var hasStarted: Bool { descriptor != nil }
}

/// Reads an open file descriptor: standard input, a pipe, a file or a socket. The descriptor
/// stays open; it belongs to the caller.
public struct FileDescriptorByteSource: JSONByteSource, InterruptibleByteSource {
    /// The descriptor being read.
    public let fileDescriptor: Int32
    private let name: String
    package var interruption: ReadInterruption?

    /// A source over `fileDescriptor`; `name` appears in I/O errors (default: `fd N`, or `stdin`).
    public init(fileDescriptor: Int32, name: String? = nil) {
        self.fileDescriptor = fileDescriptor
        self.name = name ?? Syscalls.name(ofDescriptor: fileDescriptor)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let interruption,
            try !Syscalls.waitUntilReadable(fileDescriptor, interruption: interruption, target: name)
        {
            throw CancellationError()
        }
        return try Syscalls.read(fileDescriptor, into: buffer, target: name)
    }
}

/// Owns a file descriptor opened for reading; closes it once.
final class FileDescriptorOwner {
    private var fd: Int32

    init(opening path: String) throws {
        fd = try Syscalls.openForReading(path)
    }

    var isOpen: Bool { fd >= 0 }

    func read(into buffer: UnsafeMutableRawBufferPointer, source: String) throws -> Int {
        try Syscalls.read(fd, into: buffer, target: source)
    }

    func waitUntilReadable(_ interruption: ReadInterruption, source: String) throws -> Bool {
        try Syscalls.waitUntilReadable(fd, interruption: interruption, target: source)
    }

    func close() {
        if fd >= 0 {
            Syscalls.close(fd)
            fd = -1
        }
    }

    deinit { close() }
}
