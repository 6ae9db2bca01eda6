import Foundation

/// Where a ``JSONWriter``'s bytes go: a file handle (standard output), a file, memory, a closure.
///
/// The writer hands over its buffer each time it fills (64 KiB by default), so writing a document of
/// any size takes constant memory (except with ``MemoryOutputSink``, which keeps everything).
public protocol JSONOutputSink {
    /// Takes the next bytes of output.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Writes to an open `FileHandle` (standard output, a pipe, a file). The handle stays open.
///
/// A failed write throws a ``JSONIOError`` naming the output and the OS error
/// (`cannot write to standard output: No space left on device`).
public struct FileHandleOutputSink: JSONOutputSink {
    /// The handle written to.
    public let handle: FileHandle
    private let name: String

    /// A sink over `handle`; `name` appears in errors (default: `standard output`, or `fd N`).
    public init(_ handle: FileHandle, name: String? = nil) {
        self.handle = handle
        self.name = name ?? Syscalls.name(ofDescriptor: handle.fileDescriptor)
    }

    /// Writes all of `bytes`, retrying short and interrupted writes.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try Syscalls.writeAll(handle.fileDescriptor, bytes, target: name)
    }
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

extension JSONOutputSink where Self == FileHandleOutputSink {
    /// Standard output.
    public static var standardOutput: FileHandleOutputSink { FileHandleOutputSink(.standardOutput) }
    /// An open file handle (not closed by the writer).
    public static func fileHandle(_ handle: FileHandle) -> FileHandleOutputSink { FileHandleOutputSink(handle) }
    /// A file, created or truncated.
    public static func file(_ path: String) throws -> FileHandleOutputSink {
        // open(2), not FileManager.createFile: that replaces the path atomically, even a device.
        FileHandleOutputSink(
            FileHandle(fileDescriptor: try Syscalls.createForWriting(path), closeOnDealloc: true),
            name: path
        )
    }
}

extension JSONOutputSink where Self == ClosureOutputSink {
    /// A closure that receives each buffer of output.
    public static func closure(_ body: @escaping (UnsafeRawBufferPointer) throws -> Void) -> ClosureOutputSink {
        ClosureOutputSink(body)
    }
}
