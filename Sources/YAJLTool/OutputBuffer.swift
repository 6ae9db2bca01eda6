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

    /// Writes `bytes` as a JSON string literal (see `JSONEscaping`). Invalid UTF-8 (possible with
    /// --no-utf8-check) becomes U+FFFD, so the output is always valid JSON.
    func writeJSONString(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.isEmpty || String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil {
            JSONEscaping.appendQuoted(bytes, to: &buffer)
        } else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &buffer) }
        }
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
