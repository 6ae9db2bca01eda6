import Foundation
import YAJLFixtures

/// `make bench`: swift-yajl side by side with the C baseline and Foundation, in one run.
///
///     YAJLBenchmarks [--quick] [--large] [--json] [--report] [--rounds N] [--cases a,b] [--documents a,b]
///     YAJLBenchmarks --render Docs/perf-results.json
@main
struct YAJLBenchmarks {
    /// Runs the command line; an error (a bad argument, a missing tool, a failed child) is printed
    /// with the exit status 2, not raised to the top level as a trap.
    static func main() {
        do {
            try run()
        } catch {
            FileHandle.standardError.write(Data("YAJLBenchmarks: \(error)\n".utf8))
            exit(2)
        }
    }

    private static func run() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--child", arguments.count == 3 {
            try runChild(caseName: arguments[1], documentJSON: arguments[2])
            return
        }
        func flag(_ name: String) -> Bool {
            guard let index = arguments.firstIndex(of: name) else { return false }
            arguments.remove(at: index)
            return true
        }
        func value(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            defer { arguments.removeSubrange(index...index + 1) }
            return arguments[index + 1]
        }
        if flag("--help") || flag("-h") {
            print(
                """
                usage: YAJLBenchmarks [--quick] [--large] [--json] [--report] [--rounds N] [--cases a,b] [--documents a,b]
                  --quick      small documents, at most about 2 minutes on 2 cores
                  --large      add the 1 GiB records document (scaling)
                  --json       print the results as JSON instead of a table
                  --report     also write Docs/Performance.md and its two SVG charts
                  --rounds N   rounds per case (default 5)
                  --render F   write Docs/Performance.md and the charts again from the results F
                               (Docs/perf-results.json) of an earlier --report, measuring nothing
                cases: \(allCases.map(\.name).joined(separator: ", "))
                """
            )
            return
        }
        if let file = value("--render") {
            try render(resultsAt: file)
            return
        }
        let quick = flag("--quick")
        let large = flag("--large")
        let asJSON = flag("--json")
        let report = flag("--report")
        if quick { setenv("YAJL_BENCH_MIN_BYTES", String(8 << 20), 1) }
        var rounds = 5
        if let text = value("--rounds") {
            guard let count = Int(text), count > 0 else {
                throw BenchmarkError("--rounds wants a positive whole number, not \(text)")
            }
            rounds = count
        }
        let caseFilter = value("--cases").map { Set($0.split(separator: ",").map(String.init)) }
        if let unknown = caseFilter?.subtracting(allCases.map(\.name)).sorted(), !unknown.isEmpty {
            let known = allCases.map(\.name).joined(separator: ", ")
            throw BenchmarkError("unknown cases \(unknown); the cases are \(known)")
        }
        let documentFilter = value("--documents").map { $0.split(separator: ",").map(String.init) }
        guard arguments.isEmpty else { throw BenchmarkError("unknown arguments \(arguments) (see --help)") }
        let log: (String) -> Void = { FileHandle.standardError.write(Data(("bench: " + $0 + "\n").utf8)) }

        var documents = DocumentSet.corpus(log: log)
        let small = quick ? 16 : 64
        documents.append(try DocumentSet.generated(.records, mebibytes: small, log: log))
        if !quick { documents.append(try DocumentSet.generated(.records, mebibytes: 256, log: log)) }
        if large { documents.append(try DocumentSet.generated(.records, mebibytes: 1024, log: log)) }
        documents.append(try DocumentSet.generated(.ndjson, mebibytes: small, log: log))
        documents.append(try DocumentSet.generated(.numbers, mebibytes: small, log: log))
        documents.append(try DocumentSet.generated(.strings, mebibytes: small, log: log))
        documents.append(try DocumentSet.generated(.dates, mebibytes: small, log: log))
        if let documentFilter { documents = documents.filter { d in documentFilter.contains { d.name.contains($0) } } }
        let cases = allCases.filter { caseFilter?.contains($0.name) ?? true }

        let results = try measure(documents: documents, cases: cases, rounds: rounds, log: log)
        print(asJSON ? try Report.json(results) : Report.table(results))

        if report {
            // The command as run, so that a report of some documents or cases says which.
            let command = (["YAJLBenchmarks"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            let measured = Date()
            try writeReport(results, command: command, rounds: rounds, measured: measured)
            let file = ReportFile(command: command, rounds: rounds, measured: measured, results: results)
            try Report.json(file).write(toFile: "Docs/perf-results.json", atomically: true, encoding: .utf8)
            log("wrote Docs/Performance.md, Docs/perf-throughput.svg, Docs/perf-memory.svg, Docs/perf-results.json")
        }
    }

    /// Docs/Performance.md and its charts from `results`, measured at `measured`.
    static func writeReport(_ results: [Measurement], command: String, rounds: Int, measured: Date) throws {
        try Report.markdown(results, command: command, rounds: rounds, measured: measured).write(
            toFile: "Docs/Performance.md",
            atomically: true,
            encoding: .utf8
        )
        try Report.throughputChart(results).write(toFile: "Docs/perf-throughput.svg", atomically: true, encoding: .utf8)
        try Report.memoryChart(results).write(toFile: "Docs/perf-memory.svg", atomically: true, encoding: .utf8)
    }

    /// `--render`: the report again from the results of an earlier run, with that run's command,
    /// round count and date, for a change in how it is written, without measuring again.
    static func render(resultsAt path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let file: ReportFile
        if let saved = try? JSONDecoder.reportFile.decode(ReportFile.self, from: data) {
            file = saved
        } else {
            // A results file written before the command and rounds were kept in it: the rounds of
            // the documents of 16 MiB and more (smaller ones run three times as many), dated by the file.
            let results = try JSONDecoder.reportFile.decode([Measurement].self, from: data)
            let measured = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date ?? Date()
            let rounds = results.filter { $0.document.bytes >= 16 << 20 }.map(\.rounds.count).max() ?? 0
            file = ReportFile(command: "YAJLBenchmarks --report", rounds: rounds, measured: measured, results: results)
        }
        try writeReport(file.results, command: file.command, rounds: file.rounds, measured: file.measured)
        FileHandle.standardError.write(Data("bench: wrote Docs/Performance.md and its charts from \(path)\n".utf8))
    }
}

/// Docs/perf-results.json: a report's measurements with what `--render` needs to write the same
/// report again (the command as run, the rounds asked for, when it was measured).
struct ReportFile: Codable {
    let command: String
    let rounds: Int
    let measured: Date
    let results: [Measurement]
}

extension JSONDecoder {
    /// Reads Docs/perf-results.json (dates as ISO 8601).
    static var reportFile: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
