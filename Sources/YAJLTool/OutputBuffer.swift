import YAJLCore

/// Buffered writes to a file descriptor (standard output by default), 64 KiB at a time.
///
/// A failed write throws a ``JSONIOError`` (`cannot write to standard output: No space left on
/// device`), from the write that filled the buffer or from ``flush()``; the tool exits 2 for it.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    private let fd: Int32
    private let capacity = 1 << 16

    init(fd: Int32 = 1) {
        self.fd = fd
        buffer.reserveCapacity(capacity + 1024)
    }

    @inline(__always)
    func write(_ text: StaticString) throws {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { try flush() }
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    /// Writes raw bytes.
    func write(bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    /// Writes out what is buffered.
    func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try Syscalls.writeAll(fd, $0, target: Syscalls.name(ofDescriptor: fd)) }
    }
}
