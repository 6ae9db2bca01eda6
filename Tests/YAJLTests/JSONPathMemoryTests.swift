import Foundation
import Testing
import YAJL
import YAJLFixtures
import YAJLTestSupport

/// Filters and nested matches on a 64 MiB document: memory stays that of one record (the bound, 8 MiB,
/// is an eighth of the document, so memory that grew with the document would fail it).
@Suite("JSONPath: memory on a large document", .serialized)
struct JSONPathMemoryTests {
    @Test func filtersAndNestedMatchesOn64MiBKeepMemoryFlat() throws {
        let file = TemporaryFile("jsonpath-records.json")
        defer { file.remove() }
        let size = ProcessMemory.documentSize(forMemoryCheck: 64 << 20, test: "JSONPath memory")
        let counts = try DocumentGenerator.write(.records, targetBytes: size, to: file.path)
        var options = JSONRecordOptions()
        options.parsesConcurrently = false

        func measure(_ paths: [String], _ body: (JSONRecord<JSONFragment>) -> Void) throws -> Int {
            let resetPeak = ProcessMemory.resetPeak()
            let before = ProcessMemory.field("VmRSS") ?? 0
            let reader = try JSONRecordReader(JSONFragment.self, at: paths, from: .file(file.path), options: options)
            while let record = try reader.nextRecord() { body(record) }
            let peak = ProcessMemory.field("VmHWM") ?? 0
            if resetPeak {
                print(
                    "jsonpath fixture: \(paths) over \(counts.bytes >> 20) MiB, peak RSS growth \((peak - before) >> 10) KiB"
                )
                #expect(peak - before < 8 << 20, "\(paths): peak RSS grew by \((peak - before) >> 10) KiB")
            } else {
                print(
                    "⚠️  jsonpath fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))"
                )
            }
            return reader.report.deliveredCount
        }

        // A filter: every record is a candidate, held until decided, then dropped or delivered.
        var lastIndex = -1
        let selected = try measure(["$.results[?@.score > 500 && @.active == true].id"]) { record in
            guard case .index(let index) = record.path.components[1] else { return }
            #expect(index > lastIndex)
            lastIndex = index
        }
        #expect(selected > 0 && selected < counts.records)

        // Nested matches: each record, and inside it (from the same bytes) its coordinates; and a
        // descendant filter, whose array candidates (`results`) stream on.
        var records = 0
        var geos = 0
        let nested = try measure(["$.results[*]", "$..[?@.city].geo"]) { record in
            if record.queryIndex == 0 { records += 1 } else { geos += 1 }
        }
        #expect(records == counts.records)
        #expect(geos == counts.records)
        #expect(nested == 2 * counts.records)
    }
}
