import Foundation
import Testing
import YAJLTestSupport

/// `yajl split` runs never mix: a killed run leaves nothing that looks finished, a second run
/// refuses what an earlier one left unless `--replace`, and no run deletes a file it did not
/// write.
@Suite("yajl split: runs never mix", .serialized)
struct SplitRunTests {
    static func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func records(_ count: Int, padding: Int = 0) -> String {
        let pad = String(repeating: "p", count: padding)
        return "[" + (0..<count).map { #"{"id":\#($0),"p":"\#(pad)"}"# }.joined(separator: ",") + "]"
    }

    /// Lines in the top-level shards of `directory` (what `DIR/part-*.ndjson` reads).
    static func shardLines(_ directory: String, prefix: String = "part") throws -> Int {
        try entries(directory).filter { $0.hasPrefix(prefix + "-") && $0.hasSuffix(".ndjson") }
            .map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8).split(separator: "\n").count }
            .reduce(0, +)
    }

    /// Starts `yajl split` reading from a pipe, sends it `first` bytes, waits until the staging
    /// folder holds a finished shard, and kills it (SIGKILL: nothing of the tool runs after).
    static func killedSplit(into out: String, document: String, first: Int) throws {
        let executable = try #require(ToolTests.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["split", "$[*]", "-", "--out", out, "--shard-size", "4K"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(document.utf8.prefix(first)))
        var waited = 0
        while waited < 2_000 {
            let staged = entries(out).filter { $0.hasPrefix(".yajl-split-") }
            if let folder = staged.first, entries(out + "/" + folder).contains(where: { $0.hasPrefix("part-") }) {
                break
            }
            usleep(5_000)
            waited += 1
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
    }

    @Test(
        "a killed split, then a second run: refused, then replaced with --replace",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func killedRunsAreNeverMistakenForFinishedOnes() throws {
        for round in 0..<4 {
            let out = ToolScaleOutTests.directory("split-killed-\(round)")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let big = Self.records(3_000, padding: 40 + 30 * round)
            try Self.killedSplit(into: out, document: big, first: big.utf8.count / (2 + round))
            // Nothing in DIR looks like a finished split.
            #expect(!Self.entries(out).contains("manifest.json"), "round \(round): \(Self.entries(out))")
            #expect(try Self.shardLines(out) == 0, "round \(round): shards in DIR after a kill")
            #expect(Self.entries(out).contains { $0.hasPrefix(".yajl-split-") }, "round \(round)")

            let small = Self.records(3)
            let again = try ToolTests.run(["split", "$[*]", "-", "--out", out], stdin: small)
            #expect(again.status == 2, "round \(round): \(again.stderr)")
            #expect(again.stderr.contains("unfinished split") && again.stderr.contains("--replace"), "\(again.stderr)")
            #expect(try Self.shardLines(out) == 0)

            let replaced = try ToolTests.run(["split", "$[*]", "-", "--out", out, "--replace"], stdin: small)
            #expect(replaced.status == 0, "round \(round): \(replaced.stderr)")
            #expect(try Self.shardLines(out) == 3, "round \(round): DIR/part-*.ndjson reads 3 records")
            #expect(Self.entries(out) == ["manifest.json", "part-00000.ndjson"], "round \(round)")
        }
    }

    /// (what DIR holds before, whether the split is refused without --replace).
    @Test(
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: [
            (["part-00000.ndjson"], true),
            (["part-00003.ndjson.gz", "notes.txt"], true),
            (["manifest.json"], true),
            ([".yajl-split-99999-0/"], true),
            (["part-1.json", "parts-00000.ndjson", "part-00000.ndjson.tmp", "notes.txt"], false),
            (["rows-00000.ndjson"], false),
        ]
    )
    func whatDIRHoldsDecidesTheRefusal(existing: [String], refused: Bool) throws {
        let out = ToolScaleOutTests.directory("split-existing")
        defer { try? FileManager.default.removeItem(atPath: out) }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for name in existing {
            if name.hasSuffix("/") {
                try FileManager.default.createDirectory(atPath: out + "/" + name, withIntermediateDirectories: true)
            } else {
                try "mine \(name)\n".write(toFile: out + "/" + name, atomically: false, encoding: .utf8)
            }
        }
        let run = try ToolTests.run(["split", "$[*]", "-", "--out", out], stdin: Self.records(5))
        let mine = existing.filter { !$0.hasSuffix("/") }
        if refused {
            #expect(run.status == 2, "\(existing): \(run.stderr)")
            #expect(run.stderr.contains("--replace"), "\(run.stderr)")
            // Untouched: the user's files as they were, nothing added.
            #expect(Self.entries(out) == existing.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.sorted())
            for name in mine {
                #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == "mine \(name)\n")
            }
            let replaced = try ToolTests.run(["split", "$[*]", "-", "--out", out, "--replace"], stdin: Self.records(5))
            #expect(replaced.status == 0, "\(replaced.stderr)")
            #expect(try Self.shardLines(out) == 5)
            #expect(!Self.entries(out).contains { $0.hasPrefix(".yajl-split-") })
        } else {
            #expect(run.status == 0, "\(existing): \(run.stderr)")
            #expect(try Self.shardLines(out) == 5)
        }
        // Files that are not the split's own stay, with or without --replace.
        for name in mine where !name.hasPrefix("part-0") && name != "manifest.json" {
            #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == "mine \(name)\n", "\(name)")
        }
    }

    @Test(
        "a failed split removes its own files and nothing else",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func aFailedSplitRemovesOnlyItsOwnFiles() throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<5 {
            let out = ToolScaleOutTests.directory("split-failed-\(round)")
            defer { try? FileManager.default.removeItem(atPath: out) }
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let userFiles = ["notes.txt", "part-1.json", "other-00000.ndjson"].filter { _ in Bool.random(using: &random)
            }
            for name in userFiles { try "mine\n".write(toFile: out + "/" + name, atomically: false, encoding: .utf8) }
            let text = Self.records(2_000, padding: 20)
            let broken = String(text.prefix(Int.random(in: 5_000..<text.utf8.count - 10, using: &random))) + "}"
            let run = try ToolTests.run(["split", "$[*]", "-", "--out", out, "--shard-size", "4K"], stdin: broken)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(Self.entries(out) == userFiles.sorted(), "round \(round)")
        }
    }
}
