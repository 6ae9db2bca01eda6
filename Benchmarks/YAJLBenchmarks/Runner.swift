import Foundation
import YAJL

/// What one child process reports for one run of one case.
struct ChildReport: Codable {
    let seconds: Double
    let bytes: Int
    let checksum: Int
    let peakBytes: Int
}

/// All rounds of one case on one document.
struct Measurement: Codable {
    let document: BenchmarkDocument
    let caseName: String
    let group: String
    var rounds: [ChildReport] = []
    var skipped: String?

    /// Median throughput in MB/s (10^6 bytes per second).
    var medianMBps: Double? {
        guard !rounds.isEmpty else { return nil }
        let rates = rounds.map { Double($0.bytes) / $0.seconds / 1e6 }.sorted()
        return rates.count % 2 == 1 ? rates[rates.count / 2] : (rates[rates.count / 2 - 1] + rates[rates.count / 2]) / 2
    }

    /// The largest peak RSS of the rounds, in bytes.
    var peakBytes: Int? { rounds.map(\.peakBytes).max() }
}

/// Reads the file at `path` once, untimed, 64 KiB at a time into one buffer, so that every case
/// starts with the document in the page cache: the machine may have dropped pages of it since the
/// last round (it reclaims cold memory), and a case would then time the disk instead of the parse.
/// The buffer adds 64 KiB to the child's peak at most. Read by the library's own `FileByteSource`
/// (its reads retry on EINTR); a file that cannot be read is left to the case to report.
func readThrough(_ path: String) {
    var source = FileByteSource(path: path)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    while let count = try? source.read(into: buffer), count > 0 {}
}

/// Runs a case once in this process (we are the child) and prints a `ChildReport`.
func runChild(caseName: String, documentJSON: String) throws {
    let document = try JSONDecoder().decode(BenchmarkDocument.self, from: Data(documentJSON.utf8))
    guard let benchmark = allCases.first(where: { $0.name == caseName }) else {
        throw BenchmarkError("unknown case \(caseName)")
    }
    // Small documents are parsed repeatedly so a round lasts long enough to time (≥ 32 MiB of
    // input; 8 MiB with --quick, which the parent passes down in YAJL_BENCH_MIN_BYTES).
    let minimum = Int(ProcessInfo.processInfo.environment["YAJL_BENCH_MIN_BYTES"] ?? "") ?? 32 << 20
    let repeats = max(1, minimum / max(1, document.bytes))
    var checksum = 0
    readThrough(document.path)
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<repeats { checksum &+= try benchmark.run(document) }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    // A case that runs an external program (json_reformat) reports that program's peak instead.
    var peak = peakRSS()
    if let text = try? String(contentsOfFile: externalPeakFile, encoding: .utf8),
        let kib = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
        peak = kib * 1024
        try? FileManager.default.removeItem(atPath: externalPeakFile)
    }
    let report = ChildReport(
        seconds: seconds,
        bytes: document.bytes * repeats,
        checksum: checksum / repeats,
        peakBytes: peak
    )
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

/// This process's peak RSS (`VmHWM` from /proc/self/status), in bytes.
func peakRSS() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

/// Runs every case on every document in interleaved rounds (A B C A B C …), each run in a fresh
/// child process, so that machine drift spreads over all cases alike. Documents under 16 MiB get
/// three times the rounds: a round there lasts a tenth of a second, where one burst of the shared
/// machine's other work moves a median of five by a third.
func measure(
    documents: [BenchmarkDocument],
    cases: [BenchmarkCase],
    rounds: Int,
    log: (String) -> Void
) throws -> [Measurement] {
    var results: [Measurement] = []
    for document in documents {
        var measurements = cases.map {
            Measurement(document: document, caseName: $0.name, group: $0.group, skipped: $0.skipReason(document))
        }
        for measurement in measurements where measurement.skipped != nil && measurement.group != "records" {
            log("  \(document.name) / \(measurement.caseName): skipped — \(measurement.skipped!)")
        }
        let documentRounds = document.bytes < 16 << 20 ? rounds * 3 : rounds
        log(
            "\(document.name) (\(document.bytes >> 20) MiB): \(documentRounds) rounds of \(measurements.filter { $0.skipped == nil }.count) cases"
        )
        for _ in 0..<documentRounds {
            for index in measurements.indices where measurements[index].skipped == nil {
                measurements[index].rounds.append(
                    try runInChild(caseName: measurements[index].caseName, document: document)
                )
            }
        }
        // The counting cases must agree on the number of events (the others count other things).
        let counting: Set<String> = ["c-counting", "events-borrowed", "events-paths", "events-owned"]
        let checksums = Dictionary(
            grouping: measurements.filter { counting.contains($0.caseName) && !$0.rounds.isEmpty }
        ) {
            $0.rounds[0].checksum
        }
        if checksums.count > 1 {
            log(
                "  warning: event counts differ between cases on \(document.name): \(checksums.mapValues { $0.map(\.caseName) })"
            )
        }
        results += measurements
    }
    return results
}

private func runInChild(caseName: String, document: BenchmarkDocument) throws -> ChildReport {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["--child", caseName, String(decoding: try JSONEncoder().encode(document), as: UTF8.self)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let line = String(data: data, encoding: .utf8)?.split(separator: "\n").last
    else {
        throw BenchmarkError("case \(caseName) failed on \(document.name) (exit \(process.terminationStatus))")
    }
    return try JSONDecoder().decode(ChildReport.self, from: Data(line.utf8))
}
