import Foundation
import Testing
import YAJLFixtures

@testable import YAJL

/// Counts events like `yajl stats` does, through the public typed-event layer with paths on.
final class CountingHandler: JSONEventHandler {
    var counts = DocumentGenerator.Counts()
    var pathChecks = 0

    func startObject(context: JSONEventContext) throws { counts.maps += 1 }
    func startArray(context: JSONEventContext) throws { counts.arrays += 1 }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { counts.keys += 1 }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { counts.strings += 1 }
    func bool(_ value: Bool, context: JSONEventContext) throws { counts.booleans += 1 }
    func null(context: JSONEventContext) throws {
        counts.nulls += 1
        // Spot-check the path of one event per record, far into the document.
        if counts.nulls % 100_000 == 0 {
            #expect(context.path?.description == "$.results[\(counts.nulls - 1)].note")
            pathChecks += 1
        }
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        switch value.value {
        case .integer: counts.integers += 1
        case .double: counts.doubles += 1
        case .unrepresentable: counts.numbers += 1
        }
    }
}

@Suite("Large fixture", .serialized)
struct LargeFixtureTests {
    @Test func a256MiBDocumentParsesWithFlatMemory() throws {
        let file = TemporaryFile("large-records.json")
        defer { file.remove() }
        let expected = try DocumentGenerator.write(.records, targetBytes: 256 << 20, to: file.path)
        #expect(expected.bytes >= 256 << 20)

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
        #expect(handler.pathChecks > 10)
        if resetPeak {
            print("large fixture: \(expected.bytes >> 20) MiB parsed, peak RSS growth \((peak - before) >> 10) KiB")
            #expect(peak - before < 4 << 20, "peak RSS grew by \((peak - before) >> 10) KiB while parsing 256 MiB")
        } else {
            print("⚠️  large fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }
}
