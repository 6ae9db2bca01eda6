import Foundation
import Testing
import YAJLCore
import YAJLFixtures
import YAJLTestSupport

/// The `yajl` tool, run as a user would: the binary built beside the tests, fed on stdin or a file.
@Suite("yajl tool", .serialized)
struct ToolTests {
    struct ToolMissing: Error {}

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The `yajl` executable next to the test bundle (built by `swift build --build-tests`).
    static let executable: URL? = {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("yajl")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        print("⚠️  SKIPPING yajl tool tests: no yajl executable in \(directory.path) (run `swift build --build-tests`)")
        return nil
    }()

    static func run(_ arguments: [String], stdin: String = "") throws -> Run {
        guard let executable else { throw ToolMissing() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        // A tool that stops reading early (--limit, an error) closes the pipe: its write must
        // fail with EPIPE here, not kill the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func validateExitCodes() throws {
        let valid = try Self.run(["validate"], stdin: #"{"a": [1, 2]}"#)
        #expect(valid.status == 0)
        #expect(valid.stdout.isEmpty && valid.stderr.isEmpty)
        let invalid = try Self.run(["validate", "-"], stdin: "{\"a\":\n [1, 2")
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("yajl: error: premature EOF at line 2, column 7 (byte 12) in $.a[1]"))
        #expect(try Self.run(["validate", "/nonexistent.json"]).status == 2)
        #expect(try Self.run(["validate", "--bogus"]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2)
        let deep = try Self.run(["validate", "--max-depth", "3"], stdin: "[[[[1]]]]")
        #expect(deep.status == 1)
        #expect(deep.stderr.contains("(raise --max-depth)"))
        // A document followed by a string that is never closed is not valid; with several values,
        // a last value cut inside a string is the end of the input inside a value.
        let open = try Self.run(["validate", "-"], stdin: #"{"a":1} "cut"#)
        #expect(open.status == 1)
        #expect(
            open.stderr.contains("trailing garbage: a string is opened after the document's value and never closed")
        )
        let cut = try Self.run(["validate", "-", "--allow-multiple-values"], stdin: "{\"a\":1}\n\"cut")
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("premature EOF: the input ends inside a string (--allow-partial-values accepts"))
        #expect(
            try Self.run(["validate", "-", "--allow-multiple-values", "--allow-partial-values"], stdin: "1\n\"cut")
                .status == 0
        )
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func eventsFormat() throws {
        let run = try Self.run(["events"], stdin: #"{"k": [null, true, 123, 1.5, 1e400, "s\n", 1E2, -0]}"#)
        #expect(run.status == 0)
        #expect(
            run.stdout.split(separator: "\n") == [
                #"["start_map"]"#, #"["map_key","k"]"#, #"["start_array"]"#, #"["null"]"#, #"["boolean",true]"#,
                #"["integer",123]"#, #"["double",1.5]"#, #"["number","1e400"]"#, #"["string","s\n"]"#,
                #"["double",100.0]"#,
                #"["integer",0]"#, #"["end_array"]"#, #"["end_map"]"#,
            ]
        )
        let partial = try Self.run(["events", "--chunk-size", "1"], stdin: #"[1, 2, x]"#)
        #expect(partial.status == 1)
        #expect(partial.stdout == "[\"start_array\"]\n[\"integer\",1]\n[\"integer\",2]\n")
        #expect(partial.stderr.contains("invalid"))
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func statsCountsAndNothingOnError() throws {
        let run = try Self.run(["stats"], stdin: #"{"a": [1, 2.5, "x", true, null, 1e400, {"b": []}]}"#)
        #expect(
            run.stdout
                == #"{"bytes":50,"maps":2,"arrays":2,"keys":2,"strings":1,"integers":1,"doubles":1,"numbers":1,"booleans":1,"nulls":1,"max_depth":4}"#
                + "\n"
        )
        let bad = try Self.run(["stats"], stdin: #"{"a": [1, 2"#)
        #expect(bad.status == 1)
        #expect(bad.stdout.isEmpty)
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func statsMatchTheGeneratorOnAGeneratedFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("yajl-tool-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let counts = try DocumentGenerator.write(.records, targetBytes: 4 << 20, to: file)
        let run = try Self.run(["stats", file, "--chunk-size", "7K"])
        #expect(
            run.stdout.contains(
                "\"bytes\":\(counts.bytes),\"maps\":\(counts.maps),\"arrays\":\(counts.arrays),\"keys\":\(counts.keys)"
            )
        )
        #expect(run.stdout.contains("\"max_depth\":\(counts.maxDepth)"))
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func extractWritesNDJSON() throws {
        let document = #"{"meta": {"n": 3}, "results": [{"id": 1, "n": 1E+2}, {"id": 2, "s": "a\"b"}, {"id": 3}]}"#
        let run = try Self.run(["extract", "$.results[*]", "--quiet"], stdin: document)
        #expect(run.status == 0)
        #expect(run.stdout == "{\"id\":1,\"n\":1E+2}\n{\"id\":2,\"s\":\"a\\\"b\"}\n{\"id\":3}\n")
        let limited = try Self.run(["extract", "$.results[*].id", "-", "--limit", "2"], stdin: document)
        #expect(limited.stdout == "1\n2\n")
        let several = try Self.run(["extract", "$.meta.n", "$.results[*].id"], stdin: document)
        #expect(several.stdout == "3\n1\n2\n3\n")
        let ndjson = try Self.run(["extract", "$.id", "--allow-multiple-values"], stdin: "{\"id\": 1}\n{\"id\": 2}\n")
        #expect(ndjson.stdout == "1\n2\n")
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func extractOrdersPathsAndEmptyResults() throws {
        let document = #"{"a": {"b": 1}, "c": 2, "it's": [10, 20, 30]}"#
        let streamed = try Self.run(["extract", "$..*", "--quiet"], stdin: document)
        #expect(streamed.stdout == "{\"b\":1}\n1\n2\n[10,20,30]\n10\n20\n30\n")
        let rfc = try Self.run(["extract", "$..*", "--order", "rfc", "--quiet"], stdin: document)
        #expect(rfc.stdout == "{\"b\":1}\n2\n[10,20,30]\n1\n10\n20\n30\n")
        let paths = try Self.run(["extract", "$[\"it's\"][-1:]", "$.a.b", "--paths", "--quiet"], stdin: document)
        #expect(paths.stdout == "[\"$['a']['b']\",1]\n[\"$['it\\\\'s'][2]\",30]\n")
        let filtered = try Self.run(["extract", "$[\"it's\"][?@ > 15 && @ != 30]", "--quiet"], stdin: document)
        #expect(filtered.stdout == "20\n")

        let none = try Self.run(["extract", "$.result[*]", "--quiet"], stdin: document)
        #expect(none.status == 0 && none.stdout.isEmpty)
        #expect(none.stderr.contains("no value matched $.result[*]"))
        let required = try Self.run(["extract", "$.result[*]", "--require-match", "--quiet"], stdin: document)
        #expect(required.status == 1)
        let badOrder = try Self.run(["extract", "$.a", "--order", "random"], stdin: document)
        #expect(badOrder.status == 2 && badOrder.stderr.contains("--order is 'document' or 'rfc'"))
        let buffered = try Self.run(
            ["extract", "$[-1]", "--max-buffered-bytes", "16", "--quiet"],
            stdin: "[1,2,3,4,5,6,7,8,9,10,11,12]"
        )
        #expect(buffered.status == 1 && buffered.stderr.contains("maxBufferedBytes"))
    }

    /// `--paths` over keys that need every escape, in the path and again in its JSON string: each
    /// line, read by Foundation, is the RFC 9535 normalized path and the value.
    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func extractPathsQuoteEveryKey() throws {
        var keys = ["plain", "it's", "back\\slash", "quo\"te", "a/b", "é", "😀", "\u{7F}", "\u{2028}", "'\\'"]
        keys += (0..<0x20).map { "c" + String(UnicodeScalar(UInt8($0))) }
        let records = keys.enumerated().map { [$0.element: $0.offset] }
        let document = try JSONSerialization.data(withJSONObject: ["results": records])
        let run = try Self.run(
            ["extract", "$.results[*].*", "--paths", "--quiet"],
            stdin: String(decoding: document, as: UTF8.self)
        )
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == keys.count)
        for (index, line) in lines.enumerated() where index < keys.count {
            let pair = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any]
            let expected = NormalizedPath.reference([.key("results"), .index(index), .key(keys[index])])
            #expect(pair?.first as? String == expected, "line \(index + 1): \(line)")
            #expect(pair?.last as? Int == index, "line \(index + 1): \(line)")
        }
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func badNDJSONLinesAreSkippedAndCounted() throws {
        let ndjson = "{\"id\": 1}\n{\"id\": 2, oops}\n{\"id\": 3}\n[1,\n"
        let extract = try Self.run(["extract", "$.id", "--bad-lines", "skip", "--quiet"], stdin: ndjson)
        #expect(extract.status == 0 && extract.stdout == "1\n3\n")
        #expect(
            extract.stderr.contains("yajl: warning: 2 bad lines skipped") && extract.stderr.contains("line 2 (byte 10)")
        )
        let converted = try Self.run(["to-ndjson", "$", "--bad-lines", "skip"], stdin: ndjson)
        #expect(converted.stdout == "{\"id\":1}\n{\"id\":3}\n")
        let stats = try Self.run(["stats", "--bad-lines", "skip"], stdin: ndjson)
        #expect(stats.stdout.contains("\"maps\":2,") && stats.stdout.contains("\"bad_lines\":2"))
        let stopped = try Self.run(["extract", "$.id", "--allow-multiple-values", "--quiet"], stdin: ndjson)
        #expect(stopped.status == 1 && stopped.stdout == "1\n2\n")  // stop: what came before the error
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func extractReportsWhatWasWrittenBeforeAnError() throws {
        let run = try Self.run(["extract", "$.r[*]"], stdin: #"{"r": [1, 2, oops]}"#)
        #expect(run.status == 1)
        #expect(run.stdout == "1\n2\n")
        #expect(run.stderr.contains("yajl: note: 2 values written before the error"))
        let badPath = try Self.run(["extract", "$.r["], stdin: "{}")
        #expect(badPath.status == 2)
        #expect(badPath.stderr.contains("invalid JSONPath at character"))
    }

    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func reformatAndNDJSONConversion() throws {
        let minified = try Self.run(["reformat", "--minify"], stdin: "{ \"a\" : [ 1 , 1E+2 , \"x/y\" ] }")
        #expect(minified.stdout == "{\"a\":[1,1E+2,\"x/y\"]}\n")
        let pretty = try Self.run(["reformat", "--indent", "2"], stdin: #"{"a":[1]}"#)
        #expect(pretty.stdout == "{\n  \"a\": [\n    1\n  ]\n}\n")
        let tabs = try Self.run(["reformat", "--indent-string", "\t", "--escape-solidus"], stdin: #"["a/b"]"#)
        #expect(tabs.stdout == "[\n\t\"a\\/b\"\n]\n")
        let broken = try Self.run(["reformat", "--minify"], stdin: #"{"a":[1,2"#)
        #expect(broken.status == 1)
        #expect(broken.stdout == #"{"a":[1,2"#)  // a well-formed prefix of the output
        let lines = "{\"a\":1,\"s\":\"x\\u0001\\\"é\"}\n[1,2.50,-0,1E+2]\n\"str\"\n{\"n\":null}\n"
        let array = try Self.run(["from-ndjson"], stdin: lines)
        #expect(array.stdout == "[" + lines.split(separator: "\n").joined(separator: ",") + "]\n")
        let back = try Self.run(["to-ndjson", "$[*]"], stdin: array.stdout)
        #expect(back.stdout == lines)
    }

    /// Every command the help lists runs under that name, and says so in its own help: the tool
    /// finds a command by a name in its table, and lists the name the command itself carries.
    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func helpForTheToolAndEachCommand() throws {
        let help = try Self.run(["--help"])
        #expect(help.status == 0)
        let listed = help.stdout.split(separator: "\n").drop { $0 != "commands:" }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(
            listed == [
                "validate", "events", "stats", "extract", "reformat", "to-ndjson", "from-ndjson", "split", "generate",
            ]
        )
        for command in listed {
            let commandHelp = try Self.run([command, "--help"])
            #expect(commandHelp.status == 0, "\(command)")
            #expect(commandHelp.stdout.hasPrefix("usage: yajl \(command) "), "\(command)")
        }
    }

    /// The help's two columns, padded by hand (FoundationEssentials has no `padding(toLength:)`).
    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func helpColumnsAreAligned() throws {
        let help = try Self.run(["--help"]).stdout
        let commands = help.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
        #expect(commands.count >= 7, "\(help)")
        for line in commands {
            let characters = Array(line)
            #expect(characters.count > 14 && characters[13] == " " && characters[14] != " ", "\(line)")
        }
        let options = try Self.run(["extract", "--help"]).stdout.split(separator: "\n").drop {
            $0 != "extract options:"
        }
        #expect(options.count > 3)
        for line in options.dropFirst() where line.hasPrefix("  ") {
            let characters = Array(line)
            #expect(characters.count > 30 && characters[29] == " " && characters[30] != " ", "\(line)")
        }
    }

    /// `extract --progress`: size, share, rate and records, redrawn on one line, ending with the
    /// whole file and every record.
    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func theProgressLineCountsBytesAndRecords() throws {
        let file = TemporaryFile("progress.json")
        defer { file.remove() }
        try DocumentGenerator.write(.records, targetBytes: 3 << 20, to: file.path)
        let run = try Self.run(["extract", "$.results[*]", file.path, "--progress"])
        #expect(run.status == 0)
        let records = run.stdout.split(separator: "\n").count
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        let mib = Double(size) / 1_048_576
        let last = try #require(run.stderr.split(separator: "\r").last.map(String.init))
        // "  3.0 MiB of 3.0 MiB (99%)   41 MB/s   15512 records", as printf's %.1f and %.0f write them.
        let expected = String(format: "  %.1f MiB of %.1f MiB (", mib, mib)
        #expect(last.hasPrefix(expected), "\(last.debugDescription) vs \(expected.debugDescription)")
        #expect(last.hasSuffix(" MB/s   \(records) records\u{1B}[K\n"), "\(last.debugDescription)")
        let fields = last.dropFirst(expected.count).split(separator: " ")
        #expect(fields.count == 5, "\(last.debugDescription)")
        let share = fields.first.flatMap { Int($0.dropLast(2)) } ?? -1
        #expect(fields.first?.hasSuffix("%)") == true && share >= 99 && share <= 100, "\(last.debugDescription)")
        #expect(fields.count > 1 && Int(fields[1]) != nil, "the rate: \(last.debugDescription)")
    }

    /// `split --out` where a directory cannot be made: the OS's reason, not an error dump.
    @Test(.enabled(if: executable != nil, "yajl executable not built"))
    func splitNamesWhyItsDirectoryCannotBeMade() throws {
        let file = TemporaryFile("not-a-directory")
        defer { file.remove() }
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let run = try Self.run(["split", "$[*]", "-", "--out", file.path + "/shards"], stdin: "[1]")
        #expect(run.status == 2)
        #expect(run.stderr.contains("cannot create --out \(file.path)/shards: Not a directory"), "\(run.stderr)")
    }
}

/// What a user of other command-line tools expects (issue 48).
@Suite("yajl as the tools users know")
struct ToolConventionTests {
    @Test(
        "--version and -V print the package's and libyajl's versions",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: ["--version", "-V"]
    )
    func version(flag: String) throws {
        let run = try ToolTests.run([flag])
        #expect(run.status == 0)
        #expect(run.stdout == "yajl \(SwiftYAJLVersion.package) (swift-yajl), libyajl \(SwiftYAJLVersion.yajl)\n")
        #expect(SwiftYAJLVersion.yajl.hasPrefix("2."))
    }

    /// Every failure the user can cause, across commands: stderr starts with `yajl: error: `.
    @Test(
        "every error starts with 'yajl: error: '",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: [
            ["nonsense"], ["validate", "/nonexistent/file.json"], ["stats", "--threads", "0"],
            ["extract"], ["extract", "$[", "-"], ["validate", "--max-depth", "x"], ["reformat", "--indent", "abc"],
            ["split", "$[*]", "-"], ["extract", "$.a", "-", "--require-match"], ["validate", "-", "--bogus"],
        ]
    )
    func oneErrorPrefix(arguments: [String]) throws {
        let run = try ToolTests.run(arguments, stdin: #"{"b": 1}"#)
        #expect(run.status != 0, "\(arguments)")
        #expect(run.stderr.hasPrefix("yajl: error: "), "\(arguments): \(run.stderr)")
    }

    @Test(
        "a parse error of NDJSON names --allow-multiple-values; --threads implies it",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func ndjsonHintAndThreads() throws {
        let ndjson = (0..<500).map { #"{"id": \#($0)}"# }.joined(separator: "\n") + "\n"
        let plain = try ToolTests.run(["validate", "-"], stdin: ndjson)
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("add --allow-multiple-values"), "\(plain.stderr)")
        let threads = try ToolTests.run(["stats", "-", "--threads", "2", "--block-size", "1K"], stdin: ndjson)
        #expect(threads.status == 0, "\(threads.stderr)")
        let extract = try ToolTests.run(["extract", "$.id", "-", "--threads", "2", "--quiet"], stdin: ndjson)
        #expect(extract.stdout == (0..<500).map { "\($0)\n" }.joined())
    }

    @Test(
        "each command's help lists its own options before the shared ones",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: ["validate", "events", "stats", "extract", "reformat", "to-ndjson", "from-ndjson", "split"]
    )
    func commandHelp(command: String) throws {
        let help = try ToolTests.run([command, "--help"]).stdout
        let own = try #require(help.range(of: "\n\(command) options:\n"), "\(help)")
        let shared = try #require(help.range(of: "\ninput, parser and HTTP options"), "\(help)")
        #expect(own.lowerBound < shared.lowerBound)
        #expect(help[shared.upperBound...].contains("--allow-comments"))
        #expect(!help[own.upperBound..<shared.lowerBound].contains("--allow-comments"))
    }

    @Test(
        "to-ndjson is extract's alias: the same bytes for the same query",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: ["$.results[*]", "$.results[*].name", "$..id", "$.nothing"]
    )
    func toNDJSONIsExtract(query: String) throws {
        let document =
            #"{"results": ["#
            + (0..<200).map { #"{"id": \#($0), "name": "n\#($0)", "x": [1.50, 2e3]}"# }.joined(separator: ",")
            + "]}"
        let extract = try ToolTests.run(["extract", query, "-", "--quiet"], stdin: document)
        let alias = try ToolTests.run(["to-ndjson", query, "-"], stdin: document)
        #expect(alias.stdout == extract.stdout)
        #expect(alias.status == extract.status)
        #expect(try ToolTests.run(["to-ndjson", "--help"]).stdout.contains("Alias of 'extract'"))
    }
}
