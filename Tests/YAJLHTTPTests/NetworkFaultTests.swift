// About 320 lines: one fault of the test server per test, all against the same served document.

import Foundation
import Testing
import YAJL
import YAJLHTTP
import YAJLTestSupport

/// The faults of the network issue, each against scripts/test-http-server.py: a changed resource
/// is never spliced in, every HTTP failure is named, every wait is bounded, headers stay with
/// their origin.
@Suite("HTTP faults", .serialized, .enabled(if: TestHTTPServer.python != nil, "python3 missing: network tests skipped"))
struct NetworkFaultTests {
    static var document: (path: String, digest: UInt64, events: Int) { NetworkTests.document }

    static func options(_ change: (inout HTTPOptions) -> Void = { _ in }) -> HTTPOptions {
        var options = HTTPOptions(backoff: 0.01)
        options.timeout = 10
        change(&options)
        return options
    }

    /// Parses the server's document; returns the digest, or throws what the source threw.
    static func parse(_ url: URL, _ options: HTTPOptions) throws -> EventDigest {
        let digest = EventDigest()
        try JSONParser(handler: digest).parse(from: HTTPByteSource(url: url, options: options))
        return digest
    }

    static func expectWholeDocument(_ digest: EventDigest) {
        #expect(digest.events == document.events && digest.digest == document.digest)
    }

    static func log(_ server: TestHTTPServer) -> [String] { server.requests }

    // MARK: Never splice a changed resource

    /// The retry ignores If-Range and answers 206 with changed content: the validator of the 206
    /// must be the one sent, whichever it is.
    @Test(arguments: [
        (["--no-etag"], "Last-Modified"),
        (["--etag-then-none"], "no ETag"),
        ([], "ETag"),
    ])
    func aChanged206IsRefused(validators: [String], reason: String) throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "1000003", "--drops", "1", "--change-after", "1", "--ignore-if-range"] + validators
        )
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .cannotResume, "\(error)")
        #expect(error.byteOffset == 1_000_003)
        #expect(error.reason.contains(reason), "\(error)")
        #expect(error.description.contains("at byte 1000003"))
    }

    @Test func ifRangeCarriesLastModifiedWithoutAStrongETag() throws {
        for flags in [["--no-etag"], ["--weak-etag"]] {
            let server = try TestHTTPServer(
                serving: Self.document.path,
                ["--drop-after", "1000000", "--drops", "1"] + flags
            )
            defer { server.stop() }
            Self.expectWholeDocument(try Self.parse(server.url, Self.options()))
            #expect(Self.log(server).last?.contains("If-Range=Sun,_29_Nov_2026") == true, "\(Self.log(server))")
        }
    }

    @Test func noValidatorMeansNoResumeUnlessAskedFor() throws {
        let flags = ["--drop-after", "1000000", "--drops", "1", "--no-validators"]
        let server = try TestHTTPServer(serving: Self.document.path, flags)
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .cannotResume && error.byteOffset == 1_000_000)
        #expect(error.reason.contains("no ETag or Last-Modified"), "\(error)")
        let trusting = try TestHTTPServer(serving: Self.document.path, flags)
        defer { trusting.stop() }
        Self.expectWholeDocument(try Self.parse(trusting.url, Self.options { $0.resumesWithoutValidator = true }))
    }

    // MARK: Name every HTTP failure

    @Test(arguments: [503, 500, 404, 301])
    func anErrorStatusWithAnEmptyBodyIsAnHTTPError(status: Int) throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--status", String(status)])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) {
            try Self.parse(server.url, Self.options { $0.maxRetries = 1 })
        }
        #expect(error.kind == .status(status), "\(error)")
        if status == 503 { #expect(error.reason.contains("after 1 retry"), "\(error)") }
    }

    @Test func a503WithRetryAfterIsWaitedFor() throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            [
                "--drop-after", "1000000", "--drops", "1", "--status-after-drop", "503", "--status-count", "2",
                "--retry-after", "1",
            ]
        )
        defer { server.stop() }
        let start = ContinuousClock.now
        Self.expectWholeDocument(try Self.parse(server.url, Self.options()))
        #expect(ContinuousClock.now - start >= .seconds(2), "two Retry-After: 1 waits")
    }

    @Test func aRefusedReconnectIsRetried() throws {
        let server = try TestHTTPServer(
            serving: Self.document.path,
            ["--drop-after", "1000000", "--drops", "1", "--refuse-after-drop", "2"]
        )
        defer { server.stop() }
        Self.expectWholeDocument(try Self.parse(server.url, Self.options { $0.backoff = 0.25 }))
    }

    @Test func aDropBeforeTheFirstBodyByteIsRetried() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--drop-before-body", "2"])
        defer { server.stop() }
        Self.expectWholeDocument(try Self.parse(server.url, Self.options()))
        #expect(server.ranges == ["-", "-", "-"])
    }

    // MARK: Bound every wait

    @Test func aRedirectLoopEnds() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--redirect-loop"])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .redirect && error.reason.contains("more than 10 redirects"), "\(error)")
        #expect(Self.log(server).count == 11)
    }

    @Test func aTrickleTimesOut() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--throttle", "2"])
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = try #require(throws: HTTPError.self) {
            try Self.parse(
                server.url,
                Self.options {
                    $0.timeout = 2
                    $0.maxRetries = 1
                }
            )
        }
        #expect(error.kind == .timedOut, "\(error)")
        #expect(error.reason.contains("1024 bytes/s for 2 s"), "\(error)")
        #expect(ContinuousClock.now - start < .seconds(15))
    }

    @Test func aStallEndsAtTheDeadline() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--stall-after", "500000"])
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = try #require(throws: HTTPError.self) {
            try Self.parse(
                server.url,
                Self.options {
                    $0.timeout = 60
                    $0.deadline = 3
                }
            )
        }
        #expect(error.kind == .deadlineExceeded, "\(error)")
        #expect(error.byteOffset > 0)
        #expect(ContinuousClock.now - start < .seconds(6))
    }

    @Test(arguments: [Double.infinity, .nan, 1e300, -5, 0])
    func oddTimeoutsNeitherTrapNorHang(timeout: Double) throws {
        let server = try TestHTTPServer(serving: Self.document.path)
        defer { server.stop() }
        // Any timeout is clamped to 1…1,000,000 s.
        Self.expectWholeDocument(try Self.parse(server.url, Self.options { $0.timeout = timeout }))
        // A deadline must be positive; a huge one is clamped.
        if timeout > 0 {
            Self.expectWholeDocument(try Self.parse(server.url, Self.options { $0.deadline = timeout }))
        } else {
            let error = try #require(throws: HTTPError.self) {
                try Self.parse(server.url, Self.options { $0.deadline = timeout })
            }
            #expect(error.kind == .invalidOptions && error.reason.contains("deadline"), "\(error)")
        }
    }

    // MARK: Security

    @Test(arguments: [("X-Evil", "a\r\nInjected: 1"), ("X-Evil", "a\nb"), ("Bad Name", "v"), ("X:Y", "v"), ("", "v")])
    func headersThatWouldInjectOthersAreRefused(name: String, value: String) throws {
        let server = try TestHTTPServer(serving: Self.document.path)
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) {
            try Self.parse(server.url, Self.options { $0.headers = [name: value] })
        }
        #expect(error.kind == .invalidOptions, "\(error)")
        #expect(Self.log(server).isEmpty, "no request is sent")
    }

    @Test func customHeadersStayWithTheirOrigin() throws {
        let target = try TestHTTPServer(serving: Self.document.path)
        defer { target.stop() }
        let redirecting = try TestHTTPServer(
            serving: Self.document.path,
            ["--redirect-to", "http://127.0.0.1:\(target.port)/final.json"]
        )
        defer { redirecting.stop() }
        Self.expectWholeDocument(try Self.parse(redirecting.url, Self.options { $0.headers = ["X-Api-Key": "secret"] }))
        #expect(Self.log(redirecting).first?.contains("X-Api-Key=secret") == true)
        #expect(Self.log(target).first?.contains("X-Api-Key=-") == true, "\(Self.log(target))")
        // Asked for explicitly, they follow.
        Self.expectWholeDocument(
            try Self.parse(
                redirecting.url,
                Self.options {
                    $0.headers = ["X-Api-Key": "secret"]
                    $0.sendsHeadersAcrossOrigins = true
                }
            )
        )
        #expect(Self.log(target).last?.contains("X-Api-Key=secret") == true)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/doc.json"])
    func redirectsToOtherSchemesAreRefused(location: String) throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--redirect-scheme", location])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .redirect && error.reason.contains("only http and https"), "\(error)")
    }

    @Test func anUnrequestedCompressionIsNamedAndARequestedOneIsDecoded() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--gzip"])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .contentEncoding("gzip"), "\(error)")
        #expect(Self.log(server).first?.contains("Accept-Encoding=identity") == true)
        Self.expectWholeDocument(try Self.parse(server.url, Self.options { $0.acceptsCompression = true }))
    }

    @Test func oversizedHeadersAreNamed() throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--huge-header", "300000"])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .headersTooLarge, "\(error)")
    }

    /// HTTPS with a self-signed certificate: refused by default, naming the host and the reason;
    /// accepted with the certificate as `caCertificates`.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
            "openssl missing: HTTPS test skipped"
        )
    )
    func aPrivateCAIsTrustedOnlyWhenGiven() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swift-yajl-tls-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
        let server = try TestHTTPServer(serving: Self.document.path, ["--tls", cert, key])
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) { try Self.parse(server.url, Self.options()) }
        #expect(error.kind == .transport(code: 60), "\(error)")
        #expect(error.reason.contains("TLS with 127.0.0.1 failed") && error.reason.contains("self-signed"), "\(error)")
        Self.expectWholeDocument(try Self.parse(server.url, Self.options { $0.caCertificates = cert }))
    }

    @Test func aMissingCAFileIsAnOptionError() throws {
        let server = try TestHTTPServer(serving: Self.document.path)
        defer { server.stop() }
        let error = try #require(throws: HTTPError.self) {
            try Self.parse(server.url, Self.options { $0.caCertificates = "/nonexistent/ca.pem" })
        }
        #expect(error.kind == .invalidOptions && error.reason.contains("/nonexistent/ca.pem"))
    }

    // MARK: Async

    /// Async reads run on the source's own thread: with more stalled downloads than the machine
    /// has cores, other tasks still run at once.
    @Test func asyncReadsDoNotBlockTheCooperativePool() async throws {
        let server = try TestHTTPServer(serving: Self.document.path, ["--stall-after", "100"])
        defer { server.stop() }
        let url = server.url
        let downloads = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2)).map { _ in
            Task {
                try await JSONParser(handler: EventDigest()).parse(
                    from: HTTPByteSource(url: url, options: Self.options())
                )
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        let sum = await withTaskGroup(of: Int.self) { group in
            for i in 0..<16 { group.addTask { i } }
            return await group.reduce(0, +)
        }
        #expect(sum == 120)
        #expect(ContinuousClock.now - start < .seconds(1), "other tasks waited for blocked reads")
        for download in downloads { download.cancel() }
        for download in downloads { _ = await download.result }
    }
}
