import Foundation
import YAJLCore

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

extension JSONOutputSink where Self == FileHandleOutputSink {
    /// An open file handle (not closed by the writer).
    public static func fileHandle(_ handle: FileHandle) -> FileHandleOutputSink { FileHandleOutputSink(handle) }
}
