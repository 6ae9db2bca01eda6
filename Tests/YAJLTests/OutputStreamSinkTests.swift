import Foundation
import Testing
import YAJL

#if canImport(Glibc)
import Glibc
#endif

/// Foundation streams both ways: `OutputStream` as a writer's sink (memory, file, a full buffer,
/// partial writes, a failed stream) and a connected socket read through its descriptor.
@Suite("Foundation streams", .serialized)
struct OutputStreamSinkTests {
    struct Row: Codable, Equatable {
        let id: Int
        let name: String
    }

    static func rows(_ count: Int) -> [Row] { (0..<count).map { Row(id: $0, name: "n\($0) é/\u{1F600}") } }

    /// The bytes a writer hands to a memory sink, to compare with.
    static func expected(_ rows: [Row], layout: JSONRecordWriter<Row>.Layout) throws -> Data {
        let sink = MemoryOutputSink()
        try JSONRecordWriter<Row>.write(to: sink, layout: layout) { try $0.write(contentsOf: rows) }
        return sink.data
    }

    /// Takes at most `step` bytes per write, as a socket under load does.
    final class TrickleStream: OutputStream {
        var taken = Data()
        let step: Int
        private var status = Stream.Status.notOpen
        init(step: Int) {
            self.step = step
            super.init(toMemory: ())
        }
        required init(toMemory: ()) {
            step = 1
            super.init(toMemory: ())
        }
        override func open() { status = .open }
        override func close() { status = .closed }
        override var streamStatus: Stream.Status { status }
        override var hasSpaceAvailable: Bool { true }
        override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
            let n = min(len, step)
            taken.append(buffer, count: n)
            return n
        }
    }

    @Test("memory and file streams receive what a memory sink does", arguments: [0, 1, 5, 4000])
    func memoryAndFile(count: Int) throws {
        for layout in [JSONRecordWriter<Row>.Layout.array, .ndjson] {
            let expected = try Self.expected(Self.rows(count), layout: layout)
            let memory = OutputStream(toMemory: ())
            try JSONRecordWriter<Row>.write(to: .outputStream(memory), layout: layout) {
                try $0.write(contentsOf: Self.rows(count))
            }
            #expect(memory.property(forKey: .dataWrittenToMemoryStreamKey) as? Data == expected)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-sink-\(getpid()).json")
                .path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let file = try #require(OutputStream(toFileAtPath: path, append: false))
            try JSONRecordWriter<Row>.write(to: .outputStream(file), layout: layout) {
                try $0.write(contentsOf: Self.rows(count))
            }
            file.close()
            #expect(FileManager.default.contents(atPath: path) == expected)
        }
    }

    @Test("partial writes are continued until the stream has every byte", arguments: [1, 2, 3, 7, 4096])
    func partialWrites(step: Int) throws {
        let stream = TrickleStream(step: step)
        try JSONRecordWriter<Row>.write(to: .outputStream(stream)) { try $0.write(contentsOf: Self.rows(300)) }
        let expected = try Self.expected(Self.rows(300), layout: .array)
        #expect(stream.taken == expected)
    }

    @Test("a full buffer or a closed stream throws, never cuts the output silently")
    func fullOrClosedStreamsThrow() throws {
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer.withUnsafeMutableBufferPointer { pointer in
            let stream = OutputStream(toBuffer: pointer.baseAddress!, capacity: pointer.count)
            #expect(throws: JSONIOError.self) {
                try JSONRecordWriter<Row>.write(to: .outputStream(stream)) { try $0.write(contentsOf: Self.rows(50)) }
            }
        }
        let closed = OutputStream(toMemory: ())
        closed.open()
        closed.close()
        do {
            try JSONRecordWriter<Row>.write(to: .outputStream(closed)) { try $0.write(contentsOf: Self.rows(3)) }
            Issue.record("a closed stream took the output")
        } catch let error as JSONIOError {
            #expect(error.operation == .write)
            #expect(error.localizedDescription.contains("output stream"))
        }
    }

    /// The Linux way to read a socket: its descriptor as the source, on the parsing thread.
    @Test("records read from a connected socket through its descriptor", arguments: [1, 100, 20_000])
    func socketThroughItsDescriptor(count: Int) throws {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let (reading, writing) = (fds[0], fds[1])
        defer { close(reading) }
        let payload = try Self.expected(Self.rows(count), layout: .ndjson)
        let writer = Thread {
            payload.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = Glibc.write(writing, bytes.baseAddress! + offset, min(1000, bytes.count - offset))
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writing)
        }
        writer.start()
        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        options.requireMatch = true
        let reader = try JSONRecordReader(Row.self, at: "$", from: .fileDescriptor(reading), options: options)
        var rows: [Row] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows == Self.rows(count))
    }
}
