import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// `yajl extract` over HTTP with the faults of the network issue, run as a user would: the exact
/// ids of the document, or exit 2 naming the URL, the byte offset and the cause.
@Suite(
    "yajl tool over HTTP",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil && ToolTests.executable != nil, "python3 or the yajl tool missing")
)
struct ToolNetworkTests {
    /// The ids of the document, one per line, read from the file.
    static let expectedIDs: String = {
        let reader = try? JSONRecordReader(
            JSONFragment.self,
            at: "$.results[*].id",
            from: .file(TestHTTPServer.document.path)
        )
        var lines = ""
        while let id = try? reader?.next() { lines += id.description + "\n" }
        return lines
    }()

    static func extract(_ server: TestHTTPServer, _ flags: [String] = []) throws -> ToolTests.Run {
        try ToolTests.run(["extract", "$.results[*].id", server.url.absoluteString, "--quiet"] + flags)
    }

    @Test(arguments: [
        (
            ["--drop-after", "1000003", "--drops", "1", "--change-after", "1", "--ignore-if-range", "--no-etag"],
            "cannot resume", "1000003"
        ),
        (
            [
                "--drop-after", "1000003", "--drops", "1", "--change-after", "1", "--ignore-if-range",
                "--etag-then-none",
            ], "no ETag", "1000003"
        ),
        (["--drop-after", "1000000", "--drops", "1", "--no-validators"], "--resume-unvalidated", "1000000"),
        (["--status", "503"], "HTTP 503", "byte 0"),
        (["--redirect-loop"], "more than 10 redirects", "byte 0"),
        (["--gzip"], "gzip-compressed", "byte 0"),
    ])
    func faultsEndWithExit2NamingTheCause(serverFlags: [String], cause: String, offset: String) throws {
        let server = try TestHTTPServer(serving: TestHTTPServer.document.path, serverFlags)
        defer { server.stop() }
        let run = try Self.extract(server, ["--retries", "1"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(
            run.stderr.contains(server.url.absoluteString) && run.stderr.contains(cause) && run.stderr.contains(offset),
            "\(run.stderr)"
        )
        // Whatever was written before the failure is a prefix of the true ids: nothing spliced.
        #expect(Self.expectedIDs.hasPrefix(run.stdout))
    }

    @Test(arguments: [
        ["--drop-after", "1000000", "--drops", "2"],
        ["--drop-after", "1000000", "--drops", "1", "--status-after-drop", "503", "--retry-after", "1"],
        ["--drop-after", "1000000", "--drops", "1", "--refuse-after-drop", "2"],
        ["--drop-before-body", "1"],
        ["--no-etag", "--drop-after", "1000000", "--drops", "1"],
    ])
    func recoverableFaultsGiveTheExactIDs(serverFlags: [String]) throws {
        let server = try TestHTTPServer(serving: TestHTTPServer.document.path, serverFlags)
        defer { server.stop() }
        let run = try Self.extract(server)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Self.expectedIDs)
    }

    @Test func unvalidatedResumeIsAnOptIn() throws {
        let server = try TestHTTPServer(
            serving: TestHTTPServer.document.path,
            ["--drop-after", "1000000", "--drops", "1", "--no-validators"]
        )
        defer { server.stop() }
        let run = try Self.extract(server, ["--resume-unvalidated"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Self.expectedIDs)
    }

    @Test func waitsAreBoundedByTimeoutAndDeadline() throws {
        let trickle = try TestHTTPServer(serving: TestHTTPServer.document.path, ["--throttle", "2"])
        defer { trickle.stop() }
        var run = try Self.extract(trickle, ["--timeout", "2", "--retries", "0"])
        #expect(run.status == 2 && run.stderr.contains("timed out") && run.stderr.contains("2 s"), "\(run.stderr)")
        let stall = try TestHTTPServer(serving: TestHTTPServer.document.path, ["--stall-after", "300000"])
        defer { stall.stop() }
        let start = ContinuousClock.now
        run = try Self.extract(stall, ["--deadline", "3"])
        #expect(run.status == 2 && run.stderr.contains("deadline exceeded"), "\(run.stderr)")
        #expect(ContinuousClock.now - start < .seconds(8))
    }

    @Test func headersAreCheckedAndKeptWithTheirOrigin() throws {
        let bad = try ToolTests.run(["extract", "$.a", "http://127.0.0.1:1/x", "--header", "X-Evil: a\r\nInjected: 1"])
        #expect(bad.status == 2 && bad.stderr.contains("--header") && bad.stderr.contains("CR, LF"), "\(bad.stderr)")
        let target = try TestHTTPServer(serving: TestHTTPServer.document.path)
        defer { target.stop() }
        let redirecting = try TestHTTPServer(
            serving: TestHTTPServer.document.path,
            ["--redirect-to", "http://127.0.0.1:\(target.port)/final.json"]
        )
        defer { redirecting.stop() }
        let run = try Self.extract(redirecting, ["--header", "X-Api-Key: secret"])
        #expect(run.status == 0 && run.stdout == Self.expectedIDs, "\(run.stderr)")
        #expect(redirecting.requests.first?.contains("X-Api-Key=secret") == true)
        #expect(target.requests.first?.contains("X-Api-Key=-") == true)
    }

    @Test func helpListsTheNetworkOptions() throws {
        for command in ["extract", "events", "stats", "validate", "reformat", "to-ndjson", "from-ndjson"] {
            let help = try ToolTests.run([command, "--help"])
            for flag in ["--header", "--timeout", "--deadline", "--retries", "--cacert", "--resume-unvalidated"] {
                #expect(help.stdout.contains(flag), "\(command) --help lacks \(flag)")
            }
        }
    }
}
