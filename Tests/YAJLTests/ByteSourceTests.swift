import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// Every byte source delivers the same events, reads in bounded chunks, and stops reading when
/// the handler stops.
@Suite("Byte sources and feeders")
struct ByteSourceTests {
    static let document = #"{"results": [{"id": 1, "name": "Zürich"}, {"id": 2, "name": "東京"}], "count": 2}"#
    static var expected: [RecordedEvent] { parse(document).events }

    @Test func file() throws {
        let file = TemporaryFile("source.json")
        defer { file.remove() }
        try Self.document.write(toFile: file.path, atomically: true, encoding: .utf8)
        let recorder = EventRecorder()
        try JSONParser(options: .init(chunkSize: 5), handler: recorder).parse(from: .file(file.path))
        #expect(recorder.events == Self.expected)

        let viaURL = EventRecorder()
        try JSONParser(handler: viaURL).parse(from: .file(URL(fileURLWithPath: file.path)))
        #expect(viaURL.events == Self.expected)
    }

    @Test func missingFileIsASourceError() {
        #expect(throws: JSONSourceError.self) {
            try JSONParser(handler: EventRecorder()).parse(from: .file("/nonexistent/dir/x.json"))
        }
        do {
            try JSONParser(handler: EventRecorder()).parse(from: .file("/nonexistent/dir/x.json"))
        } catch let error as JSONSourceError {
            #expect(error.errno == ENOENT)
            #expect(error.description == "cannot read /nonexistent/dir/x.json: No such file or directory")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: JSONSourceError.self) { try FileByteSource(url: URL(string: "https://example.com/x.json")!) }
    }

    @Test func pipeThroughAFileHandle() throws {
        let pipe = Pipe()
        let bytes = Array(Self.document.utf8)
        // Write in small pieces from another thread, as a producer process would.
        let writer = Thread {
            for start in stride(from: 0, to: bytes.count, by: 3) {
                pipe.fileHandleForWriting.write(Data(bytes[start..<min(bytes.count, start + 3)]))
            }
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let recorder = EventRecorder()
        try JSONParser(handler: recorder).parse(from: .fileHandle(pipe.fileHandleForReading))
        #expect(recorder.events == Self.expected)
    }

    @Test func inputStream() throws {
        let recorder = EventRecorder()
        let stream = InputStream(data: Data(Self.document.utf8))
        try JSONParser(options: .init(chunkSize: 4), handler: recorder).parse(from: .inputStream(stream))
        #expect(recorder.events == Self.expected)
    }

    @Test func memory() throws {
        let recorder = EventRecorder()
        try JSONParser(options: .init(chunkSize: 1), handler: recorder).parse(from: .bytes(Data(Self.document.utf8)))
        #expect(recorder.events == Self.expected)
        let text = EventRecorder()
        try JSONParser(handler: text).parse(from: .text(Self.document))
        #expect(text.events == Self.expected)
    }

    @Test func asyncSequenceOfChunks() async throws {
        let bytes = Array(Self.document.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 7) {
                continuation.yield(Array(bytes[start..<min(bytes.count, start + 7)]))
            }
            continuation.finish()
        }
        let recorder = EventRecorder()
        let state = try await JSONParser(options: .init(chunkSize: 5), handler: recorder).parse(from: .chunks(chunks))
        #expect(state == .finished)
        #expect(recorder.events == Self.expected)
    }

    @Test func asyncSequenceOfBytes() async throws {
        let bytes = Array(Self.document.utf8)
        let stream = AsyncStream<UInt8> { continuation in
            for byte in bytes { continuation.yield(byte) }
            continuation.finish()
        }
        let recorder = EventRecorder()
        try await JSONParser(handler: recorder).parse(from: .bytes(stream))
        #expect(recorder.events == Self.expected)
    }

    @Test func asyncBlockingAdapter() async throws {
        let recorder = EventRecorder()
        try await JSONParser(handler: recorder).parse(from: .blocking(MemoryByteSource(Self.document.utf8)))
        #expect(recorder.events == Self.expected)
    }

    @Test func cancellingTheTaskStopsReading() async throws {
        // An endless producer: the parse can only end through cancellation.
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        continuation.yield(Array("[".utf8))
        let producer = Task {
            while !Task.isCancelled {
                continuation.yield(Array("1,".utf8))
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        let parse = Task {
            try await JSONParser(handler: DiscardingTestHandler()).parse(from: .chunks(stream))
        }
        try await Task.sleep(for: .milliseconds(50))
        parse.cancel()
        await #expect(throws: CancellationError.self) { try await parse.value }
        producer.cancel()
        continuation.finish()
    }

    @Test func stopReadsNoFurther() throws {
        let source = CountingSource(
            MemoryByteSource(
                Array("[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 1)
                    + Array(String(repeating: ",1", count: 100_000).utf8) + Array("]".utf8)
            )
        )
        let recorder = EventRecorder()
        recorder.stopAfter = 10
        let state = try JSONParser(options: .init(chunkSize: 1024), handler: recorder).parse(from: source)
        #expect(state == .stopped)
        #expect(recorder.events.count == 10)
        #expect(source.counter.bytes == 1024)  // one read, then no more
    }

    @Test func longTokensGrowTheReadsThenShrinkBack() throws {
        // A 1 MiB string between small values: reads double while it spans them, then return to 4 KiB.
        var bytes = Array(#"[1, ""#.utf8)
        bytes += Array(repeating: UInt8(ascii: "x"), count: 1 << 20)
        bytes += Array(#"""#.utf8)
        bytes += Array(String(repeating: ", 2", count: 1_000_000).utf8)  // 3 MB of small values
        bytes += Array("]".utf8)
        let source = CountingSource(MemoryByteSource(bytes))
        let recorder = EventRecorder()
        try JSONParser(options: .init(chunkSize: 4096), handler: recorder).parse(from: source)
        #expect(recorder.events.count == 1_000_004)
        let reads = source.counter.readSizes
        let largest = reads.firstIndex(of: reads.max()!)!
        #expect(reads[largest] >= 512 << 10, "reads never grew: \(reads.prefix(20))")
        #expect(largest < 16, "\(largest) reads to cross 1 MiB: growth is not geometric")
        #expect(reads[(largest + 1)...].allSatisfy { $0 == 4096 }, "reads did not shrink back: \(reads.prefix(20))")
    }
}

final class DiscardingTestHandler: JSONEventHandler {}

/// Wraps a source and records what it delivered.
struct CountingSource<Base: JSONByteSource>: JSONByteSource {
    final class Counter {
        var bytes = 0
        var readSizes: [Int] = []
    }
    var base: Base
    let counter = Counter()

    init(_ base: Base) { self.base = base }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        counter.readSizes.append(buffer.count)
        let n = try base.read(into: buffer)
        counter.bytes += n
        return n
    }
}
