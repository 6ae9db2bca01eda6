import Foundation
import Synchronization
import YAJL
import YAJLHTTP

let extractCommand = Command(
    name: "extract",
    summary: "Write the values selected by JSONPath, one per line (NDJSON).",
    usage: "JSONPATH... [FILE|-] [--limit N] [--allow-multiple-values] [--chunk-size N] [--progress|--quiet]",
    details: """
        Arguments starting with '$' are paths (several may be given; each value is written once, in
        document order); the other is the input. Values are minified, numbers exactly as in the input,
        strings JSON-escaped. Reading stops as soon as nothing more can match or --limit is reached.
        On invalid input the error and the number of values already written go to stderr (exit 1).
        A progress line (bytes, MB/s, records) is shown on stderr when it is a terminal.
        """,
    options: parserOptionSpecs + [
        .size("--limit", "stop after N values") { $0.values["--limit"] = String($1) },
        .flag("--progress", "show the progress line even when stderr is not a terminal") {
            $0.values["--progress"] = "1"
        },
        .flag("--quiet", "never show the progress line") { $0.values["--quiet"] = "1" },
    ],
    maxInputs: Int.max
) { settings in
    let paths = settings.inputs.filter { $0.hasPrefix("$") }
    let files = settings.inputs.filter { !$0.hasPrefix("$") }
    guard !paths.isEmpty else { throw UsageError(description: "extract needs a JSONPath, e.g. '$.results[*]'") }
    guard files.count <= 1 else {
        throw UsageError(description: "extract reads one input, got \(files.joined(separator: " "))")
    }
    var input = settings
    input.inputs = files

    var options = JSONRecordOptions(parser: settings.parser)
    options.limit = settings.values["--limit"].flatMap { Int($0) }
    let download = DownloadState()
    var http = settings.http
    http.onProgress = { download.update($0) }
    let (name, source) = inputSource(input, http: http)
    let reader: JSONRecordReader<JSONFragment>
    do {
        reader = try JSONRecordReader(JSONFragment.self, at: paths, from: source, options: options)
    } catch let error as JSONPathSyntaxError {
        throw UsageError(description: error.description)
    }

    let showProgress = settings.values["--quiet"] == nil && (settings.values["--progress"] != nil || isatty(2) != 0)
    let progress = showProgress ? ProgressLine(total: name == "stdin" ? nil : fileSize(name), download: download) : nil
    let out = OutputBuffer()
    var written = 0
    do {
        while let value = try reader.next() {
            try out.write(bytes: value.bytes)
            try out.write("\n")
            written += 1
            if written & 1023 == 0 { progress?.update(bytes: reader.report.bytesRead, records: written) }
        }
        try out.flush()
        progress?.finish(bytes: reader.report.bytesRead, records: written)
    } catch let error as JSONIOError where error.operation == .write {
        throw error
    } catch {
        try out.flush()
        progress?.finish(bytes: reader.report.bytesRead, records: written)
        standardError.write("yajl: \(written) value\(written == 1 ? "" : "s") written before the error\n")
        throw error
    }
    return ExitStatus.success
}

func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
}

/// The latest progress of an HTTP download, shared with the progress line.
final class DownloadState: Sendable {
    private let latest = Mutex<HTTPProgress?>(nil)
    func update(_ progress: HTTPProgress) { latest.withLock { $0 = progress } }
    var progress: HTTPProgress? { latest.withLock { $0 } }
}

/// `  128.0 MiB of 512.0 MiB (25%)   310 MB/s   1234567 records   1 resume`, redrawn on stderr at
/// most 5 times a second. For a download, the total is the `Content-Length`.
final class ProgressLine {
    private let fileTotal: Int?
    private let download: DownloadState
    private let start = Date()
    private var lastDraw = Date.distantPast

    init(total: Int?, download: DownloadState) {
        fileTotal = total
        self.download = download
    }

    private var total: Int? { fileTotal ?? download.progress?.expectedBytes }

    func update(bytes: Int, records: Int, force: Bool = false) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        let seconds = max(now.timeIntervalSince(start), 1e-6)
        var text = String(format: "\r  %.1f MiB", Double(bytes) / 1_048_576)
        if let total, total > 0 {
            text += String(format: " of %.1f MiB (%d%%)", Double(total) / 1_048_576, min(100, bytes * 100 / total))
        }
        text += String(format: "   %.0f MB/s   %d records", Double(bytes) / 1e6 / seconds, records)
        if let resumes = download.progress?.resumes, resumes > 0 {
            text += "   \(resumes) resume\(resumes == 1 ? "" : "s")"
        }
        text += "\u{1B}[K"
        standardError.write(text)
    }

    func finish(bytes: Int, records: Int) {
        update(bytes: bytes, records: records, force: true)
        standardError.write("\n")
    }
}
