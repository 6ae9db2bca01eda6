import Synchronization
import YAJLCore
import YAJLHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let extractCommand = Command(
    name: "extract",
    summary: "Write the values selected by JSONPath, one per line (NDJSON).",
    usage:
        "JSONPATH... [FILE|-] [--order document|rfc] [--paths] [--require-match] [--limit N] [--allow-multiple-values] [--chunk-size N] [--progress|--quiet]",
    details: """
        Arguments starting with '$' are RFC 9535 JSONPath queries (filters, slices, unions and '..'
        included); the other is the input. Every value a query selects is written, as many times as
        the RFC's result has it; with several queries, each query's values (a value two queries
        select is written twice). Values come in the order they start in the document; with
        --order rfc, in the RFC's order (a query with a union or '..' then buffers the value it
        applies to, up to --max-buffered-bytes). With --paths each line is ["$['a'][0]",value],
        the value's normalized path and the value. Values are minified, numbers exactly as in the
        input, strings JSON-escaped. Reading stops as soon as nothing more can match or --limit is
        reached. When nothing matched, stderr says so (exit 0, or 1 with --require-match).
        On invalid input the error and the number of values already written go to stderr (exit 1).
        A progress line (bytes, MB/s, records) is shown on stderr when it is a terminal.
        """,
    options: parserOptionSpecs + [
        .size("--limit", "stop after N values") { $0.values["--limit"] = String($1) },
        OptionSpec(name: "--order", valueName: "document|rfc", help: "the order of the values (default document)") {
            settings,
            text in
            guard text == "document" || text == "rfc" else {
                throw UsageError(description: "--order is 'document' or 'rfc', not '\(text)'")
            }
            settings.values["--order"] = text
        },
        .flag("--paths", "write [normalized path, value] for each value") { $0.values["--paths"] = "1" },
        badLinesOptionSpec,
        .flag("--require-match", "exit 1 when no value matched") { $0.values["--require-match"] = "1" },
        .size("--max-buffered-bytes", "the most a query may buffer beyond its values (default 256 MiB)") {
            $0.values["--max-buffered-bytes"] = String($1)
        },
        .flag("--progress", "show the progress line even when stderr is not a terminal") {
            $0.values["--progress"] = "1"
        },
        .flag("--quiet", "never show the progress line") { $0.values["--quiet"] = "1" },
        .flag("--unordered", "with --threads: each block's values as soon as it is parsed (strict NDJSON)") {
            var parallel = $0.parallel ?? JSONParallelOptions()
            parallel.ordered = false
            $0.parallel = parallel
        },
    ] + parallelOptionSpecs,
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
    options.requireMatch = false  // the command reports "no value matched" itself
    options.limit = settings.values["--limit"].flatMap { Int($0) }
    if settings.values["--order"] == "rfc" { options.order = .rfc }
    if let bytes = settings.values["--max-buffered-bytes"].flatMap({ Int($0) }) { options.maxBufferedBytes = bytes }
    let writesPaths = settings.values["--paths"] != nil
    if settings.values["--bad-lines"] == "skip" { options.onBadLine = .skip }
    let download = DownloadState()
    var http = settings.http
    http.onProgress = { download.update($0) }
    let (name, source) = inputSource(input, http: http)
    let reader: JSONRecordReader<JSONFragment>
    do {
        if let parallel = try parallelOptions(settings) {
            reader = try JSONRecordReader(
                JSONFragment.self,
                at: paths,
                from: source,
                options: options,
                parallel: parallel
            )
        } else {
            reader = try JSONRecordReader(JSONFragment.self, at: paths, from: source, options: options)
        }
    } catch let error as JSONPathSyntaxError {
        throw UsageError(description: error.description)
    }

    let showProgress =
        settings.values["--quiet"] == nil && (settings.values["--progress"] != nil || Syscalls.isTerminal(2))
    let progress = showProgress ? ProgressLine(total: name == "stdin" ? nil : fileSize(name), download: download) : nil
    let out = OutputBuffer()
    let quoter = writesPaths ? PathQuoter() : nil
    var written = 0
    do {
        // Paths only when asked: `next()` skips building a JSONRecord (path, metadata) per value.
        while true {
            if let quoter {
                guard let record = try reader.nextRecord() else { break }
                try out.write("[")
                try out.write(bytes: quoter.quoted(record.path.normalized))
                try out.write(",")
                try out.write(bytes: record.value.bytes)
                try out.write("]\n")
            } else {
                guard let value = try reader.next() else { break }
                try out.write(bytes: value.bytes)
                try out.write("\n")
            }
            written += 1
            if written & 1023 == 0 { progress?.update(bytes: reader.report.bytesRead, records: written) }
        }
        try out.flush()
        progress?.finish(bytes: reader.report.bytesRead, records: written)
        reportBadLines(reader.report)
        if written == 0 {
            let what = paths.count == 1 ? paths[0] : "any of " + paths.joined(separator: " ")
            if settings.values["--require-match"] != nil {
                standardError.write("yajl: error: no value matched \(what)\n")
                return ExitStatus.noMatch
            }
            standardError.write("yajl: warning: no value matched \(what)\n")
        }
    } catch let error as JSONIOError where error.operation == .write {
        throw error
    } catch {
        try out.flush()
        progress?.finish(bytes: reader.report.bytesRead, records: written)
        standardError.write("yajl: note: \(written) value\(written == 1 ? "" : "s") written before the error\n")
        throw error
    }
    return ExitStatus.success
}

/// Paths as JSON string literals, escaped by one `yajl_gen` (a ``JSONWriter``) for the whole run:
/// a generator made per record cost more than the rest of the line.
final class PathQuoter {
    /// What the writer has written since the last `quoted(_:)`.
    private final class Collected {
        var bytes: [UInt8] = []
    }

    private let collected = Collected()
    private let writer: JSONWriter

    init() {
        let collected = self.collected
        writer = JSONWriter(to: .closure { collected.bytes.append(contentsOf: $0) })
        writer.allowMultipleValues(separator: "")
    }

    /// `text` as a JSON string literal, in UTF-8.
    func quoted(_ text: String) throws -> [UInt8] {
        collected.bytes.removeAll(keepingCapacity: true)
        try writer.string(text)
        try writer.flush()
        return collected.bytes
    }
}

func fileSize(_ path: String) -> Int? {
    Syscalls.fileSize(atPath: path)
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
        var text = "\r  \(fixed(Double(bytes) / 1_048_576, digits: 1)) MiB"
        if let total, total > 0 {
            text += " of \(fixed(Double(total) / 1_048_576, digits: 1)) MiB (\(min(100, bytes * 100 / total))%)"
        }
        text += "   \(fixed(Double(bytes) / 1e6 / seconds, digits: 0)) MB/s   \(records) records"
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
