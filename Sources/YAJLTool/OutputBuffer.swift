import YAJL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writes to a file descriptor (standard output by default), 64 KiB at a time.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    private let fd: Int32
    private let capacity = 1 << 16

    init(fd: Int32 = 1) {
        self.fd = fd
        buffer.reserveCapacity(capacity + 1024)
    }

    deinit { flush() }

    @inline(__always)
    func write(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { flush() }
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    /// Writes `bytes` as a JSON string literal (see `JSONEscaping`). Invalid UTF-8 (possible with
    /// --no-utf8-check) becomes U+FFFD, so the output is always valid JSON.
    func writeJSONString(_ bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty || String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil {
            JSONEscaping.appendQuoted(bytes, to: &buffer)
        } else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &buffer) }
        }
        if buffer.count >= capacity { flush() }
    }

    /// Writes raw bytes.
    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
