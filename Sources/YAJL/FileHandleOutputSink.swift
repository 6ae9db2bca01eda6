import Foundation
import YAJLCore

/// Writes to an open `FileHandle` (standard output, a pipe, a file). The handle stays open.
///
/// A failed write throws a ``JSONIOError`` naming the output and the OS error
/// (`cannot write to standard output: No space left on device`).
public struct FileHandleOutputSink: JSONOutputSink {
    /// The handle written to.
    public let handle: FileHandle
    /// The writes themselves: those of a sink over the handle's descriptor.
    private var descriptor: FileDescriptorOutputSink

    /// A sink over `handle`; `name` appears in errors (default: `standard output`, or `fd N`).
    public init(_ handle: FileHandle, name: String? = nil) {
        self.handle = handle
        descriptor = FileDescriptorOutputSink(fileDescriptor: handle.fileDescriptor, name: name)
    }

    /// Writes all of `bytes`, retrying short and interrupted writes.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try descriptor.write(bytes)
    }
}

extension JSONOutputSink where Self == FileHandleOutputSink {
    /// An open file handle (not closed by the writer).
    public static func fileHandle(_ handle: FileHandle) -> FileHandleOutputSink { FileHandleOutputSink(handle) }
}
