import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes synthetic JSON documents of a requested size, streamed to a file in 1 MiB writes (never
/// held in memory), and counts what it wrote so tests can check a parser's counts against it.
///
/// Shared by the `yajl generate` command (for `make demo`), the tests and the benchmarks.
package enum DocumentGenerator {
    /// The shapes of document.
    package enum Kind: String, CaseIterable, Sendable {
        /// `{"meta": {...}, "results": [ {record}, ... ]}`: typical API export.
        case records
        /// `{"meta": {...}, "results": [...]}` as NDJSON: one record per line.
        case ndjson
        /// GeoJSON-like polygons: mostly doubles, each point's first coordinate printed to full
        /// precision (15 to 17 significant digits, as a program prints a computed double: past
        /// the fast path that takes the second, six decimals).
        case numbers
        /// Records with long strings full of escapes and non-ASCII text.
        case strings
        /// Event records with snake_case keys and RFC 3339 timestamps (a date and key strategy load).
        case dates
    }

    /// The generator's version, written in each document's `meta` (not in NDJSON): raised when
    /// a kind's content changes, so that a cached document of an earlier version is made again
    /// (``isCurrent(_:kind:)``, which the benchmark checks). 2: full-precision coordinates in `numbers`.
    package static let version = 2

    /// Whether the document at `path` was written by this version of the generator (its `meta`
    /// says so), or is NDJSON, which has no `meta` and has not changed.
    package static func isCurrent(_ path: String, kind: Kind) -> Bool {
        if kind == .ndjson { return true }
        guard let fd = try? Syscalls.openForReading(path) else { return false }
        defer { Syscalls.close(fd) }
        var head = [UInt8](repeating: 0, count: 96)
        let count = head.withUnsafeMutableBytes { (try? Syscalls.read(fd, into: $0, target: path)) ?? 0 }
        return String(decoding: head.prefix(count), as: UTF8.self).contains(#""version":\#(version)}"#)
    }

    /// What a generated document contains, counted the way `yajl stats` counts.
    package struct Counts: Sendable, Hashable, Codable {
        package var bytes = 0
        package var maps = 0
        package var arrays = 0
        package var keys = 0
        package var strings = 0
        package var integers = 0
        package var doubles = 0
        package var numbers = 0
        package var booleans = 0
        package var nulls = 0
        package var maxDepth = 0
        /// Records written under `$.results` (or NDJSON lines).
        package var records = 0
        package init() {}
    }

    /// Writes a document of `kind` of at least `targetBytes` bytes to `path`; returns its counts.
    @discardableResult
    package static func write(_ kind: Kind, targetBytes: Int, to path: String, seed: UInt64 = 1) throws -> Counts {
        let fd = try Syscalls.createForWriting(path)
        defer { Syscalls.close(fd) }
        var writer = Writer(fd: fd, path: path)
        var counts = Counts()
        var random = SplitMix64(seed: seed)

        if kind == .ndjson {
            while writer.written < targetBytes {
                record(kind: .records, index: counts.records, random: &random, into: &writer, counts: &counts, depth: 0)
                writer.append("\n")
                counts.records += 1
            }
        } else {
            // {"meta":{"generator":"swift-yajl","kind":"records","version":2},"results":[
            writer.append(#"{"meta":{"generator":"swift-yajl","kind":""#)
            writer.append(kind.rawValue)
            writer.append(#"","version":"#)
            writer.append(String(version))
            writer.append(#"},"results":["#)
            counts.maps += 2
            counts.keys += 5
            counts.strings += 2
            counts.integers += 1
            counts.arrays += 1
            counts.maxDepth = max(counts.maxDepth, 2)
            while writer.written < targetBytes - 2 {
                if counts.records > 0 { writer.append(",") }
                record(kind: kind, index: counts.records, random: &random, into: &writer, counts: &counts, depth: 2)
                counts.records += 1
                if counts.records % 16 == 0 { writer.append("\n") }
            }
            writer.append("]}\n")
        }
        try writer.flush()
        counts.bytes = writer.written
        return counts
    }

    private static let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    ]
    private static let cities = ["Zürich", "São Paulo", "Kraków", "東京", "Reykjavík", "Montréal", "Cairo", "Lima"]

    private static func record(
        kind: Kind,
        index: Int,
        random: inout SplitMix64,
        into w: inout Writer,
        counts: inout Counts,
        depth: Int
    ) {
        switch kind {
        case .records, .ndjson:
            // {"id":N,"name":"...","email":"...","active":B,"score":D,"tags":[s,s],"address":{"city":s,"zip":s,"geo":[d,d]},"note":null}
            let score = Double(random.next() % 100_000) / 100
            w.append(#"{"id":"#)
            w.append(String(index))
            w.append(#","name":"user "#)
            w.append(String(index))
            w.append(#"","email":"user"#)
            w.append(String(index))
            w.append(#"@example.com","active":"#)
            w.append(random.next() % 2 == 0 ? "true" : "false")
            w.append(#","score":"#)
            w.append(score == score.rounded() ? "\(Int(score)).5" : "\(score)")
            w.append(#","tags":[""#)
            w.append(words[Int(random.next() % 10)])
            w.append(#"",""#)
            w.append(words[Int(random.next() % 10)])
            w.append(#""],"address":{"city":""#)
            w.append(cities[Int(random.next() % UInt64(cities.count))])
            w.append(#"","zip":""#)
            w.append(String(10000 + Int(random.next() % 89999)))
            w.append(#"","geo":["#)
            w.append(coordinate(&random))
            w.append(",")
            w.append(coordinate(&random))
            w.append(#"]},"note":null}"#)
            counts.maps += 2
            counts.arrays += 2
            counts.keys += 11
            counts.strings += 6
            counts.integers += 1
            counts.doubles += 3
            counts.booleans += 1
            counts.nulls += 1
            counts.maxDepth = max(counts.maxDepth, depth + 3)
        case .dates:
            // {"event_id":N,"user_name":"...","created_at":"<RFC 3339>","updated_at":"<RFC 3339>","is_active":B}
            let created = 1_500_000_000 + Int(random.next() % 300_000_000)
            w.append(#"{"event_id":"#)
            w.append(String(index))
            w.append(#","user_name":"user "#)
            w.append(String(index))
            w.append(#"","created_at":""#)
            w.append(rfc3339(created))
            w.append(#"","updated_at":""#)
            w.append(rfc3339(created + Int(random.next() % 1_000_000)))
            w.append(#"","is_active":"#)
            w.append(random.next() % 2 == 0 ? "true" : "false")
            w.append("}")
            counts.maps += 1
            counts.keys += 5
            counts.strings += 3
            counts.integers += 1
            counts.booleans += 1
            counts.maxDepth = max(counts.maxDepth, depth + 1)
        case .numbers:
            // {"type":"Polygon","coordinates":[[[d,d],[d,d],... 32 pairs]]}
            w.append(#"{"type":"Polygon","coordinates":[["#)
            for i in 0..<32 {
                if i > 0 { w.append(",") }
                w.append("[")
                w.append(preciseCoordinate(&random))
                w.append(",")
                w.append(coordinate(&random))
                w.append("]")
            }
            w.append("]]}")
            counts.maps += 1
            counts.keys += 2
            counts.strings += 1
            counts.arrays += 2 + 32
            counts.doubles += 64
            counts.maxDepth = max(counts.maxDepth, depth + 4)
        case .strings:
            // {"id":N,"text":"<long, escaped, non-ASCII>","lang":"xx"}
            w.append(#"{"id":"#)
            w.append(String(index))
            w.append(#","text":""#)
            for i in 0..<24 {
                w.append(words[Int(random.next() % 10)])
                w.append(i % 5 == 0 ? #" \"quoted\"\n"# : (i % 7 == 0 ? #" \u00e9t\u00e9 \ud83d\ude00 "# : " — 東京 "))
            }
            w.append(#"","lang":"en"}"#)
            counts.maps += 1
            counts.keys += 3
            counts.strings += 2
            counts.integers += 1
            counts.maxDepth = max(counts.maxDepth, depth + 1)
        }
    }

    /// `seconds` since 1970 as `yyyy-MM-ddTHH:mm:ssZ`, as the library writes `.iso8601` dates.
    private static func rfc3339(_ seconds: Int) -> String {
        RFC3339.string(from: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// A double in [-180, 180) from 53 random bits, in Swift's shortest round-trip form (up to 17
    /// significant digits; an exponent when it is below 10^-4 in magnitude).
    private static func preciseCoordinate(_ random: inout SplitMix64) -> String {
        let value = Double(random.next() >> 11) / Double(UInt64(1) << 53) * 360 - 180
        return value == value.rounded() ? "\(Int(value)).25" : "\(value)"
    }

    private static func coordinate(_ random: inout SplitMix64) -> String {
        let value = Double(Int64(random.next() % 360_000_000) - 180_000_000) / 1_000_000
        return value == value.rounded() ? "\(Int(value)).25" : "\(value)"
    }
}

/// A small deterministic PRNG, so generated documents are the same on every machine.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Buffers writes into 1 MiB blocks. A failed write is kept and thrown by the final ``flush()``.
struct Writer {
    let fd: Int32
    let path: String
    var buffer: [UInt8] = []
    var written = 0
    var failure: (any Error)?

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(1 << 20)
    }

    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        written += text.utf8.count
        if buffer.count >= 1 << 20 {
            do { try flush() } catch { failure = failure ?? error }
        }
    }

    mutating func flush() throws {
        if let failure { throw failure }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try Syscalls.writeAll(fd, $0, target: path) }
    }
}
