import Foundation
import YAJLFixtures

/// Formats results: the stdout table, JSON, and Docs/Performance.md with two SVG charts.
enum Report {
    static let baselineCase = "c-counting"

    static func ratio(_ m: Measurement, in all: [Measurement]) -> Double? {
        guard let rate = m.medianMBps,
            let base = all.first(where: { $0.document.name == m.document.name && $0.caseName == baselineCase })?
                .medianMBps
        else { return nil }
        return rate / base
    }

    static func table(_ results: [Measurement]) -> String {
        var lines = ["| document | case | MB/s (median) | × C counting | peak RSS (MiB) |", "|---|---|---:|---:|---:|"]
        for m in results {
            if let reason = m.skipped {
                lines.append("| \(m.document.name) | \(m.caseName) | skipped: \(reason) | | |")
                continue
            }
            let rate = m.medianMBps.map { String(format: "%.1f", $0) } ?? "-"
            let r = ratio(m, in: results).map { String(format: "%.2f", $0) } ?? "-"
            let peak = m.peakBytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "-"
            lines.append("| \(m.document.name) | \(m.caseName) | \(rate) | \(r) | \(peak) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The targets of the issues, computed from the results.
    static func targets(_ results: [Measurement]) -> String {
        func find(_ document: String, _ name: String) -> Measurement? {
            results.first { $0.document.name == document && $0.caseName == name && $0.skipped == nil }
        }
        var lines: [String] = []
        let paths = results.filter { $0.caseName == "events-paths" }.compactMap { m in
            ratio(m, in: results).map { (m.document.name, $0) }
        }
        if let worst = paths.min(by: { $0.1 < $1.1 }) {
            lines.append(
                String(
                    format:
                        "- Typed events with paths vs C counting: %.2f× at worst (%@), %.2f× at best — target ≥ 0.8×.",
                    worst.1,
                    worst.0,
                    paths.map(\.1).max() ?? 0
                )
            )
        }
        for document in uniqued(results.map(\.document.name)) where document.hasPrefix("records") {
            guard let ours = find(document, "events-paths")?.medianMBps,
                let counting = find(document, "c-counting")?.medianMBps
            else { continue }
            lines.append(
                String(
                    format: "- %@: typed events with paths take %.2f× the C counter's time (target ≤ 1.10×).",
                    document,
                    counting / ours
                )
            )
        }
        for document in uniqued(results.map(\.document.name)) {
            guard let ours = find(document, "validate")?.medianMBps,
                let verify = find(document, "c-verify")?.medianMBps
            else { continue }
            lines.append(
                String(
                    format:
                        "- %@: validate %.1f MB/s vs libyajl without callbacks (json_verify's engine) %.1f MB/s: %.2f× its time (target ≤ 1.10×).",
                    document,
                    ours,
                    verify,
                    verify / ours
                )
            )
        }
        if let paths = find("canada.json", "events-paths")?.medianMBps,
            let counting = find("canada.json", "c-counting")?.medianMBps,
            let noop = find("canada.json", "c-noop")?.medianMBps
        {
            lines.append(
                String(
                    format:
                        "- canada.json typed events with paths: %.2f× C counting (target ≥ 2×), %.2f× C with no-op callbacks (target ≥ 0.6×).",
                    paths / counting,
                    paths / noop
                )
            )
        }
        for document in uniqued(results.map(\.document.name)) {
            guard let ours = find(document, "geojson-decodable")?.medianMBps,
                let theirs = find(document, "foundation-geojson")?.medianMBps
            else { continue }
            let single = find(document, "geojson-decodable-1t")?.medianMBps
            lines.append(
                String(
                    format:
                        "- %@ into typed GeoJSON (`[[[Double]]]` coordinates): %.1f MB/s vs JSONDecoder %.1f MB/s = %.1f×; on one thread %@.",
                    document,
                    ours,
                    theirs,
                    ours / theirs,
                    single.map { String(format: "%.1f MB/s = %.1f×", $0, $0 / theirs) } ?? "not measured"
                )
            )
        }
        for document in uniqued(results.map(\.document.name)) {
            guard let ours = find(document, "geojson-positions-1t")?.medianMBps,
                let theirs = find(document, "foundation-geojson-positions")?.medianMBps
            else { continue }
            lines.append(
                String(
                    format:
                        "- %@ with each point a struct read through an unkeyed container (`[[Position]]`), one thread: %.1f MB/s vs JSONDecoder %.1f MB/s = %.1f×.",
                    document,
                    ours,
                    theirs,
                    ours / theirs
                )
            )
        }
        for document in uniqued(results.map(\.document.name)) {
            guard let records = find(document, "records-decodable"), let decoder = find(document, "foundation-decoder"),
                let r = records.medianMBps, let d = decoder.medianMBps, let rp = records.peakBytes,
                let dp = decoder.peakBytes
            else { continue }
            lines.append(
                String(
                    format:
                        "- %@: Decodable records %.1f MB/s vs JSONDecoder %.1f MB/s = %.1f× (target ≥ 6×); peak %.1f vs %.1f MiB = 1/%.1f (target < 1/20).",
                    document,
                    r,
                    d,
                    r / d,
                    Double(rp) / 1_048_576,
                    Double(dp) / 1_048_576,
                    Double(dp) / Double(rp)
                )
            )
            if let single = find(document, "records-decodable-1t")?.medianMBps {
                lines.append(
                    String(
                        format:
                            "  On one thread (`parsesConcurrently` off): %.1f MB/s = %.1f× JSONDecoder (target ≥ 4×).",
                        single,
                        single / d
                    )
                )
            }
            if let async = find(document, "records-async")?.medianMBps {
                lines.append(
                    String(
                        format: "  Through `JSONRecords` in a task (`for try await`): %.1f MB/s = %.1f× JSONDecoder.",
                        async,
                        async / d
                    )
                )
            }
        }
        for document in uniqued(results.map(\.document.name)) {
            guard let ours = find(document, "writer-minify")?.medianMBps,
                let theirs = find(document, "json_reformat-m")?.medianMBps
            else { continue }
            lines.append(
                String(
                    format:
                        "- %@: parse + minify %.1f MB/s vs json_reformat -m %.1f MB/s: %.2f× its time (target ≤ 1.15×).",
                    document,
                    ours,
                    theirs,
                    theirs / ours
                )
            )
        }
        let scaling = results.filter {
            $0.document.kind == "records" && $0.caseName == "events-paths" && $0.peakBytes != nil
        }
        if scaling.count > 1, let low = scaling.min(by: { $0.document.bytes < $1.document.bytes }),
            let high = scaling.max(by: { $0.document.bytes < $1.document.bytes })
        {
            lines.append(
                String(
                    format: "- Peak memory of events-paths from %@ to %@: %.1f → %.1f MiB (target: within 8 MiB).",
                    low.document.name,
                    high.document.name,
                    Double(low.peakBytes!) / 1_048_576,
                    Double(high.peakBytes!) / 1_048_576
                )
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Results (or a ``ReportFile``) as pretty-printed JSON with sorted keys, dates in ISO 8601.
    static func json(_ results: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(results), as: UTF8.self)
    }

    // MARK: SVG

    /// The distinct elements in first-seen order.
    static func uniqued(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    /// One distinct colour per case (13 cases today; more cycle).
    static let palette = [
        "#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
        "#17becf", "#393b79", "#e7ba52", "#843c39", "#3182bd", "#31a354",
    ]

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }

    /// Grouped horizontal bars: one group per document, one bar per case, length = ratio to C counting.
    static func throughputChart(_ results: [Measurement]) -> String {
        let cases = uniqued(results.map(\.caseName))
        let documents = uniqued(results.map(\.document.name))
        let barHeight = 9.0
        let groupGap = 14.0
        let left = 190.0
        let width = 760.0
        let plotWidth = 500.0
        let maxRatio = max(1.5, results.compactMap { ratio($0, in: results) }.max() ?? 1.5)
        let groupHeight = Double(cases.count) * barHeight + groupGap
        let height = 60 + Double(documents.count) * groupHeight + 20 * Double(cases.count) / 2 + 30
        var svg =
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(width))" height="\##(Int(height))" font-family="sans-serif" font-size="11">"##
        svg += ##"<rect width="100%" height="100%" fill="white"/>"##
        svg +=
            ##"<text x="10" y="20" font-size="14" font-weight="bold">Throughput relative to the C counting baseline (higher is better)</text>"##
        let x1 = left + plotWidth / maxRatio
        svg +=
            ##"<line x1="\##(x1)" y1="30" x2="\##(x1)" y2="\##(40 + Double(documents.count) * groupHeight)" stroke="#333" stroke-dasharray="4,3"/>"##
        svg += ##"<text x="\##(x1 + 3)" y="38">1.0 = C</text>"##
        for (d, document) in documents.enumerated() {
            let top = 45 + Double(d) * groupHeight
            svg +=
                ##"<text x="\##(left - 8)" y="\##(top + Double(cases.count) * barHeight / 2 + 4)" text-anchor="end">\##(escape(document))</text>"##
            for (c, name) in cases.enumerated() {
                guard let m = results.first(where: { $0.document.name == document && $0.caseName == name }),
                    let r = ratio(m, in: results)
                else { continue }
                let y = top + Double(c) * barHeight
                svg +=
                    ##"<rect x="\##(left)" y="\##(y)" width="\##(plotWidth * r / maxRatio)" height="\##(barHeight - 1)" fill="\##(palette[c % palette.count])"/>"##
                svg +=
                    ##"<text x="\##(left + plotWidth * r / maxRatio + 3)" y="\##(y + barHeight - 1)" font-size="8">\##(String(format: "%.2f", r))</text>"##
            }
        }
        var legendY = 50 + Double(documents.count) * groupHeight
        for (c, name) in cases.enumerated() {
            let x = 10 + Double(c % 2) * 370
            if c % 2 == 0 && c > 0 { legendY += 16 }
            svg +=
                ##"<rect x="\##(x)" y="\##(legendY - 9)" width="10" height="10" fill="\##(palette[c % palette.count])"/>"##
            svg += ##"<text x="\##(x + 14)" y="\##(legendY)">\##(escape(name))</text>"##
        }
        return svg + "</svg>\n"
    }

    /// Peak RSS against document size for the generated records documents, one line per case.
    static func memoryChart(_ results: [Measurement]) -> String {
        let records = results.filter { $0.document.kind == "records" && $0.peakBytes != nil }
        let cases = uniqued(records.map(\.caseName))
        let sizes = Array(Set(records.map { Double($0.document.bytes) / 1_048_576 })).sorted()
        let width = 760.0
        let height = 420.0
        let left = 70.0
        let bottom = 360.0
        let plotWidth = 480.0
        let plotHeight = 310.0
        let maxPeak = max(64, records.compactMap { $0.peakBytes.map { Double($0) / 1_048_576 } }.max() ?? 64)
        let minSize = max(1, sizes.first ?? 1)
        let maxSize = max(minSize * 2, sizes.last ?? 1)
        func x(_ size: Double) -> Double {
            left + 30 + (plotWidth - 60) * (log2(size) - log2(minSize)) / (log2(maxSize) - log2(minSize))
        }
        func y(_ mib: Double) -> Double { bottom - plotHeight * log10(max(1, mib)) / log10(maxPeak) }
        var svg =
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(width))" height="\##(Int(height))" font-family="sans-serif" font-size="11">"##
        svg += ##"<rect width="100%" height="100%" fill="white"/>"##
        svg +=
            ##"<text x="10" y="20" font-size="14" font-weight="bold">Peak memory (RSS, MiB, log scale) against document size (MiB)</text>"##
        svg += ##"<line x1="\##(left)" y1="\##(bottom)" x2="\##(left + plotWidth)" y2="\##(bottom)" stroke="#333"/>"##
        svg += ##"<line x1="\##(left)" y1="\##(bottom)" x2="\##(left)" y2="\##(bottom - plotHeight)" stroke="#333"/>"##
        for size in sizes {
            svg += ##"<text x="\##(x(size))" y="\##(bottom + 15)" text-anchor="middle">\##(Int(size))</text>"##
        }
        for tick in [1.0, 10, 100, 1000, 10000] where tick <= maxPeak * 1.01 {
            svg += ##"<text x="\##(left - 6)" y="\##(y(tick) + 4)" text-anchor="end">\##(Int(tick))</text>"##
            svg +=
                ##"<line x1="\##(left)" y1="\##(y(tick))" x2="\##(left + plotWidth)" y2="\##(y(tick))" stroke="#ddd"/>"##
        }
        for (c, name) in cases.enumerated() {
            let points = records.filter { $0.caseName == name }.sorted { $0.document.bytes < $1.document.bytes }
                .map { (x(Double($0.document.bytes) / 1_048_576), y(Double($0.peakBytes!) / 1_048_576)) }
            let color = palette[c % palette.count]
            svg +=
                ##"<polyline fill="none" stroke="\##(color)" stroke-width="2" points="\##(points.map { "\($0.0),\($0.1)" }.joined(separator: " "))"/>"##
            for point in points { svg += ##"<circle cx="\##(point.0)" cy="\##(point.1)" r="3" fill="\##(color)"/>"## }
            svg +=
                ##"<rect x="\##(left + plotWidth + 20)" y="\##(60 + Double(c) * 18)" width="10" height="10" fill="\##(color)"/>"##
            svg += ##"<text x="\##(left + plotWidth + 34)" y="\##(69 + Double(c) * 18)">\##(escape(name))</text>"##
        }
        return svg + "</svg>\n"
    }

    static func machine() -> String {
        func run(_ command: String) -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try? process.run()
            process.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let cpu = run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
        return """
            - CPU: \(cpu.isEmpty ? "unknown" : cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \
            \(ProcessInfo.processInfo.physicalMemory >> 30) GiB
            - OS: \(run("uname -sr")); Swift: \(run("swift --version 2>&1 | head -1")); \
            libyajl: \(run("dpkg-query -W -f='${Version}' libyajl2 2>/dev/null"))
            """
    }

    static func markdown(_ results: [Measurement], command: String, rounds: Int, measured: Date) -> String {
        let date = ISO8601DateFormatter().string(from: measured)
        return """
            # Performance

            Generated by `\(command)` on \(date). Do not edit by hand: run `make bench-report`.

            \(machine())

            Every case runs in a fresh child process, once per round, in interleaved rounds (A B C … A B C …,
            \(rounds) rounds, three times as many on documents under 16 MiB) so that the machine's drift spreads over
            all cases alike. MB/s is the median of the
            rounds (10^6 bytes/s, timed inside the child around the parse only, after the child has read the
            file through once untimed, so that every case starts from the page cache; small documents are parsed
            repeatedly to at least 32 MiB per round). Peak RSS is the child's `VmHWM`, so it includes the Swift
            runtime and Foundation (linked statically by `make bench-report`, as in the release tool; the
            `c-verify` rows show that floor) and the case's own buffers.

            Documents: the shared corpus (canada.json, GeoJSON with 15–17-digit coordinates; citm_catalog.json;
            twitter.json) and documents made by `DocumentGenerator` (`yajl generate`, version \(DocumentGenerator.version)):
            records (an API export under `$.results`), NDJSON (the same records a line each), numbers (GeoJSON
            polygons under `$.results`, each point a full-precision coordinate and one of six decimals), strings
            (long strings with escapes and non-ASCII text), dates (snake_case keys, RFC 3339 timestamps).

            The C baseline streams the file through libyajl from C in 64 KiB reads: `c-verify` without
            callbacks, `c-noop` with no-op callbacks (the realistic ceiling), `c-counting` counting events with
            YAJL's own integer/double conversion. Ratios are to `c-counting`. The C cases run inside the same
            Swift benchmark executable, so their peak RSS includes the Swift runtime too.

            Cases: `validate` (`JSONParser.validate`: YAJL with only its limits' callbacks, UTF-8
            checked; past 4 MiB the reads and the UTF-8 check run ahead on a second thread while YAJL
            parses on the first, where `c-verify` reads and parses on one), `events-borrowed` (a `JSONEventHandler`, no paths), `events-paths` (paths tracked, numbers
            converted to their values; `yajl stats` asks only their kind), `events-owned` (the owned `JSONEvent`
            enum), `records-select`
            (selection of `$.results[*]` only), `records-values` (into owned `JSONValue`s),
            `records-decodable` (into a `Decodable` struct; the default `parsesConcurrently`, so parsing
            runs on a second thread while the caller decodes), `records-decodable-1t` (the same on one thread),
            `records-async` (the same records through `JSONRecords` in a task, `for try await`),
            `geojson-decodable`, `geojson-decodable-1t` and `foundation-geojson` (canada.json's features,
            and the generated numbers documents' polygons at `$.results[*]`, into typed GeoJSON structs,
            coordinates `[[[Double]]]`, by `JSONRecordReader` on two threads and one, and by `JSONDecoder`),
            `geojson-positions-1t` and `foundation-geojson-positions` (the same documents with each point a
            struct read through an unkeyed container, rings `[[Position]]`: arrays of structs, a container per
            point),
            `writer-minify` (parse, then write minified
            through `JSONWriter`), `json_reformat-m` (YAJL's own tool as a process, peak RSS its own),
            `foundation-serialization`
            (`JSONSerialization.jsonObject`), `foundation-decoder` (`JSONDecoder`, `[Record]` for the records
            documents).

            ## Targets

            \(targets(results))

            ## Charts

            ![Throughput relative to C](perf-throughput.svg)

            ![Peak memory against document size](perf-memory.svg)

            ## All results

            \(table(results))
            """
    }
}
