import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// Every byte a query holds counts against `maxBufferedBytes`: the recording of a value, its
/// index, its nested selections and their paths. Nested selections share one recording and one
/// path table, so `$..*` on a deep value holds about the value, not the value times its depth.
@Suite("JSONPath: buffers count against their limit", .serialized)
struct BufferAccountingTests {
    typealias Random = NumberParsingTests.SplitMix

    /// A record type that reads nothing: what is measured is the reader, not the records.
    struct Nothing: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// `depth` arrays nested, each holding a string of `padding` bytes first.
    static func nested(depth: Int, padding: Int) -> String {
        let text = "\"" + String(repeating: "x", count: padding) + "\","
        return String(repeating: "[" + text, count: depth) + "1" + String(repeating: "]", count: depth)
    }

    static func read(
        _ query: String,
        _ document: String,
        limit: Int,
        order: JSONRecordOptions.Order = .document
    ) throws -> [String] {
        var options = JSONRecordOptions()
        options.maxBufferedBytes = limit
        options.order = order
        options.parser.maxDepth = 100_000
        let reader = try JSONRecordReader(JSONFragment.self, at: query, from: .text(document), options: options)
        var values: [String] = []
        while let record = try reader.nextRecord() {
            values.append(record.path.normalized + " " + record.value.description)
        }
        return values
    }

    /// `$..*` on 4,000 nested arrays: 4,000 selections inside one value. Their paths were made
    /// whole, each (16 million path components, about 400 MiB); now they share one table.
    @Test func nestedSelectionsShareTheirPathsAndBytes() throws {
        let document = Self.nested(depth: 4_000, padding: 400)
        for order in [JSONRecordOptions.Order.document, .rfc] {
            let resetPeak = ProcessMemory.resetPeak()
            let before = ProcessMemory.field("VmRSS") ?? 0
            var options = JSONRecordOptions()
            options.order = order
            options.parser.maxDepth = 10_000
            options.parsesConcurrently = false
            let reader = try JSONRecordReader(Nothing.self, at: "$..*", from: .text(document), options: options)
            var count = 0
            while let record = try reader.nextRecord() {
                count += 1
                // Paths are still right when asked for: `[1]` down to the value, which is the
                // string (`[0]`) or the next array (`[1]`) of its array.
                if count % 97 == 1 {
                    let components = record.path.components
                    #expect(components.dropLast().allSatisfy { $0 == .index(1) }, "\(record.path)")
                    #expect(components.last == .index(0) || components.last == .index(1), "\(record.path)")
                }
            }
            #expect(count == 4_000 * 2 + 1 - 1, "every array and every string and the 1, below the root")
            let peak = ProcessMemory.field("VmHWM") ?? 0
            if resetPeak {
                #expect(peak - before < 48 << 20, "\(order): peak RSS grew by \((peak - before) >> 20) MiB")
            } else {
                print(
                    "⚠️  buffer accounting: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))"
                )
            }
        }
    }

    /// A negative index buffers the array with its index of values: 100,000 small elements take
    /// some 200 KB of text but about 8 MB once indexed, which a 1 MiB limit refuses, naming the
    /// option and the path; a limit that holds it gives the last element.
    @Test func negativeIndicesCountTheirIndex() throws {
        let document = "{\"a\": [" + Array(repeating: "1", count: 100_000).joined(separator: ",") + ",7]}"
        do {
            let values = try Self.read("$.a[-1]", document, limit: 1 << 20)
            Issue.record("selected \(values) within 1 MiB")
        } catch let error as JSONPathBufferError {
            #expect(error.description.contains("maxBufferedBytes") && error.path == JSONPath([.key("a")]), "\(error)")
        }
        #expect(try Self.read("$.a[-1]", document, limit: 64 << 20) == ["$['a'][100000] 7"])
    }

    /// Generated documents and queries of every shape that buffers: with a limit either the
    /// values an unlimited read gives, or a JSONPathBufferError that names the option; a larger
    /// limit never fails where a smaller one succeeded.
    @Test func everyShapeEitherFitsOrFailsClearly() throws {
        var r = Random(state: 0xB0FF)
        let queries = [
            "$..*", "$..[0]", "$[-1]", "$..[-1]", "$[*][-2:]", "$[?@..x]", "$..[?@ == 'x']", "$[*]..*", "$[0, 0]",
            "$..[::-1]",
        ]
        for _ in 0..<60 {
            let depth = Int.random(in: 1...40, using: &r)
            let width = Int.random(in: 1...30, using: &r)
            var document = ""
            for level in 0..<depth {
                document += "["
                for item in 0..<Int.random(in: 0...width, using: &r) {
                    document += (item % 3 == 0 ? "\"x\"" : item % 3 == 1 ? "{\"x\": \(level)}" : "\(item)") + ","
                }
            }
            document += "0" + String(repeating: "]", count: depth)
            let query = queries.randomElement(using: &r)!
            let order: JSONRecordOptions.Order = Bool.random(using: &r) ? .document : .rfc
            let all = try Self.read(query, document, limit: 1 << 30, order: order)
            var fitted: Int?
            for limit in [256, 1_024, 4_096, 16_384, 65_536, 1 << 20] {
                do {
                    let values = try Self.read(query, document, limit: limit, order: order)
                    #expect(values == all, "\(query) within \(limit)")
                    fitted = fitted ?? limit
                } catch let error as JSONPathBufferError {
                    #expect(error.description.contains("maxBufferedBytes"), "\(error)")
                    // Once it fits, it fits at every larger limit.
                    #expect(fitted == nil, "\(query) fitted within \(fitted ?? 0) but not \(limit)")
                }
            }
            #expect(fitted != nil, "\(query) on \(document.utf8.count) bytes failed within 1 MiB")
        }
    }
}
