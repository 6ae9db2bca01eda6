#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a ``JSONWriter``'s bytes go: a file descriptor (standard output), a file, a `FileHandle`,
/// memory, a closure.
///
/// The writer hands over its buffer each time it fills (64 KiB by default), so writing a document of
/// any size takes constant memory (except with ``MemoryOutputSink``, which keeps everything).
public protocol JSONOutputSink {
    /// Takes the next bytes of output.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Writes to a file descriptor (standard output, a pipe, a file).
///
/// On standard output it first flushes what Swift's `print` has buffered, so that lines printed
/// before a write come before its bytes. What the writer still buffers (up to
/// ``JSONWriter/Options/bufferSize``) goes out at ``JSONWriter/flush()`` or `finish()`: flush
/// before you `print` between writes.
///
/// A failed write throws a ``JSONIOError`` naming the output and the OS error
/// (`cannot write to standard output: No space left on device`). A descriptor given by the caller
/// stays open; one opened by ``JSONOutputSink/file(_:)`` is closed when the last copy of the sink
/// is released.
public struct FileDescriptorOutputSink: JSONOutputSink {
    /// The descriptor written to.
    public let fileDescriptor: Int32
    private let name: String
    private let owner: FileDescriptorCloser?

    /// A sink over `fileDescriptor`, which stays open; `name` appears in errors (default:
    /// `standard output`, or `fd N`).
    public init(fileDescriptor: Int32, name: String? = nil) {
        self.fileDescriptor = fileDescriptor
        self.name = name ?? Syscalls.name(ofDescriptor: fileDescriptor)
        self.owner = nil
    }

    /// A sink over the file at `path`, created or truncated, and closed with the last copy.
    init(creating path: String) throws {
        // open(2), not FileManager.createFile: that replaces the path atomically, even a device.
        let closer = FileDescriptorCloser(try Syscalls.createForWriting(path))
        self.fileDescriptor = closer.fd
        self.name = path
        self.owner = closer
    }

    /// Writes all of `bytes`, retrying short and interrupted writes. Writing to standard output
    /// (descriptor 1) first flushes what `print` has buffered, so that the two keep their order.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        if fileDescriptor == 1 { Syscalls.flushStandardOutputStream() }
        try Syscalls.writeAll(fileDescriptor, bytes, target: name)
    }
}

/// Closes a descriptor that a sink opened, once, when the last copy of the sink goes.
private final class FileDescriptorCloser: Sendable {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }
    deinit { Syscalls.close(fd) }
}

/// Keeps the output in memory; read it from ``data``.
public final class MemoryOutputSink: JSONOutputSink {
    /// Everything written so far.
    public private(set) var data = Data()
    /// An empty sink.
    public init() {}
    public func write(_ bytes: UnsafeRawBufferPointer) throws { data.append(contentsOf: bytes) }
    /// The output as a `String`.
    public var string: String { String(decoding: data, as: UTF8.self) }
}

/// Hands each buffer of output to a closure.
public struct ClosureOutputSink: JSONOutputSink {
    let body: (UnsafeRawBufferPointer) throws -> Void
    /// A sink that calls `body` with each buffer of output (valid only during the call); what it throws ends the writing.
    public init(_ body: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.body = body }
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws { try body(bytes) }
}

extension JSONOutputSink where Self == FileDescriptorOutputSink {
    /// Standard output.
    public static var standardOutput: FileDescriptorOutputSink { FileDescriptorOutputSink(fileDescriptor: 1) }
    /// An open file descriptor (not closed by the writer).
    public static func fileDescriptor(_ fd: Int32) -> FileDescriptorOutputSink {
        FileDescriptorOutputSink(fileDescriptor: fd)
    }
    /// A file, created or truncated; closed when the writer (and every copy of the sink) is done.
    public static func file(_ path: String) throws -> FileDescriptorOutputSink {
        try FileDescriptorOutputSink(creating: path)
    }
}

extension JSONOutputSink where Self == ClosureOutputSink {
    /// A closure that receives each buffer of output.
    public static func closure(_ body: @escaping (UnsafeRawBufferPointer) throws -> Void) -> ClosureOutputSink {
        ClosureOutputSink(body)
    }
}
