import Foundation
import Testing
import YAJLFixtures
import YAJLTestSupport

/// The tool's side of the reliability issue, black-box: output errors, options that must not
/// crash, big integers, empty NDJSON, `--limit 0`, and messages that read well.
@Suite("yajl tool reliability", .serialized)
struct ToolReliabilityTests {
    /// Runs the tool with standard output on /dev/full, where every write fails with ENOSPC.
    static func runIntoFullDevice(_ arguments: [String], stdin: String) throws -> (status: Int32, stderr: String)? {
        guard let executable = ToolTests.executable else { throw ToolTests.ToolMissing() }
        guard let full = FileHandle(forWritingAtPath: "/dev/full") else {
            print("⚠️  SKIPPING the /dev/full checks: /dev/full cannot be opened on this machine")
            return nil
        }
        // The input comes from a file: the tool stops at the first failed write, and a pipe
        // still being written would then raise SIGPIPE in the test process.
        let inputFile = TemporaryFile("input.json")
        defer { inputFile.remove() }
        try Data(stdin.utf8).write(to: URL(fileURLWithPath: inputFile.path))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardInput = FileHandle(forReadingAtPath: inputFile.path)
        process.standardOutput = full
        process.standardError = errors
        try process.run()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: err, as: UTF8.self))
    }

    static let document: String = {
        var text = #"{"results":["#
        for i in 0..<20_000 { text += (i == 0 ? "" : ",") + #"{"id":\#(i),"name":"user \#(i)"}"# }
        return text + "]}"
    }()

    @Test(arguments: [
        ["events"], ["stats"], ["validate"], ["extract", "$.results[*]"], ["to-ndjson", "$.results[*]"], ["reformat"],
        ["reformat", "--minify"],
    ])
    func aFailingOutputIsExitTwoNamingTheOutputAndTheOSError(arguments: [String]) throws {
        guard let run = try Self.runIntoFullDevice(arguments, stdin: Self.document) else { return }
        if arguments == ["validate"] {
            #expect(run.status == 0)  // writes nothing
            return
        }
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("cannot write to standard output: No space left on device"), "\(run.stderr)")
        guard let ndjson = try Self.runIntoFullDevice(["from-ndjson"], stdin: "{\"a\":1}\n{\"b\":2}\n") else { return }
        #expect(ndjson.status == 2 && ndjson.stderr.contains("No space left on device"))
    }

    @Test func integersBeyondInt64AreExactNumbersInEvents() throws {
        let run = try ToolTests.run(
            ["events"],
            stdin: "[9223372036854775808,-9223372036854775809,9223372036854775807,1.5,1e400]"
        )
        #expect(
            run.stdout == """
                ["start_array"]
                ["number","9223372036854775808"]
                ["number","-9223372036854775809"]
                ["integer",9223372036854775807]
                ["double",1.5]
                ["number","1e400"]
                ["end_array"]

                """
        )
    }

    @Test(arguments: [
        (["reformat", "--indent-string", "x"], "--indent-string"),
        (["reformat", "--indent", "99999999999"], "--indent"),
        (["validate", "--max-token-bytes", "9223372036854775807"], "--max-token-bytes"),
        (["validate", "--chunk-size", "100000G"], "--chunk-size"), (["validate", "--chunk-size", "0"], "--chunk-size"),
        (["validate", "--max-depth", "0"], "--max-depth"),
    ])
    func optionsOutOfRangeAreUsageErrorsNamingTheOption(arguments: [String], flag: String) throws {
        let run = try ToolTests.run(arguments, stdin: "[1]")
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.hasPrefix("yajl: error: \(flag) is "), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"))
    }

    @Test(arguments: ["", "\n", "\n\n  \n"])
    func emptyNDJSONIsAnEmptyArray(input: String) throws {
        let run = try ToolTests.run(["from-ndjson"], stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "[]\n")
        // A value cut short is still an error.
        #expect(try ToolTests.run(["from-ndjson"], stdin: input + "[1").status == 1)
    }

    @Test func limitZeroWritesNothing() throws {
        let run = try ToolTests.run(["extract", "$.results[*]", "--limit", "0", "--quiet"], stdin: Self.document)
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run.stdout.prefix(80))")
        #expect(
            try ToolTests.run(["extract", "$.results[*]", "--limit", "2", "--quiet"], stdin: Self.document).stdout
                == "{\"id\":0,\"name\":\"user 0\"}\n{\"id\":1,\"name\":\"user 1\"}\n"
        )
    }

    @Test func messagesReadWell() throws {
        let generate = try ToolTests.run(["generate", "/nonexistent/d/g.json", "--size", "1K"])
        #expect(generate.status == 2)
        #expect(generate.stderr == "yajl: error: cannot create /nonexistent/d/g.json: No such file or directory\n")
        let paths = (0..<40).map { "$.a\($0)" }
        let many = try ToolTests.run(["extract"] + paths + ["--quiet"], stdin: "{}")
        #expect(many.status == 2)
        #expect(many.stderr.contains("too many paths in one pass") && !many.stderr.contains("-"), "\(many.stderr)")
        let parse = try ToolTests.run(["validate"], stdin: "[1,x]")
        #expect(
            parse.stderr.hasPrefix("yajl: error: invalid char in json text at line 1, column 4 (byte 3) in $[1]"),
            "\(parse.stderr)"
        )
    }

    @Test func invalidUTF8NeverReachesTheOutput() throws {
        for command in [["extract", "$[*]", "--quiet"], ["reformat", "--minify"], ["events"]] {
            let run = try ToolTests.run(
                command,
                stdin: "[\"a\u{0}\"]".replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
            )
            #expect(run.status == 0)
        }
        guard let executable = ToolTests.executable else { throw ToolTests.ToolMissing() }
        let file = TemporaryFile("surrogate.json")
        defer { file.remove() }
        try Data([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D]).write(to: URL(fileURLWithPath: file.path))
        for command in [["extract", "$[*]", "--quiet"], ["reformat", "--minify"]] {
            let process = Process()
            process.executableURL = executable
            process.arguments = command + [file.path]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            _ = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 1)
            #expect(!out.contains(0xED), "\(command) wrote an encoded surrogate")
        }
    }
}
