import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// Random documents and random queries: the streaming selection against ``ReferenceJSONPath``,
/// as multisets in document order and exactly in the RFC's order, at random chunk sizes.
@Suite("JSONPath: streaming against a reference evaluator")
struct JSONPathPropertyTests {
    /// A small deterministic generator (SplitMix64), so that a failure names its seed.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let keys = ["a", "b", "c"]

    static func document(_ r: inout Random, depth: Int = 0) -> String {
        let roll = r.below(100)
        if depth < 4 && roll < 35 {
            let members = keys.filter { _ in r.chance(0.6) }.map { "\"\($0)\":" + document(&r, depth: depth + 1) }
            return "{" + members.joined(separator: ",") + "}"
        }
        if depth < 4 && roll < 65 {
            return "[" + (0..<r.below(5)).map { _ in document(&r, depth: depth + 1) }.joined(separator: ",") + "]"
        }
        return r.pick([
            "0", "1", "2", "-1", "1.5", "10", "1e1", #""a""#, #""b""#, #""ab""#, #""""#, "true", "false", "null",
        ])
    }

    static func literal(_ r: inout Random) -> String {
        r.pick(["1", "2", "0", "-1", "1.5", "1.0", "10", #""a""#, "'b'", "true", "false", "null", #""""#])
    }

    static func relative(_ r: inout Random, singular: Bool, depth: Int) -> String {
        var query = "@"
        for _ in 0..<r.below(3) {
            if singular || r.chance(0.7) {
                query += r.pick([".\(r.pick(keys))", "['\(r.pick(keys))']", "[\(r.below(5) - 2)]"])
            } else {
                query += segment(&r, depth: depth + 1)
            }
        }
        return query
    }

    static func comparable(_ r: inout Random, depth: Int) -> String {
        switch r.below(5) {
        case 0, 1: return relative(&r, singular: true, depth: depth)
        case 2, 3: return literal(&r)
        default:
            return r.pick([
                "length(\(relative(&r, singular: true, depth: depth)))",
                "count(\(relative(&r, singular: false, depth: depth)))",
                "value(\(relative(&r, singular: false, depth: depth)))",
            ])
        }
    }

    static func logical(_ r: inout Random, depth: Int) -> String {
        let roll = depth > 2 ? r.below(5) : r.below(10)
        switch roll {
        case 0, 1, 2:
            let op = r.pick(["==", "!=", "<", "<=", ">", ">="])
            return comparable(&r, depth: depth) + op + comparable(&r, depth: depth)
        case 3:
            let query = relative(&r, singular: false, depth: depth)
            return query == "@" ? "@.a" : query
        case 4:
            let pattern = r.pick([#""a""#, #""a.*""#, #""[ab]""#, #""b?""#, #"".""#, #""\\p{L}+""#])
            return "\(r.pick(["match", "search"]))(\(relative(&r, singular: true, depth: depth)), \(pattern))"
        case 5: return logical(&r, depth: depth + 1) + " && " + logical(&r, depth: depth + 1)
        case 6: return logical(&r, depth: depth + 1) + " || " + logical(&r, depth: depth + 1)
        case 7: return "!(" + logical(&r, depth: depth + 1) + ")"
        default: return "(" + logical(&r, depth: depth + 1) + ")"
        }
    }

    static func selector(_ r: inout Random, depth: Int) -> String {
        switch r.below(20) {
        case 0..<5: return "'\(r.pick(keys))'"
        case 5..<8: return "*"
        case 8..<12: return String(r.below(7) - 3)
        case 12..<15:
            func bound(_ r: inout Random) -> String { r.chance(0.5) ? "" : String(r.below(7) - 3) }
            var slice = bound(&r) + ":" + bound(&r)
            if r.chance(0.5) { slice += ":" + (r.chance(0.3) ? "" : String(r.below(5) - 2)) }
            return slice
        default:
            return depth > 1 ? "*" : "?" + logical(&r, depth: depth)
        }
    }

    static func segment(_ r: inout Random, depth: Int) -> String {
        let descendant = r.chance(0.25)
        if r.chance(0.3) { return (descendant ? ".." : ".") + r.pick(keys + ["*"]) }
        let selectors = (0..<r.pick([1, 1, 1, 2, 3])).map { _ in selector(&r, depth: depth) }
        return (descendant ? ".." : "") + "[" + selectors.joined(separator: ",") + "]"
    }

    static func query(_ r: inout Random) -> String {
        "$" + (0..<r.below(4)).map { _ in segment(&r, depth: 0) }.joined()
    }

    /// The nodes read by the streaming reader, as (normalized path, value).
    static func streamed(
        _ query: JSONPathQuery,
        _ document: String,
        order: JSONRecordOptions.Order,
        chunkSize: Int
    ) throws -> [String] {
        var options = JSONRecordOptions()
        options.order = order
        options.parser.chunkSize = chunkSize
        options.parsesConcurrently = false
        let reader = try JSONRecordReader(JSONValue.self, at: query.expression, from: .text(document), options: options)
        var nodes: [String] = []
        while let record = try reader.nextRecord() {
            nodes.append(record.path.normalized + " " + record.value.description)
        }
        return nodes
    }

    @Test(arguments: 0..<8)
    func streamingSelectsWhatTheRFCSelects(batch: Int) throws {
        var r = Random(state: UInt64(batch) &* 7919 &+ 17)
        var compared = 0
        for case let seed in 0..<300 {
            let document = Self.document(&r)
            let text = Self.query(&r)
            let query = try JSONPathQuery(text)
            let tree = try JSONRecordReader(JSONValue.self, at: "$", from: .text(document)).next()!
            let expected = ReferenceJSONPath(root: tree).select(query).map {
                JSONPath($0.path).normalized + " " + $0.value.description
            }
            let chunk = r.pick([1, 2, 5, 64 << 10])
            let rfc = try Self.streamed(query, document, order: .rfc, chunkSize: chunk)
            #expect(rfc == expected, "batch \(batch) case \(seed): \(text) on \(document), chunks of \(chunk)")
            let inDocumentOrder = try Self.streamed(query, document, order: .document, chunkSize: chunk)
            #expect(
                inDocumentOrder.sorted() == expected.sorted(),
                "batch \(batch) case \(seed): \(text) on \(document)"
            )
            compared += 1
        }
        #expect(compared == 300)
    }
}
