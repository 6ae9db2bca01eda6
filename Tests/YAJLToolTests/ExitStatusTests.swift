import Foundation
import Testing
import YAJLTestSupport

/// Each exit status the README documents, pinned for every command that can meet it: 0 done,
/// 1 invalid input or a limit (or `--require-match` without a match), 2 usage or I/O, a network
/// failure included (a download that cannot be resumed, whatever the command).
@Suite("yajl exit statuses", .serialized)
struct ExitStatusTests {
    /// (arguments, stdin, status).
    @Test(
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: [
            (["validate"], #"{"a": [1]}"#, 0),
            (["validate"], #"{"a": [1"#, 1),
            (["validate", "--max-depth", "1"], #"[[1]]"#, 1),
            (["validate", "--no-such-option"], "{}", 2),
            (["validate", "/nonexistent/file.json"], "", 2),
            (["stats"], #"[1, 2]"#, 0),
            (["stats"], #"[1, 2"#, 1),
            (["extract", "$[*]"], #"[1, 2]"#, 0),
            (["extract", "$[*]"], #"[1, 2,"#, 1),
            (["extract", "$.missing", "--require-match"], #"{"a": 1}"#, 1),
            (["extract", "$.missing"], #"{"a": 1}"#, 0),
            (["extract", "$["], #"{"a": 1}"#, 2),
            (["extract", "$[?match(@, 'a{1,100000}')]"], #"["a"]"#, 2),
            (["extract", "$[?match(@.s, @.p)]"], #"[{"s": "a", "p": "a{1,100000}"}]"#, 1),
            (["reformat"], #"{"a": 1}"#, 0),
            (["reformat"], #"{"a": }"#, 1),
            (["to-ndjson", "$[*]"], #"[1, 2]"#, 0),
            (["to-ndjson", "$[*]"], #"[1, 2"#, 1),
            (["from-ndjson"], "1\n2\n", 0),
            (["from-ndjson"], "1\n2,\n", 1),
            (["nonexistent-command"], "", 2),
        ] as [([String], String, Int32)]
    )
    func documentedStatuses(arguments: [String], stdin: String, status: Int32) throws {
        let run = try ToolTests.run(arguments, stdin: stdin)
        #expect(run.status == status, "yajl \(arguments.joined(separator: " ")): \(run.status), \(run.stderr)")
        if status != 0 { #expect(run.stderr.hasPrefix("yajl"), "\(run.stderr)") }
    }

    /// A download that breaks and cannot be resumed (the server changed the document and sends no
    /// validator) exits 2 from every command that reads a URL, naming the URL and the offset.
    @Test(
        .enabled(
            if: TestHTTPServer.python != nil && ToolTests.executable != nil,
            "python3 or the yajl tool missing"
        ),
        arguments: [
            ["validate"], ["stats"], ["extract", "$.results[*].id"], ["to-ndjson", "$.results[*]"],
            ["reformat", "--minify"],
            ["split", "$.results[*]", "--out", ""],
        ]
    )
    func aDownloadThatCannotBeResumedExits2(command: [String]) throws {
        let server = try TestHTTPServer(
            serving: TestHTTPServer.document.path,
            ["--drop-after", "1000003", "--drops", "1", "--change-after", "1", "--ignore-if-range", "--no-etag"]
        )
        defer { server.stop() }
        var arguments = command
        let out = ToolScaleOutTests.directory("exit-status-split")
        defer { try? FileManager.default.removeItem(atPath: out) }
        if let index = arguments.firstIndex(of: "") { arguments[index] = out }
        let run = try ToolTests.run(arguments + [server.url.absoluteString, "--retries", "1"])
        #expect(run.status == 2, "\(command): \(run.status), \(run.stderr)")
        #expect(run.stderr.contains("cannot resume") && run.stderr.contains("1000003"), "\(command): \(run.stderr)")
    }
}
