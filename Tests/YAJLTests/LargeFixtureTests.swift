import Foundation
import Testing
import YAJL
import YAJLFixtures
import YAJLTestSupport

@Suite("Large fixture", .serialized)
struct LargeFixtureTests {
    @Test func a256MiBDocumentParsesWithFlatMemory() throws {
        let file = TemporaryFile("large-records.json")
        defer { file.remove() }
        let size = ProcessMemory.documentSize(forMemoryCheck: 256 << 20, test: "large fixture")
        let expected = try DocumentGenerator.write(.records, targetBytes: size, to: file.path)
        #expect(expected.bytes >= size)

        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let handler = CountingHandler()
        let parser = JSONParser(handler: handler)
        let state = try parser.parse(from: .file(file.path))
        let peak = ProcessMemory.field("VmHWM") ?? 0

        #expect(state == .finished)
        #expect(parser.bytesConsumed == expected.bytes)
        var counts = handler.counts
        counts.bytes = parser.bytesConsumed
        counts.maxDepth = parser.maxDepthSeen
        counts.records = expected.records
        #expect(counts == expected)
        #expect(handler.pathMismatches.isEmpty, "\(handler.pathMismatches.prefix(3))")
        // One path checked in full every 10,000 nulls: many of them, a few on a sanitizer's 4 MiB.
        #expect(handler.pathChecks == expected.nulls / 10_000)
        #expect(handler.pathChecks > (size >= 16 << 20 ? 10 : 0), "\(handler.pathChecks) paths checked")
        if resetPeak {
            print("large fixture: \(expected.bytes >> 20) MiB parsed, peak RSS growth \((peak - before) >> 10) KiB")
            #expect(
                peak - before < 4 << 20,
                "peak RSS grew by \((peak - before) >> 10) KiB while parsing \(expected.bytes >> 20) MiB"
            )
        } else {
            print("⚠️  large fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }
}
