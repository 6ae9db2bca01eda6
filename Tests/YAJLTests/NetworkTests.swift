import Foundation
import Testing
import YAJLFixtures
import YAJLHTTP

@testable import YAJL

/// The loopback HTTP server of scripts/test-http-server.py, started for one test.
final class TestHTTPServer {
    let port: Int
    let log: TemporaryFile
    private let process: Process

    static let script = SharedMaterial.packageRoot.appendingPathComponent("scripts/test-http-server.py").path
    static let python: String? = {
        for path in ["/usr/bin/python3", "/usr/local/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: path) { return path }
        print("⚠️  SKIPPING network tests: python3 is not installed (scripts/install-deps.sh installs it)")
        return nil
    }()

    let scheme: String

    init(serving file: String, _ arguments: [String] = []) throws {
        scheme = arguments.contains("--tls") ? "https" : "http"
        log = TemporaryFile("server.log")
        process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.python))
        process.arguments = [Self.script, file, "--log", log.path, "--idle", "60"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        port = try #require(
            Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
            "server said \(text)"
        )
    }

    var url: URL { URL(string: "\(scheme)://127.0.0.1:\(port)/doc.json")! }

    /// The Range headers the server received, in order.
    var ranges: [String] {
        ((try? String(contentsOfFile: log.path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("Range=") }.map { String($0.dropFirst(6)) }
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        log.remove()
    }
}

/// Hashes every event (kind, bytes, depth), so two parses can be compared without keeping events.
final class EventDigest: JSONEventHandler {
    private(set) var events = 0
    private(set) var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    private func mix(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer? = nil, _ depth: Int) {
        events += 1
        digest = (digest ^ UInt64(tag)) &* 0x100_0000_01b3
        digest = (digest ^ UInt64(depth)) &* 0x100_0000_01b3
        for byte in bytes ?? UnsafeRawBufferPointer(start: nil, count: 0) {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
    }

    func startObject(context: JSONEventContext) throws { mix(1, nil, context.depth) }
    func endObject(context: JSONEventContext) throws { mix(2, nil, context.depth) }
    func startArray(context: JSONEventContext) throws { mix(3, nil, context.depth) }
    func endArray(context: JSONEventContext) throws { mix(4, nil, context.depth) }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { mix(5, key.bytes, context.depth) }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { mix(6, value.bytes, context.depth) }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws { mix(7, value.bytes, context.depth) }
    func bool(_ value: Bool, context: JSONEventContext) throws { mix(value ? 8 : 9, nil, context.depth) }
    func null(context: JSONEventContext) throws { mix(10, nil, context.depth) }
}

@Suite(
    "HTTP byte source",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil, "python3 missing: network tests skipped")
)
struct NetworkTests {
    /// A generated 8 MiB records document, shared by the tests of this suite run.
    static let document: (path: String, digest: UInt64, events: Int) = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swift-yajl-http-\(ProcessInfo.processInfo.processIdentifier).json"
        ).path
        _ = try? DocumentGenerator.write(.records, targetBytes: 8 << 20, to: path)
        let local = EventDigest()
        _ = try? JSONParser(handler: local).parse(from: .file(path))
        return (path, local.digest, local.events)
    }()

    static var quick: HTTPOptions { HTTPOptions(backoff: 0.01) }

    @Test(arguments: [1, 3])
    func resumesAfterDropsWithTheSameEvents(drops: Int) throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "1000000", "--drops", String(drops)]
        )
        defer { server.stop() }
        let digest = EventDigest()
        let source = HTTPByteSource(url: server.url, options: Self.quick)
        try JSONParser(handler: digest).parse(from: source)
        #expect(digest.events == Self.document.events)
        #expect(digest.digest == Self.document.digest)
        // Each reconnection asks for exactly the bytes already fed to the parser.
        #expect(server.ranges == ["-"] + (1...drops).map { "bytes=\($0 * 1_000_000)-" })
    }

    @Test func withoutRangesTheErrorNamesTheOffset() throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "2000000", "--drops", "1", "--no-ranges"]
        )
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) {
            try JSONParser(handler: EventDigest()).parse(from: HTTPByteSource(url: server.url, options: Self.quick))
        }
        #expect(error.kind == .cannotResume)
        #expect(error.byteOffset == 2_000_000)
        #expect(error.description.contains("at byte 2000000"))
        #expect(error.reason.contains("does not accept ranges"))
    }

    @Test func aChangedResourceIsNeverSplicedIn() throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "1000000", "--drops", "1", "--change-after", "1"]
        )
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) {
            try JSONParser(handler: EventDigest()).parse(from: HTTPByteSource(url: server.url, options: Self.quick))
        }
        #expect(error.kind == .cannotResume)
        #expect(error.byteOffset == 1_000_000)
        #expect(error.reason.contains("changed"))
    }

    @Test func retriesAreBounded() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--drop-after", "100000", "--drops", "100"])
        defer { server.stop() }
        var options = Self.quick
        options.maxRetries = 2
        let error = try #require(throws: HTTPError.self) {
            try JSONParser(handler: EventDigest()).parse(from: HTTPByteSource(url: server.url, options: options))
        }
        #expect(error.kind == .cannotResume)
        #expect(error.byteOffset == 300_000)
        #expect(server.ranges.count == 3)
    }

    @Test func aNotFoundBodyIsNeverParsed() throws {
        let server = try TestHTTPServer(serving: Self.document.path)
        defer { server.stop() }
        let digest = EventDigest()
        let missing = URL(string: "http://127.0.0.1:\(server.port)/missing.json")!
        let error = try #require(throws: HTTPError.self) {
            try JSONParser(handler: digest).parse(from: HTTPByteSource(url: missing))
        }
        #expect(error.kind == .status(404))
        #expect(digest.events == 0)
        let refused = try #require(throws: HTTPError.self) {
            try JSONParser(handler: EventDigest()).parse(
                from: HTTPByteSource(url: URL(string: "http://127.0.0.1:1/doc.json")!)
            )
        }
        #expect(refused.kind == .transport(code: 7))
    }

    @Test func recordsOverHTTPWithProgress() async throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--drop-after", "3000000", "--drops", "1"])
        defer { server.stop() }
        let progress = ProgressLog()
        var options = Self.quick
        options.onProgress = { progress.record($0) }
        var count = 0
        for try await _ in JSONRecords(
            JSONValue.self,
            at: "$.results[*]",
            from: HTTPByteSource(url: server.url, options: options)
        ) { count += 1 }
        let local = try JSONRecordReader(JSONValue.self, at: "$.results[*]", from: .file(Self.document.path))
        var expected = 0
        while try local.next() != nil { expected += 1 }
        #expect(count == expected)
        let last = try #require(progress.last)
        #expect(last.resumes == 1)
        #expect(last.receivedBytes == last.expectedBytes)
    }

    @Test func cancellationStopsTheDownload() async throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--throttle", "200000"])
        defer { server.stop() }
        let url = server.url
        let task = Task {
            try await JSONParser(handler: EventDigest()).parse(from: HTTPByteSource(url: url))
        }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func a256MiBDocumentAtLoopbackSpeedInBoundedMemory() throws {
        let file = TemporaryFile("http-large.json")
        defer { file.remove() }
        let counts = try DocumentGenerator.write(.records, targetBytes: 256 << 20, to: file.path)
        let server = try TestHTTPServer(serving: file.path)
        defer { server.stop() }
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let handler = CountingHandler()
        let parser = JSONParser(handler: handler)
        try parser.parse(from: HTTPByteSource(url: server.url))
        let peak = ProcessMemory.field("VmHWM") ?? 0
        #expect(parser.bytesConsumed == counts.bytes)
        #expect(handler.counts.keys == counts.keys)
        if resetPeak {
            print("http fixture: \(counts.bytes >> 20) MiB over loopback, peak RSS growth \((peak - before) >> 10) KiB")
            #expect(peak - before < 16 << 20)
        } else {
            print("⚠️  http fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [HTTPProgress] = []
    func record(_ progress: HTTPProgress) { lock.withLock { entries.append(progress) } }
    var last: HTTPProgress? { lock.withLock { entries.last } }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The measurement behind the choice of libcurl (Docs/Architecture.md): a consumer that stalls
/// 2 s on its first chunk, with the body served at loopback speed. `URLSession` keeps receiving
/// into memory; the libcurl source does not run ahead of its reader.
@Suite(
    "URLSession vs libcurl under a stalled consumer",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil, "python3 missing: measurement skipped")
)
struct BackPressureMeasurement {
    final class StallingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private(set) var received = 0
        private var stalled = false
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if !stalled {
                stalled = true
                Thread.sleep(forTimeInterval: 2)
            }
            received += data.count
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            done.signal()
        }
    }

    final class StallingHandler: JSONEventHandler {
        private var stalled = false
        func startObject(context: JSONEventContext) throws {
            if !stalled {
                stalled = true
                Thread.sleep(forTimeInterval: 2)
            }
        }
    }

    @Test func libcurlStaysBoundedWhereURLSessionBuffers() throws {
        let file = TemporaryFile("stall.json")
        defer { file.remove() }
        let counts = try DocumentGenerator.write(.records, targetBytes: 64 << 20, to: file.path)
        let server = try TestHTTPServer(serving: file.path)
        defer { server.stop() }

        // URLSession, delegate-based, with a stalled delegate.
        var resetPeak = ProcessMemory.resetPeak()
        var before = ProcessMemory.field("VmRSS") ?? 0
        let delegate = StallingDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: server.url).resume()
        delegate.done.wait()
        session.finishTasksAndInvalidate()
        let sessionGrowth = (ProcessMemory.field("VmHWM") ?? 0) - before
        print(
            "URLSession, stalled 2 s: received \(delegate.received) of \(counts.bytes) bytes, peak RSS growth \(sessionGrowth >> 20) MiB"
        )

        // The libcurl source under the same stall.
        resetPeak = ProcessMemory.resetPeak()
        before = ProcessMemory.field("VmRSS") ?? 0
        let parser = JSONParser(handler: StallingHandler())
        try parser.parse(from: HTTPByteSource(url: server.url))
        let curlGrowth = (ProcessMemory.field("VmHWM") ?? 0) - before
        print(
            "libcurl source, stalled 2 s: parsed \(parser.bytesConsumed) of \(counts.bytes) bytes, peak RSS growth \(curlGrowth >> 20) MiB"
        )
        #expect(parser.bytesConsumed == counts.bytes)
        if resetPeak {
            #expect(curlGrowth < 8 << 20)
        } else {
            print("⚠️  peak-memory comparison skipped: \(ProcessMemory.unavailable ?? "peak not reset")")
        }
    }
}
