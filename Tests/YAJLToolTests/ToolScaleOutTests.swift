import Foundation
import Testing
import YAJLFixtures
import YAJLTestSupport

/// `yajl split` (NDJSON shards and a manifest, read back by DuckDB) and `--threads` (NDJSON on
/// several cores), run as a user runs them.
@Suite("yajl split and --threads", .serialized)
struct ToolScaleOutTests {
    static let records: String = {
        let file = TemporaryFile("split-records.json")
        _ = try? DocumentGenerator.write(.records, targetBytes: 2 << 20, to: file.path)
        return file.path
    }()

    static func directory(_ name: String) -> String { TemporaryFile(name).path }

    static func shardNames(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("part-") }
            .sorted()
    }

    static func manifest(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The shards' lines, in order (gunzipped with --gzip).
    static func joined(_ directory: String) throws -> String {
        var text = ""
        for name in shardNames(directory) {
            let path = directory + "/" + name
            if name.hasSuffix(".gz") {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/gzip")
                process.arguments = ["-dc", path]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                text += String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "gzip -t \(name)")
            } else {
                text += try String(contentsOfFile: path, encoding: .utf8)
            }
        }
        return text
    }

    @Test(
        "shards re-joined are the selection, none over the size, counted in the manifest",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built"),
        arguments: [false, true]
    )
    func shardsRejoinedEqualTheSelection(gzip: Bool) throws {
        let out = Self.directory("split")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let size = 100 << 10
        let run = try ToolTests.run(
            ["split", "$.results[*]", Self.records, "--out", out, "--shard-size", "100K"] + (gzip ? ["--gzip"] : [])
        )
        #expect(run.status == 0, "\(run.stderr)")
        let selection = try ToolTests.run(["extract", "$.results[*]", Self.records, "--quiet"])
        #expect(try Self.joined(out) == selection.stdout)
        let names = Self.shardNames(out)
        #expect(names.count > 15)  // sized by uncompressed bytes, with --gzip too
        #expect(names.first == (gzip ? "part-00000.ndjson.gz" : "part-00000.ndjson"))
        let manifest = try Self.manifest(out)
        let shards = try #require(manifest["shards"] as? [[String: Any]])
        #expect(shards.map { $0["name"] as? String } == names)
        let lines = selection.stdout.split(separator: "\n").count
        #expect(manifest["records"] as? Int == lines)
        #expect(shards.reduce(0) { $0 + ($1["records"] as? Int ?? 0) } == lines)
        for (index, shard) in shards.enumerated() {
            let name = try #require(shard["name"] as? String)
            let onDisk = try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.size] as? Int
            #expect(shard["file_bytes"] as? Int == onDisk)
            // Shards never pass the size in NDJSON bytes (uncompressed), gzip or not, and the
            // next record would have.
            let bytes = try #require(shard["bytes"] as? Int)
            #expect(bytes <= size, "\(name): \(bytes) bytes")
            if index < shards.count - 1 { #expect(bytes > size - 4096, "\(name): \(bytes) bytes") }
            if gzip { #expect((onDisk ?? .max) < bytes / 2) } else { #expect(onDisk == bytes) }
        }
        let validator = try #require(manifest["validator"] as? [String: Any])
        let sourceSize = try #require(try FileManager.default.attributesOfItem(atPath: Self.records)[.size] as? Int)
        #expect(validator["size"] as? Int == sourceSize)  // a number, not a string
        #expect(manifest["source_bytes"] as? Int == sourceSize)  // the closing bytes included
        #expect(validator["modified"] != nil)
        #expect(manifest["query"] as? String == "$.results[*]")
    }

    @Test(
        "a single huge array, a record larger than a shard, and invalid input",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func arraysBigRecordsAndErrors() throws {
        let array = TemporaryFile("split-array.json")
        defer { array.remove() }
        let big = String(repeating: "x", count: 5000)
        let text =
            "[" + (0..<3000).map { $0 == 10 ? #"{"id":10,"s":"\#(big)"}"# : #"{"id":\#($0)}"# }.joined(separator: ",")
            + "]"
        try text.write(toFile: array.path, atomically: true, encoding: .utf8)
        let out = Self.directory("split-array")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try ToolTests.run([
            "split", "$[*]", array.path, "--out", out, "--shard-size", "4K", "--prefix", "rows",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { $0.hasPrefix("rows-") }
            .sorted()
        let contents = try names.map { try String(contentsOfFile: out + "/" + $0, encoding: .utf8) }
        #expect(contents.joined().split(separator: "\n").count == 3000)
        #expect(contents.contains { $0 == #"{"id":10,"s":"\#(big)"}"# + "\n" }, "the big record is a shard of its own")
        // A second split into the same directory is refused.
        let again = try ToolTests.run(["split", "$[*]", array.path, "--out", out])
        #expect(again.status == 2)
        #expect(again.stderr.contains("already holds a split"))
        // Invalid input: exit 1, and no shard is left behind.
        let broken = TemporaryFile("split-broken.json")
        defer { broken.remove() }
        try (String(text.dropLast(200)) + "}").write(toFile: broken.path, atomically: true, encoding: .utf8)
        let failedOut = Self.directory("split-broken")
        defer { try? FileManager.default.removeItem(atPath: failedOut) }
        let failed = try ToolTests.run(["split", "$[*]", broken.path, "--out", failedOut, "--shard-size", "4K"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("line 1, column"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: failedOut)) ?? []).isEmpty)
        #expect(try ToolTests.run(["split", "$[*]", array.path]).status == 2)  // no --out
    }

    /// Installs a Python engine with `installer` (a script that prints its PYTHONPATH), splits
    /// the records document into 256 KiB shards, plain and gzip, and runs `checker` (a script
    /// given DIR, SOURCE and `results`) over each: its standard output, parsed. `nil`, having
    /// said so, when the engine cannot be installed from PyPI.
    static func readShards(
        with engine: String,
        installer: String,
        checker: String
    ) throws -> [(
        gzip: Bool, answer: [String: Any]
    )]? {
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: "/bin/bash")
        setup.arguments = [SharedMaterial.packageRoot.appendingPathComponent("scripts/\(installer)").path]
        let output = Pipe()
        setup.standardOutput = output
        try setup.run()
        let directory = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        setup.waitUntilExit()
        guard setup.terminationStatus == 0, !directory.isEmpty else {
            print(
                "⚠️  SKIPPING the \(engine) check of yajl split: \(engine) could not be installed from PyPI (scripts/\(installer))"
            )
            return nil
        }
        var answers: [(gzip: Bool, answer: [String: Any])] = []
        for gzip in [false, true] {
            let out = Self.directory("split-\(engine)")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try ToolTests.run(
                ["split", "$.results[*]", Self.records, "--out", out, "--shard-size", "256K"] + (gzip ? ["--gzip"] : [])
            )
            #expect(run.status == 0, "\(run.stderr)")
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            check.arguments = [
                "python3", SharedMaterial.packageRoot.appendingPathComponent("scripts/\(checker)").path, out,
                Self.records, "results",
            ]
            check.environment = ProcessInfo.processInfo.environment.merging(["PYTHONPATH": directory]) { $1 }
            let result = Pipe()
            check.standardOutput = result
            try check.run()
            let data = result.fileHandleForReading.readDataToEndOfFile()
            check.waitUntilExit()
            #expect(check.terminationStatus == 0, "\(engine), gzip: \(gzip)")
            let answer = try #require(
                JSONSerialization.jsonObject(with: data) as? [String: Any],
                "\(String(decoding: data, as: UTF8.self))"
            )
            answers.append((gzip, answer))
        }
        return answers
    }

    @Test(
        "DuckDB reads the shards: the source's count and sums",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func duckDBReadsTheShards() throws {
        guard
            let answers = try Self.readShards(
                with: "DuckDB",
                installer: "install-duckdb.sh",
                checker: "duckdb-shards.py"
            )
        else { return }
        for (gzip, answer) in answers {
            let duckdb = try #require(answer["duckdb"] as? [Double])
            #expect(duckdb == answer["source"] as? [Double], "gzip: \(gzip)")
            #expect((duckdb.first ?? 0) > 5000)
        }
    }

    @Test(
        "dask.distributed reads the manifest's shards on two worker processes",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func daskDistributedReadsTheShards() throws {
        if let sanitizer = ProcessInfo.processInfo.environment["YAJL_SANITIZER"] {
            // What this adds under a sanitizer is Dask's side; the sanitized split is checked above.
            print("⚠️  SKIPPING the dask.distributed check under the \(sanitizer) sanitizer: it runs in make test")
            return
        }
        guard let answers = try Self.readShards(with: "Dask", installer: "install-dask.sh", checker: "dask-shards.py")
        else { return }
        for (gzip, answer) in answers {
            let dask = try #require(answer["dask"] as? [Double])
            #expect(dask == answer["source"] as? [Double], "gzip: \(gzip)")
            #expect((dask.first ?? 0) > 5000)
            #expect(answer["workers"] as? Int == 2)
            #expect(answer["workers_that_ran_tasks"] as? Int == 2)
            #expect((answer["shards"] as? Int ?? 0) > 4)
        }
    }

    @Test(
        "--threads gives the serial output and errors, and says what it needs",
        .enabled(if: ToolTests.executable != nil, "yajl executable not built")
    )
    func threadsEqualSerial() throws {
        let ndjson = TemporaryFile("threads.ndjson")
        defer { ndjson.remove() }
        try DocumentGenerator.write(.ndjson, targetBytes: 1 << 20, to: ndjson.path)
        var lines = try String(contentsOfFile: ndjson.path, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        for command in [
            ["stats"], ["validate"], ["extract", "$.address.city", "--paths"],
            ["extract", "$.id", "--bad-lines", "skip"],
        ] {
            let serial = try ToolTests.run(command + [ndjson.path, "--allow-multiple-values"])
            for threads in ["1", "2", "4"] {
                let parallel = try ToolTests.run(
                    command + [ndjson.path, "--allow-multiple-values", "--threads", threads, "--block-size", "4K"]
                )
                #expect(parallel.status == serial.status)
                #expect(parallel.stdout == serial.stdout, "\(command) --threads \(threads)")
            }
        }
        // --unordered: the same values, in any block order.
        let serialIDs = try ToolTests.run(["extract", "$.id", ndjson.path, "--allow-multiple-values", "--quiet"])
        let unordered = try ToolTests.run(
            [
                "extract", "$.id", ndjson.path, "--allow-multiple-values", "--threads", "3", "--block-size", "4K",
                "--unordered", "--quiet",
            ]
        )
        #expect(unordered.status == 0, "\(unordered.stderr)")
        #expect(unordered.stdout.split(separator: "\n").sorted() == serialIDs.stdout.split(separator: "\n").sorted())
        lines[3000] = #"{"id": 3000, "name": nope}"#
        let broken = TemporaryFile("threads-broken.ndjson")
        defer { broken.remove() }
        try lines.joined(separator: "\n").write(toFile: broken.path, atomically: true, encoding: .utf8)
        for command in [["stats"], ["validate"], ["extract", "$.id"]] {
            let serial = try ToolTests.run(command + [broken.path, "--allow-multiple-values"])
            let parallel = try ToolTests.run(
                command + [broken.path, "--allow-multiple-values", "--threads", "3", "--block-size", "2K"]
            )
            #expect(serial.status == 1)
            #expect(parallel.status == 1)
            #expect(parallel.stderr == serial.stderr, "\(command)")
            #expect(parallel.stderr.contains("line 3001"))
            #expect(parallel.stdout == serial.stdout)
        }
        // --threads implies --allow-multiple-values.
        let implied = try ToolTests.run(["stats", ndjson.path, "--threads", "2"])
        #expect(implied.stdout == (try ToolTests.run(["stats", ndjson.path, "--allow-multiple-values"])).stdout)
        #expect(try ToolTests.run(["stats", ndjson.path, "--allow-multiple-values", "--threads", "0"]).status == 2)
        #expect(
            try ToolTests.run(["stats", ndjson.path, "--allow-multiple-values", "--threads", "2", "--block-size", "10"])
                .stderr.contains("--block-size is 10")
        )
    }
}

extension ToolScaleOutTests {
    @Test(
        "--segments reads a URL over several connections, in order",
        .enabled(if: ToolTests.executable != nil && TestHTTPServer.python != nil, "yajl or python3 missing")
    )
    func segmentsFromTheCommandLine() throws {
        let server = try TestHTTPServer(serving: Self.records, ["--drop-after", "200000", "--drops", "2"])
        defer { server.stop() }
        let local = try ToolTests.run(["extract", "$.results[*].id", Self.records, "--quiet"])
        let remote = try ToolTests.run(
            [
                "extract", "$.results[*].id", server.url.absoluteString, "--quiet", "--segments", "3", "--segment-size",
                "256K",
            ]
        )
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stdout == local.stdout)
        #expect(server.requests.count > 8)
        // A split of a URL names its validator, read over one connection or several.
        for flags in [[], ["--segments", "2", "--segment-size", "512K"]] {
            let out = Self.directory("split-url")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let split = try ToolTests.run(
                ["split", "$.results[*].id", server.url.absoluteString, "--out", out] + flags
            )
            #expect(split.status == 0, "\(split.stderr)")
            #expect(try Self.joined(out) == local.stdout)
            let validator = try #require(try Self.manifest(out)["validator"] as? [String: Any])
            #expect((validator["etag"] as? String)?.hasPrefix("\"v1-") == true, "\(flags)")
            #expect(validator["last_modified"] != nil)
        }
        let bad = try ToolTests.run(["stats", server.url.absoluteString, "--segments", "0"])
        #expect(bad.status == 2)
        #expect(
            try ToolTests.run(["stats", server.url.absoluteString, "--segment-size", "1K"]).stderr.contains("from 64K")
        )
    }
}

extension ToolScaleOutTests {
    @Test(
        "a download killed at a random point resumes from the cache: the file's records, the rest by range only",
        .enabled(if: ToolTests.executable != nil && TestHTTPServer.python != nil, "yajl or python3 missing"),
        arguments: [0, 1, 2]
    )
    func killedDownloadResumesFromTheCache(round: Int) throws {
        let document = TestHTTPServer.document.path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: document)[.size] as? Int)
        let server = try TestHTTPServer(serving: document, ["--throttle", "3000000"])
        defer { server.stop() }
        let cache = Self.directory("cache")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let arguments = ["extract", "$.results[*].id", server.url.absoluteString, "--cache", cache, "--quiet"]
        let process = Process()
        process.executableURL = ToolTests.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let delay = 0.7 + Double.random(in: 0...1.2) + Double(round) * 0.1
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed after \(delay) s")
        let meta = try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasSuffix(".meta") }
        let spooled: Int =
            try meta.map { name in
                let data = try Data(contentsOf: URL(fileURLWithPath: cache + "/" + name))
                return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["complete_bytes"] as? Int ?? 0
            } ?? 0
        let before = server.requests.count
        let rerun = try ToolTests.run(arguments)
        let local = try ToolTests.run(["extract", "$.results[*].id", document, "--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout == local.stdout, "killed after \(delay) s with \(spooled) bytes spooled")
        let again = Array(server.requests.dropFirst(before))
        let sent = server.sent.last
        print(
            "cache: killed after \(String(format: "%.2f", delay)) s, \(spooled) of \(size) bytes spooled; rerun asked \(again)"
        )
        #expect(again.count == 1)
        if spooled > 0 {
            #expect(again.first?.contains("Range=bytes=\(spooled)-") == true)
            #expect(again.first?.contains("If-Range=\"v1-") == true)
            #expect(sent?.start == spooled)
            #expect(rerun.stderr.contains("from byte \(spooled)"))
        }
        #expect((sent?.bytes ?? 0) + spooled >= size - 2)  // the early stop may leave the last bytes unread
    }
}
