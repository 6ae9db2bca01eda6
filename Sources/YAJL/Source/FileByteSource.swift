#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads a file by path (or file URL) with plain `read(2)` calls in chunks.
///
/// The file is opened at the first read, not when the source is made, and closed at the end of the
/// input or when the source is released, whichever comes first.
public struct FileByteSource: JSONByteSource {
    /// The path being read.
    public let path: String
    private var descriptor: FileDescriptorOwner?

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
        let n = try owner.read(into: buffer, source: path)
        if n == 0 { owner.close() }
        return n
    }
}

/// Reads an open `FileHandle`: a file, standard input, a pipe or a socket. The handle stays open;
/// it belongs to the caller.
public struct FileHandleByteSource: JSONByteSource {
    /// The handle being read.
    public let handle: FileHandle
    private let name: String

    /// A source over `handle`; `name` appears in I/O errors (default: `fd N`, or `stdin`).
    public init(_ handle: FileHandle, name: String? = nil) {
        self.handle = handle
        let fd = handle.fileDescriptor
        self.name = name ?? (fd == 0 ? "stdin" : "fd \(fd)")
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try posixRead(handle.fileDescriptor, into: buffer, source: name)
    }
}

/// Owns a file descriptor opened for reading; closes it once.
final class FileDescriptorOwner {
    private var fd: Int32

    init(opening path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw JSONSourceError(source: path, message: String(cString: strerror(code)), errno: code)
        }
    }

    var isOpen: Bool { fd >= 0 }

    func read(into buffer: UnsafeMutableRawBufferPointer, source: String) throws -> Int {
        try posixRead(fd, into: buffer, source: source)
    }

    func close() {
        if fd >= 0 {
            _ = systemClose(fd)
            fd = -1
        }
    }

    deinit { close() }
}

/// `read(2)`, retried on `EINTR`, with errors as `JSONSourceError`.
func posixRead(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, source: String) throws -> Int {
    guard buffer.count > 0 else { return 0 }
    while true {
        let n = systemRead(fd, buffer.baseAddress, buffer.count)
        if n >= 0 { return n }
        let code = errno
        if code == EINTR { continue }
        throw JSONSourceError(source: source, message: String(cString: strerror(code)), errno: code)
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
private let systemClose = Glibc.close
#elseif canImport(Musl)
private let systemRead = Musl.read
private let systemClose = Musl.close
#else
private let systemRead = Darwin.read
private let systemClose = Darwin.close
#endif
