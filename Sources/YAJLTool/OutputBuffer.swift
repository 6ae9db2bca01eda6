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

    /// Writes `bytes` as a JSON string literal: quotes, escapes for `"`, `\` and control characters,
    /// and other UTF-8 as is. Invalid UTF-8 (possible with --no-utf8-check) becomes U+FFFD.
    func writeJSONString(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(UInt8(ascii: "\""))
        let utf8 = bytes.bindMemory(to: UInt8.self)
        let valid = String(validating: utf8, as: UTF8.self) != nil || utf8.isEmpty
        if valid {
            appendEscaped(utf8)
        } else {
            var repaired = String(decoding: utf8, as: UTF8.self)
            repaired.withUTF8 { appendEscaped($0) }
        }
        buffer.append(UInt8(ascii: "\""))
        if buffer.count >= capacity { flush() }
    }

    private func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: buffer.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: buffer.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                buffer.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: buffer.append(byte)
            }
        }
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
