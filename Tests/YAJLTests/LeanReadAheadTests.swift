import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The lean pass reading ahead on a second thread (`LeanReadAhead`): past
/// `LeanValidation.readAheadAfter` (which these tests lower to 0, so that documents of a few
/// reads go through the thread), the reads, the byte order mark, the document limit and the
/// UTF-8 check run on that thread, through a ring of buffers. Over generated documents, broken at random places and
/// cut into reads of many sizes, the pass still accepts exactly what a parse accepts, `validate`
/// still reports the parse's error, and the thread and the source are gone when it returns.
@Suite("Validation: reading ahead of the lean pass")
struct LeanReadAheadTests {
    typealias SplitMix = NumberParsingTests.SplitMix

    /// A random JSON value of nested objects, arrays, strings (escapes, non-ASCII), numbers and
    /// literals, about `budget` bytes long, with at most `depth` levels.
    static func value(_ random: inout SplitMix, budget: Int, depth: Int) -> String {
        if budget < 24 || depth == 0 {
            switch random.next() % 6 {
            case 0: return "\(Int64(bitPattern: random.next()) >> Int64(random.next() % 60))"
            case 1: return "\(Double(random.next() % 1_000_000) / 7.0)e\(Int(random.next() % 20) - 10)"
            case 2: return ["true", "false", "null"][Int(random.next() % 3)]
            case 3: return #""caf\u00e9 \"q\" \ud83d\ude00 é 😀 tab\t""#
            case 4: return "\"\(String(repeating: "abcdefgh", count: Int(random.next() % 40)))\""
            default: return "\"ü€\""
            }
        }
        let count = 1 + Int(random.next() % 6)
        let share = budget / count
        var parts: [String] = []
        for index in 0..<count {
            let member = value(&random, budget: share - 8, depth: depth - 1)
            parts.append(random.next() % 2 == 0 ? member : "\"k\(index)é\": \(member)")
        }
        // An object only when every part is a member.
        if parts.allSatisfy({ $0.hasPrefix("\"k") && $0.contains("\": ") }) {
            return "{" + parts.joined(separator: ", ") + "}"
        }
        return "[" + parts.map { $0.hasPrefix("\"k") && $0.contains("\": ") ? "{\($0)}" : $0 }.joined(separator: ",\n")
            + "]"
    }

    /// One way to break a document, or none.
    enum Damage: CaseIterable {
        case none, invalidUTF8, overlong, loneSurrogateEscape, truncated, stray, shallowDepthLimit, documentLimit,
            tokenLimit, byteOrderMark
    }

    /// `document` broken by `damage` at a random place, and the options that go with it.
    static func damaged(
        _ document: [UInt8],
        _ damage: Damage,
        _ random: inout SplitMix
    ) -> ([UInt8], JSONParser.Options) {
        var bytes = document
        var options = JSONParser.Options()
        let at = Int(random.next() % UInt64(bytes.count))
        switch damage {
        case .none: break
        case .invalidUTF8: bytes.insert(contentsOf: [0x22, 0xFF, 0x22, 0x2C], at: firstValueStart(bytes, from: at))
        case .overlong: bytes.insert(contentsOf: [0x22, 0xC0, 0xAF, 0x22, 0x2C], at: firstValueStart(bytes, from: at))
        case .loneSurrogateEscape:
            bytes.insert(contentsOf: Array(#""\ud800x","#.utf8), at: firstValueStart(bytes, from: at))
        case .truncated: bytes.removeSubrange(at...)
        case .stray: bytes.insert(UInt8(ascii: "}"), at: at)
        case .shallowDepthLimit: options.maxDepth = 3
        case .documentLimit: options.maxDocumentBytes = max(1, at)
        case .tokenLimit: options.maxTokenBytes = 200
        case .byteOrderMark: bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        }
        return (bytes, options)
    }

    /// The offset just after the first `[` at or after `offset` (or the start of the document's
    /// array), where an element can be inserted.
    static func firstValueStart(_ bytes: [UInt8], from offset: Int) -> Int {
        if let index = bytes[offset...].firstIndex(of: UInt8(ascii: "[")) { return index + 1 }
        return 1
    }

    static func document(seed: UInt64, bytes: Int) -> [UInt8] {
        var random = SplitMix(state: seed)
        var parts: [String] = []
        var size = 0
        while size < bytes {
            let part = value(&random, budget: 600, depth: 6)
            parts.append(part)
            size += part.utf8.count + 2
        }
        return Array(("[" + parts.joined(separator: ",\n") + "]").utf8)
    }

    /// Generated documents of 20 to 200 KiB, each damage, reads of 64 B to 64 KiB, from memory
    /// and from a file: the lean pass accepts exactly what a parse accepts (a valid document is
    /// decided by it), and `validate` reports the parse's error.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func sameVerdictAsAParseOverGeneratedDocuments(seed: UInt64) throws {
        var random = SplitMix(state: seed &* 7919)
        let document = Self.document(seed: seed, bytes: 20_000 * Int(1 + seed % 10))
        let file = TemporaryFile("read-ahead-\(seed).json")
        defer { file.remove() }
        for damage in Damage.allCases {
            var (bytes, options) = Self.damaged(document, damage, &random)
            try Data(bytes).write(to: URL(fileURLWithPath: file.path))
            for chunkSize in [64, 1_000, 4_096, 64 << 10] {
                options.chunkSize = chunkSize
                let parsed = ValidationTests.withHandler(bytes, options: options)
                let fromMemory = try LeanValidation.run(MemoryByteSource(bytes), options: options, readAheadAfter: 0)
                let fromFile = try LeanValidation.run(
                    FileByteSource(path: file.path),
                    options: options,
                    readAheadAfter: 0
                )
                let label = "seed \(seed), \(damage), reads of \(chunkSize)"
                for verdict in [fromMemory, fromFile] {
                    if verdict == .valid { #expect(parsed == nil, "\(label): lean accepted, parse said \(parsed!)") }
                    if parsed == nil && damage != .tokenLimit { #expect(verdict == .valid, "\(label): undecided") }
                }
                #expect(ValidationTests.validating(bytes, options: options) == parsed, "\(label)")
                do {
                    try JSONParser.validate(.file(file.path), options: options)
                    #expect(parsed == nil, "\(label): the file was accepted, the parse said \(parsed!)")
                } catch {
                    #expect("\(error)" == parsed, "\(label)")
                }
                if damage == .none { #expect(parsed == nil, "\(label): the generated document is valid") }
            }
        }
    }

    /// `JSONParser.validate` on a file past `LeanValidation.readAheadAfter`, as the tool and the
    /// benchmark run it: accepted when valid; broken after the read-ahead started (invalid UTF-8,
    /// a stray bracket, a cut end), the error is located where the damage is (the full pass's:
    /// the same verdicts and errors as a parse are checked on shorter documents above).
    @Test func validateReadsALongFileAhead() throws {
        let document = Self.document(seed: 21, bytes: LeanValidation.readAheadAfter + (2 << 20))
        let file = TemporaryFile("read-ahead-long.json")
        defer { file.remove() }
        try Data(document).write(to: URL(fileURLWithPath: file.path))
        try JSONParser.validate(.file(file.path))
        let late = LeanValidation.readAheadAfter + (1 << 20)
        var invalidUTF8 = document
        invalidUTF8[late] = 0xFF
        var stray = document
        stray.insert(UInt8(ascii: "]"), at: late)
        let cases: [(bytes: [UInt8], near: Int, kind: String)] = [
            (invalidUTF8, late, "UTF-8"), (stray, late, "stray"),
            (Array(document.dropLast(3)), document.count - 3, "cut"),
        ]
        for (bytes, near, kind) in cases {
            try Data(bytes).write(to: URL(fileURLWithPath: file.path))
            let error = try #require(throws: JSONParseError.self, "\(kind)") {
                try JSONParser.validate(.file(file.path))
            }
            #expect((near - 8...near + 8).contains(error.byteOffset), "\(kind): \(error)")
        }
    }

    /// A string of several megabytes spans many reads: reads grow (on the reading thread, as the
    /// caller asks) and the document is still accepted by the lean pass.
    @Test func aLongStringSpanningManyReads() throws {
        let long = Array(("[1, \"" + String(repeating: "é0123456789", count: 300_000) + "\", 2]").utf8)
        var options = JSONParser.Options()
        options.chunkSize = 4_096
        #expect(try LeanValidation.run(MemoryByteSource(long), options: options, readAheadAfter: 0) == .valid)
        options.maxTokenBytes = 1 << 20
        #expect(try LeanValidation.run(MemoryByteSource(long), options: options, readAheadAfter: 0) == .undecided)
        #expect(ValidationTests.validating(long, options: options)?.contains("maxTokenBytes") == true)
    }

    /// Keeps `released` set once the last copy of the source is gone.
    final class Lifetime: @unchecked Sendable {
        let released: Flag
        init(_ released: Flag) { self.released = released }
        deinit { released.set() }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    /// Bytes in memory that fail with `failure` once `failAfter` bytes have been read, and that
    /// say when they are released.
    struct TrackedSource: JSONByteSource {
        var inner: MemoryByteSource
        let lifetime: Lifetime
        var delivered = 0
        let failAfter: Int?

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            if let failAfter, delivered >= failAfter {
                throw JSONIOError(operation: .read, target: "tracked", message: "failed on purpose", errno: EIO)
            }
            let count = try inner.read(into: buffer)
            delivered += count
            return count
        }
    }

    /// The pass returns only once the reading thread has released the source, whether the input
    /// was valid, broken in its first read (the thread stopped while reading ahead), or failed
    /// to read; a read error is thrown as it is; no thread is left behind.
    @Test func theThreadAndTheSourceAreReleasedOnReturn() throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/self/task"), "needs /proc: the check cannot run")
        let valid = Self.document(seed: 11, bytes: 400_000)
        var brokenEarly = valid
        brokenEarly[5_000] = 0xFF  // invalid UTF-8 wherever it falls
        var options = JSONParser.Options()
        options.chunkSize = 1_024
        let before = BulkDropTests.threads()
        for round in 0..<30 {
            for (bytes, failAfter) in [(valid, nil), (brokenEarly, nil), (valid, 100_000 + round * 1_000)]
                as [([UInt8], Int?)]
            {
                let flag = Flag()
                do {
                    let source = TrackedSource(
                        inner: MemoryByteSource(bytes),
                        lifetime: Lifetime(flag),
                        failAfter: failAfter
                    )
                    let verdict = try LeanValidation.run(source, options: options, readAheadAfter: 0)
                    #expect(failAfter == nil, "round \(round): the read error was not thrown")
                    #expect(verdict == (bytes == valid ? .valid : .undecided), "round \(round)")
                } catch let error as JSONIOError {
                    #expect(failAfter != nil, "round \(round): \(error)")
                    #expect(error.errno == EIO)
                }
                #expect(flag.isSet, "round \(round): the source outlived the pass")
            }
        }
        let after = BulkDropTests.settle(to: before, BulkDropTests.threads)
        #expect(after <= before, "threads before \(before), after \(after)")
    }
}

extension LeanReadAheadTests {
    /// Reads grown to 1 MiB for a long token fill fewer slots ahead: the ring never holds more
    /// than its byte budget, the read in progress included, however slowly the caller takes them;
    /// the bytes come out in order, whole.
    @Test(arguments: [64 << 10, 256 << 10, 1 << 20])
    func grownReadsStayWithinTheBudget(readSize: Int) throws {
        var random = SplitMix(state: UInt64(readSize))
        let bytes = (0..<(6 << 20)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
        let ahead = LeanReadAhead(
            source: MemoryByteSource(bytes),
            reads: LeanValidation.Reads(options: JSONParser.Options()),
            readSize: readSize,
            baseSize: 64 << 10
        )
        try #require(ahead.start(), "no thread could be started")
        var seen: [UInt8] = []
        reading: while true {
            switch try ahead.next() {
            case .chunk(let chunk, let base):
                #expect(base == seen.count)
                seen.append(contentsOf: chunk)
                usleep(200)  // a slow caller: the thread runs as far ahead as it may
            case .end: break reading
            case .undecided: Issue.record("ASCII letters are valid UTF-8")
            }
        }
        ahead.stop()
        #expect(seen == bytes)
        let budget = LeanReadAhead<MemoryByteSource>.byteBudget
        #expect(ahead.peakBytesHeld <= budget, "held \(ahead.peakBytesHeld) bytes, budget \(budget)")
        #expect(ahead.peakBytesHeld >= readSize * 2, "never read ahead")
    }
}
