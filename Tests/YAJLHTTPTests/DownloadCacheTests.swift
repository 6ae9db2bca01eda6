import Foundation
import Synchronization
import Testing
import YAJL
import YAJLFixtures
import YAJLHTTP
import YAJLTestSupport

/// `HTTPOptions.cacheDirectory`: a spool that survives the process, resumed by range, reused
/// after a 304, discarded when the resource changed, cut back after a torn write.
@Suite(
    "Download cache",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil, "python3 missing: network tests skipped")
)
struct DownloadCacheTests {
    static var document: String { TestHTTPServer.document.path }
    static let file: [UInt8] = Array(FileManager.default.contents(atPath: TestHTTPServer.document.path) ?? Data())

    /// The events a transfer reported.
    final class Events: Sendable {
        private let list = Mutex<[HTTPCacheEvent]>([])
        func add(_ event: HTTPCacheEvent) { list.withLock { $0.append(event) } }
        var all: [HTTPCacheEvent] { list.withLock { $0 } }
        var descriptions: [String] { all.map(\.description) }
    }

    static func options(_ directory: String, _ events: Events) -> HTTPOptions {
        var options = HTTPOptions(backoff: 0.01)
        options.cacheDirectory = directory
        options.onCacheEvent = { events.add($0) }
        return options
    }

    /// Reads `url` through the cache: all of it, or (with `stopAfter`) only that many bytes, then
    /// drops the source as a reader that stops early does.
    static func read(_ url: URL, _ options: HTTPOptions, stopAfter: Int = .max) throws -> [UInt8] {
        let source = HTTPByteSource(url: url, options: options)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < stopAfter {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            bytes += buffer[..<n]
        }
        return bytes
    }

    static func same(_ bytes: [UInt8], _ expected: [UInt8] = file) -> Bool { bytes == expected }

    static func metadata(_ directory: String) throws -> [String: Any] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".meta") }
        let name = try #require(names.first)
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a complete spool is reused after a 304, with nothing downloaded")
    func aCompleteSpoolIsReused() throws {
        let server = try TestHTTPServer(serving: Self.document)
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = Events()
        #expect(Self.same(try Self.read(server.url, Self.options(directory, events))))
        #expect(try Self.metadata(directory)["complete"] as? Bool == true)
        #expect(try Self.metadata(directory)["complete_bytes"] as? Int == Self.file.count)
        #expect(Self.same(try Self.read(server.url, Self.options(directory, events))))
        #expect(server.requests.count == 2)
        #expect(server.requests[1].contains("If-None-Match=\"v1-"))
        #expect(server.sent.last?.status == 304)
        #expect(server.sent.last?.bytes == 0)
        #expect(events.all.contains { if case .reused = $0 { return true } else { return false } })
    }

    @Test("an unfinished spool is parsed from disk, and only the rest is fetched", arguments: [1 << 20, 5_000_000])
    func anUnfinishedSpoolResumes(stopAfter: Int) throws {
        let server = try TestHTTPServer(serving: Self.document)
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = Events()
        let first = try Self.read(server.url, Self.options(directory, events), stopAfter: stopAfter)
        #expect(first.count >= stopAfter)
        let spooled = try #require(try Self.metadata(directory)["complete_bytes"] as? Int)
        #expect(spooled == first.count)
        let events2 = Events()
        let digest = EventDigest()
        try JSONParser(handler: digest).parse(
            from: HTTPByteSource(url: server.url, options: Self.options(directory, events2))
        )
        #expect(digest.digest == TestHTTPServer.document.digest)
        #expect(server.ranges.last == "bytes=\(spooled)-")
        #expect(server.sent.last?.start == spooled)
        #expect(server.sent.last?.bytes == Self.file.count - spooled)
        guard case .resuming(_, let from)? = events2.all.first else {
            Issue.record("the second transfer did not resume: \(events2.descriptions)")
            return
        }
        #expect(from == spooled)
    }

    @Test("bytes past the metadata's count (a torn write) are cut off, never handed out")
    func aTornWriteIsCutOff() throws {
        let server = try TestHTTPServer(serving: Self.document)
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.read(server.url, Self.options(directory, Events()), stopAfter: 2 << 20)
        let spooled = try #require(try Self.metadata(directory)["complete_bytes"] as? Int)
        let part = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".part") }
        )
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/" + part))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "#"), count: 70_000))  // torn garbage
        try handle.close()
        let events = Events()
        #expect(Self.same(try Self.read(server.url, Self.options(directory, events))))
        #expect(
            events.all.contains(.cutTornWrite(spool: directory + "/" + part, keptBytes: spooled, droppedBytes: 70_000))
        )
        #expect(server.ranges.last == "bytes=\(spooled)-")
    }

    @Test("a resource that changed discards the spool and starts over, and says so", arguments: [false, true])
    func aChangedResourceStartsOver(complete: Bool) throws {
        let server = try TestHTTPServer(serving: Self.document, ["--change-after", "1"])
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.read(server.url, Self.options(directory, Events()), stopAfter: complete ? .max : 3 << 20)
        let events = Events()
        let bytes = try Self.read(server.url, Self.options(directory, events))
        var changed = Self.file
        if changed.count > 11 && changed[10] == UInt8(ascii: " ") { changed[10] = UInt8(ascii: "\n") }
        #expect(Self.same(bytes, changed))
        #expect(events.descriptions.contains { $0.contains("discarded") && $0.contains("changed") })
        #expect(try Self.metadata(directory)["etag"] as? String == "\"v2-\(changed.count)\"")
    }

    @Test("without a validator an unfinished spool is not resumed")
    func noValidatorNoResume() throws {
        let server = try TestHTTPServer(serving: Self.document, ["--no-validators"])
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.read(server.url, Self.options(directory, Events()), stopAfter: 1 << 20)
        let events = Events()
        #expect(Self.same(try Self.read(server.url, Self.options(directory, events))))
        #expect(server.ranges == ["-", "-"])
        #expect(events.descriptions.contains { $0.contains("no ETag or Last-Modified") })
    }

    @Test("the size cap evicts the oldest entry, and a locked entry is left alone")
    func evictionAndLocking() throws {
        let a = try TestHTTPServer(serving: Self.document)
        defer { a.stop() }
        let b = try TestHTTPServer(serving: Self.document)
        defer { b.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.read(a.url, Self.options(directory, Events()))
        let events = Events()
        var options = Self.options(directory, events)
        options.cacheMaxBytes = Self.file.count + 1000
        Thread.sleep(forTimeInterval: 0.05)
        _ = try Self.read(b.url, options)  // a's entry is evicted to make room, b's is kept
        let third = try TestHTTPServer(serving: Self.document)
        defer { third.stop() }
        _ = try Self.read(third.url, options)
        #expect(events.all.contains { if case .evicted = $0 { return true } else { return false } })
        let parts = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".part") }
        #expect(parts.count <= 2)
        // Two readers of one URL at once: the second goes without the cache, and says so.
        let held = HTTPByteSource(url: a.url, options: Self.options(directory, Events()))
        var buffer = [UInt8](repeating: 0, count: 1024)
        _ = try buffer.withUnsafeMutableBytes { try held.read(into: $0) }
        let second = Events()
        #expect(Self.same(try Self.read(a.url, Self.options(directory, second))))
        #expect(second.descriptions.contains { $0.contains("not used") })
        withExtendedLifetime(held) {}
    }
}

extension DownloadCacheTests {
    @Test("with segments: spooled in order, resumed, then reused")
    func segmentsAndTheCache() throws {
        let server = try TestHTTPServer(serving: Self.document)
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Self.options(directory, Events())
        options.segments = 3
        options.segmentSize = 1 << 20
        let first = try Self.read(server.url, options, stopAfter: 3 << 20)
        #expect(Self.same(first, Array(Self.file.prefix(first.count))))
        let meta = try Self.metadata(directory)
        #expect(meta["etag"] as? String == "\"v1-\(Self.file.count)\"")
        #expect(meta["complete_bytes"] as? Int == first.count)
        let events = Events()
        var again = Self.options(directory, events)
        again.segments = 3
        again.segmentSize = 1 << 20
        #expect(Self.same(try Self.read(server.url, again)))
        #expect(events.descriptions.first?.contains("from byte \(first.count)") == true)
        let reused = Events()
        #expect(Self.same(try Self.read(server.url, Self.options(directory, reused))))
        #expect(reused.descriptions.contains { $0.contains("304") })
    }
}

extension DownloadCacheTests {
    @Test("after a reboot only the bytes synced to disk count")
    func afterARebootOnlySyncedBytesCount() throws {
        let server = try TestHTTPServer(serving: Self.document)
        defer { server.stop() }
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.read(server.url, Self.options(directory, Events()), stopAfter: 3 << 20)
        var meta = try Self.metadata(directory)
        let written = try #require(meta["complete_bytes"] as? Int)
        #expect(meta["synced_bytes"] as? Int == written)  // dropped early: synced at the end
        // As if the machine lost power after 1 MiB was synced: another boot, fewer synced bytes.
        meta["boot_id"] = "another-boot"
        meta["synced_bytes"] = 1 << 20
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".meta") }
        )
        try JSONSerialization.data(withJSONObject: meta).write(to: URL(fileURLWithPath: directory + "/" + name))
        let events = Events()
        #expect(Self.same(try Self.read(server.url, Self.options(directory, events))))
        #expect(server.ranges.last == "bytes=\(1 << 20)-")
        #expect(events.descriptions.contains { $0.contains("keeping \(1 << 20)") })
    }
}
