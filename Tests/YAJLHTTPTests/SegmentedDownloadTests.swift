import Foundation
import Testing
import YAJL
import YAJLFixtures
import YAJLHTTP
import YAJLTestSupport

/// `HTTPOptions.segments`: one document over several connections, handed to the parser in order,
/// each segment resumed and validated like a single connection.
@Suite(
    "Segmented download",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil, "python3 missing: network tests skipped")
)
struct SegmentedDownloadTests {
    static var document: (path: String, digest: UInt64, events: Int) { TestHTTPServer.document }

    static func options(segments: Int, size: Int = 1 << 20) -> HTTPOptions {
        var options = HTTPOptions(backoff: 0.01)
        options.segments = segments
        options.segmentSize = size
        return options
    }

    /// The bytes of the document fetched through `options`, and the error that ended it, if any.
    static func download(_ server: TestHTTPServer, _ options: HTTPOptions) -> ([UInt8], HTTPError?) {
        let source = HTTPByteSource(url: server.url, options: options)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 50_000)
        do {
            while true {
                let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { break }
                bytes += buffer[..<n]
            }
            return (bytes, nil)
        } catch {
            return (bytes, error as? HTTPError)
        }
    }

    static let file: [UInt8] = Array(FileManager.default.contents(atPath: TestHTTPServer.document.path) ?? Data())

    /// `nil` when `bytes` are the file's first `bytes.count` bytes (all of them with `whole`), else
    /// where they differ (never a diff of megabytes in a failure).
    static func difference(_ bytes: [UInt8], whole: Bool = true) -> String? {
        if whole && bytes.count != file.count { return "\(bytes.count) bytes, the file has \(file.count)" }
        guard bytes.count <= file.count else { return "\(bytes.count) bytes, more than the file's \(file.count)" }
        let index = (0..<bytes.count).first { bytes[$0] != file[$0] }
        return index.map { "first different byte at \($0)" }
    }
    @Test("the same bytes and events as the file", arguments: [2, 4, 7])
    func sameBytesAsTheFile(segments: Int) throws {
        let server = try TestHTTPServer(serving: Self.document.path)
        defer { server.stop() }
        let (bytes, error) = Self.download(server, Self.options(segments: segments))
        #expect(error == nil)
        #expect(Self.difference(bytes) == nil)
        // One request for the whole body (read for the first segment), then one per later segment,
        // each with the first response's validator.
        let segmentCount = (Self.file.count + (1 << 20) - 1) >> 20
        #expect(server.ranges.first == "-")
        #expect(
            Set(server.ranges.dropFirst())
                == Set((1..<segmentCount).map { "bytes=\($0 << 20)-\(min(Self.file.count, ($0 + 1) << 20) - 1)" })
        )
        #expect(server.requests.count == segmentCount)
        #expect(server.requests.dropFirst().allSatisfy { $0.contains("If-Range=\"v1-") })
        let digest = EventDigest()
        try JSONParser(handler: digest).parse(
            from: HTTPByteSource(url: server.url, options: Self.options(segments: segments))
        )
        #expect(digest.digest == Self.document.digest)
    }

    @Test("dropped segments resume from their next byte", arguments: [1, 3, 6])
    func droppedSegmentsResume(drops: Int) throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "300000", "--drops", String(drops)]
        )
        defer { server.stop() }
        let (bytes, error) = Self.download(server, Self.options(segments: 4))
        #expect(error == nil)
        #expect(Self.difference(bytes) == nil)
        print("segmented download with \(drops) drops: \(server.ranges)")
        // Each drop was followed by one request for exactly the segment's remaining bytes.
        let resumed = server.ranges.filter { range in
            guard let start = Int(range.dropFirst(6).split(separator: "-").first ?? "") else { return false }
            return start % (1 << 20) != 0
        }
        #expect(resumed.count == drops)
        // …and each asked for the rest of its segment only.
        for range in resumed {
            let bounds = range.dropFirst(6).split(separator: "-").compactMap { Int($0) }
            #expect(
                bounds.count == 2 && bounds[1] == min(Self.file.count, (bounds[0] / (1 << 20) + 1) << 20) - 1,
                "\(range)"
            )
        }
    }

    @Test("a resource that changes mid-way fails, and nothing of it is handed out")
    func aChangedResourceFails() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--change-after", "3"])
        defer { server.stop() }
        let (bytes, error) = Self.download(server, Self.options(segments: 3))
        let failure = try #require(error)
        #expect(failure.kind == .cannotResume)
        #expect(failure.byteOffset > 0 && failure.byteOffset % (1 << 20) == 0)
        #expect(failure.byteOffset == bytes.count)
        #expect(Self.difference(bytes, whole: false) == nil)
    }

    @Test(
        "without ranges, a validator, or with one segment: one connection",
        arguments: [["--no-ranges"], ["--no-validators"], ["--gzip"], []]
    )
    func fallsBackToOneConnection(flags: [String]) throws {
        let server = try TestHTTPServer(serving: Self.document.path, flags)
        defer { server.stop() }
        var options = Self.options(segments: 4)
        if flags.isEmpty { options.segmentSize = 64 << 20 }  // the whole document is one segment
        if flags == ["--gzip"] { options.acceptsCompression = true }
        let (bytes, error) = Self.download(server, options)
        #expect(error == nil)
        #expect(Self.difference(bytes) == nil)
        #expect(server.requests.count == 1)
    }

    @Test("options out of range are refused")
    func optionsAreChecked() {
        for (segments, size) in [(0, 1 << 20), (65, 1 << 20), (2, 1000)] {
            var options = HTTPOptions()
            options.segments = segments
            options.segmentSize = size
            #expect(throws: HTTPError.self) { try options.validate() }
        }
    }
}
