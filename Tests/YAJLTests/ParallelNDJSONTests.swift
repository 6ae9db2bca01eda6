import Foundation
import Testing
import YAJL

/// NDJSON parsed on several threads gives exactly what one parser gives: the same events with
/// the same positions, the same records with the same paths, lines, offsets and value indices,
/// and the same first error at the same place, whatever the thread count and block size.
@Suite("Parallel NDJSON")
struct ParallelNDJSONTests {
    /// Every event with its context, as text: what a parse is compared by.
    final class EventLog: JSONEventHandler {
        var entries: [String] = []
        var valueBase = 0
        private func log(_ kind: String, _ bytes: UnsafeRawBufferPointer? = nil, _ context: JSONEventContext) {
            let text = bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
            entries.append(
                "\(kind) \(text) @\(context.byteOffset) L\(context.line) d\(context.depth) v\(context.topLevelIndex) "
                    + (context.path?.description ?? "-")
            )
        }
        func startObject(context: JSONEventContext) throws { log("{", nil, context) }
        func endObject(context: JSONEventContext) throws { log("}", nil, context) }
        func startArray(context: JSONEventContext) throws { log("[", nil, context) }
        func endArray(context: JSONEventContext) throws { log("]", nil, context) }
        func key(_ key: JSONStringView, context: JSONEventContext) throws { log("k", key.bytes, context) }
        func string(_ value: JSONStringView, context: JSONEventContext) throws { log("s", value.bytes, context) }
        func number(_ value: JSONNumberView, context: JSONEventContext) throws { log("n", value.bytes, context) }
        func bool(_ value: Bool, context: JSONEventContext) throws { log(value ? "t" : "f", nil, context) }
        func null(context: JSONEventContext) throws { log("null", nil, context) }
    }

    /// A deterministic generator of NDJSON with what makes splitting hard: values spanning lines,
    /// several values on a line, blank lines, long lines, escapes and multi-byte characters.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func value(depth: Int) -> String {
            switch next(depth > 2 ? 5 : 8) {
            case 0: return "\(next(100_000) - 50_000)"
            case 1: return "\(Double(next(1_000_000)) / 997.0)e\(next(20) - 10)"
            case 2:
                return [
                    "\"plain\"", "\"é\\u00e9\\n\\\"q\\\"\"", "\"😀 ü\"",
                    "\"\(String(repeating: "x", count: next(300)))\"",
                ][next(4)]
            case 3: return ["true", "false", "null", "123456789012345678901234567890"][next(4)]
            case 4: return "\"s\(next(10))\""
            case 5, 6:
                return "{" + (0..<next(4)).map { "\"k\($0)\":" + value(depth: depth + 1) }.joined(separator: ",") + "}"
            default: return "[" + (0..<next(4)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            }
        }
        mutating func document(lines: Int, multiLine: Bool) -> String {
            var text = ""
            for _ in 0..<lines {
                switch next(20) {
                case 0: text += "\n"  // blank
                case 1: text += value(depth: 0) + " " + value(depth: 0) + "\n"  // two on a line
                case 2 where multiLine: text += "{\n  \"a\": [\n 1,\n 2\n ],\n \"b\": " + value(depth: 1) + "\n}\n"
                case 3: text += "{\"long\":\"" + String(repeating: "ab", count: 700 + next(1500)) + "\"}\n"
                default: text += "{\"id\":\(next(1000)),\"v\":" + value(depth: 1) + "}\n"
                }
            }
            return text
        }
    }

    static func serialEvents(_ text: String) -> ([String], String?) {
        let log = EventLog()
        let parser = JSONParser(options: .init(allowMultipleValues: true), handler: log)
        do {
            try parser.parse(from: .text(text))
            return (log.entries, nil)
        } catch {
            return (log.entries, "\(error)")
        }
    }

    static func parallelEvents(_ text: String, threads: Int, blockSize: Int) -> ([String], String?) {
        var entries: [String] = []
        do {
            try JSONParser.parseInParallel(
                from: .text(text),
                options: .init(allowMultipleValues: true),
                parallel: JSONParallelOptions(threads: threads, blockSize: blockSize),
                makeHandler: { EventLog() },
                combine: { log, valuesBefore in
                    // Value indices count from the block's first value: shift them as the caller would.
                    entries += log.entries.map { entry in
                        guard let range = entry.range(of: #" v\d+ "#, options: .regularExpression) else { return entry }
                        let index = Int(entry[range].dropFirst(2).dropLast())! + valuesBefore
                        return entry.replacingCharacters(in: range, with: " v\(index) ")
                    }
                }
            )
            return (entries, nil)
        } catch {
            return (entries, "\(error)")
        }
    }

    static let sizes = [1024, 1500, 4096, 65536]

    /// `nil` when equal, else where the two logs first differ (short enough to read in a failure).
    static func difference(_ a: [String], _ b: [String]) -> String? {
        guard a != b else { return nil }
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        func entry(_ log: [String]) -> String { index < log.count ? String(log[index].prefix(200)) : "(end)" }
        return "entry \(index) of \(a.count)/\(b.count): \(entry(a)) vs \(entry(b))"
    }

    @Test("events and positions equal the serial parse", arguments: 1...8)
    func eventsEqualSerial(threads: Int) {
        var generator = Generator(state: UInt64(threads))
        let text = generator.document(lines: 400, multiLine: threads % 2 == 0)
        let serial = Self.serialEvents(text)
        #expect(serial.1 == nil)
        #expect(serial.0.count > 1000)
        for size in Self.sizes {
            let parallel = Self.parallelEvents(text, threads: threads, blockSize: size)
            #expect(parallel.1 == nil, "threads \(threads), block \(size)")
            #expect(Self.difference(parallel.0, serial.0) == nil, "threads \(threads), block \(size)")
        }
    }

    @Test("the first error, with its line, column, offset and path", arguments: 1...8)
    func firstErrorEqualsSerial(threads: Int) {
        var generator = Generator(state: 100 + UInt64(threads))
        var lines = generator.document(lines: 300, multiLine: true).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        let bad = 40 + generator.next(lines.count - 80)
        lines[bad] =
            [#"{"id": 1, "x": tru}"#, #"{"a":[1,2}"#, "\"\u{1}\"", #"{"a":1}}"#, #"{"é": "\u{FF}"}"#][threads % 5]
        let text = lines.joined(separator: "\n")
        let serial = Self.serialEvents(text)
        #expect(serial.1 != nil)
        for size in Self.sizes {
            let parallel = Self.parallelEvents(text, threads: threads, blockSize: size)
            #expect(parallel.1 == serial.1, "threads \(threads), block \(size)")
            #expect(
                Self.difference(parallel.0, serial.0) == nil,
                "events before the error; threads \(threads), block \(size)"
            )
        }
    }

    @Test(
        "edge inputs",
        arguments: [
            "", "\n\n\n", "1", "1\n2", "\u{FEFF}{\"a\":1}\n{\"b\":2}\n", "[1,\n2]\n3", "{\"a\":1}\n{\"b\":",
            "  7  \n\n8",
            String(repeating: "{\"k\":\"" + String(repeating: "z", count: 3000) + "\"}", count: 3),
        ]
    )
    func edgeInputs(text: String) {
        let serial = Self.serialEvents(text)
        for threads in [1, 2, 5] {
            let parallel = Self.parallelEvents(text, threads: threads, blockSize: 1024)
            #expect(parallel.1 == serial.1, "\(text.debugDescription) threads \(threads)")
            #expect(Self.difference(parallel.0, serial.0) == nil, "\(text.debugDescription) threads \(threads)")
        }
    }

    /// One record, with everything it says about where it came from.
    static func describe(_ record: JSONRecord<JSONFragment>) -> String {
        "\(record.value) \(record.path.normalized) q\(record.queryIndex) v\(record.topLevelIndex) L\(record.line) @\(record.byteOffset)"
    }

    static func serialRecords(
        _ text: String,
        _ paths: [String],
        _ options: JSONRecordOptions
    ) -> ([String], String?, [String]) {
        var out: [String] = []
        var options = options
        options.parser.allowMultipleValues = true
        do {
            let reader = try JSONRecordReader(JSONFragment.self, at: paths, from: .text(text), options: options)
            do {
                while let record = try reader.nextRecord() { out.append(describe(record)) }
            } catch {
                return (out, "\(error)", reader.report.badLines.map(\.description))
            }
            return (out, nil, reader.report.badLines.map(\.description))
        } catch {
            return (out, "\(error)", [])
        }
    }

    static func parallelRecords(
        _ text: String,
        _ paths: [String],
        _ options: JSONRecordOptions,
        threads: Int,
        blockSize: Int
    ) -> ([String], String?, [String]) {
        var out: [String] = []
        do {
            let reader = try JSONRecordReader(
                JSONFragment.self,
                at: paths,
                from: .text(text),
                options: options,
                parallel: JSONParallelOptions(threads: threads, blockSize: blockSize)
            )
            do {
                while let record = try reader.nextRecord() { out.append(describe(record)) }
            } catch {
                return (out, "\(error)", reader.report.badLines.map(\.description))
            }
            #expect(reader.report.deliveredCount == out.count)
            return (out, nil, reader.report.badLines.map(\.description))
        } catch {
            return (out, "\(error)", [])
        }
    }

    @Test("records equal the serial reader's", arguments: 1...8)
    func recordsEqualSerial(threads: Int) {
        var generator = Generator(state: 7 + UInt64(threads))
        let text = generator.document(lines: 400, multiLine: threads % 2 == 1)
        for paths in [["$"], ["$..k1", "$.v[*]"], ["$[?@ > 500]"]] {
            let serial = Self.serialRecords(text, paths, JSONRecordOptions())
            #expect(serial.1 == nil)
            #expect(!serial.0.isEmpty)
            for size in Self.sizes {
                let parallel = Self.parallelRecords(text, paths, JSONRecordOptions(), threads: threads, blockSize: size)
                #expect(parallel.1 == nil)
                #expect(Self.difference(parallel.0, serial.0) == nil, "\(paths) threads \(threads), block \(size)")
            }
        }
    }

    @Test("records before an error, then the error; bad lines skipped in order", arguments: [1, 2, 3, 8])
    func recordErrorsAndBadLines(threads: Int) {
        var generator = Generator(state: 50 + UInt64(threads))
        var lines = generator.document(lines: 300, multiLine: false).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        for bad in [30, 150, 151, 260] { lines[bad] = [#"{"id": oops}"#, #"{"id": 3"#, "][", "\"\u{2}\""][bad % 4] }
        let text = lines.joined(separator: "\n") + "\n"
        var skipping = JSONRecordOptions()
        skipping.onBadLine = .skip
        var limited = JSONRecordOptions()
        limited.limit = 77
        for options in [JSONRecordOptions(), skipping, limited] {
            let serial = Self.serialRecords(text, ["$.id"], options)
            for size in Self.sizes {
                let parallel = Self.parallelRecords(text, ["$.id"], options, threads: threads, blockSize: size)
                #expect(Self.difference(parallel.0, serial.0) == nil, "threads \(threads), block \(size)")
                #expect(parallel.1 == serial.1, "threads \(threads), block \(size)")
                #expect(Self.difference(parallel.2, serial.2) == nil, "threads \(threads), block \(size)")
            }
        }
    }

    struct Row: Decodable, Sendable, Equatable {
        let id: Int
    }

    @Test("decoding failures stop or are skipped as with one reader")
    func decodingFailures() throws {
        let text = (0..<2000).map { $0 % 701 == 700 ? #"{"id":"x"}"# : #"{"id":\#($0)}"# }.joined(separator: "\n")
        for policy in [JSONRecordOptions.DecodingFailurePolicy.stop, .skip] {
            var options = JSONRecordOptions()
            options.onDecodingFailure = policy
            options.parser.allowMultipleValues = true
            let serial = try JSONRecordReader(Row.self, at: "$", from: .text(text), options: options)
            let parallel = try JSONRecordReader(
                Row.self,
                at: "$",
                from: .text(text),
                options: options,
                parallel: JSONParallelOptions(threads: 3, blockSize: 1024)
            )
            var a: [Row] = []
            var b: [Row] = []
            var errorA: String?
            var errorB: String?
            do { while let row = try serial.next() { a.append(row) } } catch { errorA = "\(error)" }
            do { while let row = try parallel.next() { b.append(row) } } catch { errorB = "\(error)" }
            #expect(a == b)
            #expect(errorA == errorB)
            #expect(serial.report.skippedCount == parallel.report.skippedCount)
            #expect(serial.report.failures.map(\.description) == parallel.report.failures.map(\.description))
            if policy == .stop { #expect(errorB?.contains("line 701") == true) }
        }
    }

    /// A source that fails after `count` bytes.
    struct FailingSource: JSONByteSource {
        var bytes: [UInt8]
        var position = 0
        let failAt: Int
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            if position >= failAt { throw JSONIOError(source: "test source", message: "injected failure") }
            let n = min(buffer.count, failAt - position, bytes.count - position)
            buffer.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[position..<position + n])
            )
            position += n
            return n
        }
    }

    @Test("a read error comes after every record before it")
    func readErrorKeepsItsPlace() throws {
        let text = (0..<5000).map { #"{"id":\#($0)}"# }.joined(separator: "\n") + "\n"
        let source = FailingSource(bytes: Array(text.utf8), failAt: 40_000)
        let reader = try JSONRecordReader(
            Row.self,
            at: "$",
            from: source,
            parallel: JSONParallelOptions(threads: 2, blockSize: 4096)
        )
        var ids: [Int] = []
        #expect(throws: JSONIOError.self) { while let row = try reader.next() { ids.append(row.id) } }
        // Every record of the blocks read before the failing read came first, in order.
        let linesBefore = Array(text.utf8.prefix(40_000 - 2 * 4096)).filter { $0 == UInt8(ascii: "\n") }.count
        #expect(ids == Array(0..<ids.count))
        #expect(ids.count >= linesBefore)
    }

    @Test("options that cannot be split, and values out of range, are refused")
    func refusedOptions() {
        let source = MemoryByteSource("1\n2\n".utf8)
        #expect(throws: JSONOptionError.self) {
            try JSONParser.validateInParallel(source, options: .init(allowMultipleValues: false))
        }
        #expect(throws: JSONOptionError.self) {
            try JSONParser.validateInParallel(source, options: .init(allowComments: true, allowMultipleValues: true))
        }
        for parallel in [JSONParallelOptions(threads: 0), JSONParallelOptions(threads: 2, blockSize: 10)] {
            #expect(throws: JSONOptionError.self) {
                try JSONParser.validateInParallel(source, options: .init(allowMultipleValues: true), parallel: parallel)
            }
        }
        #expect(throws: JSONOptionError.self) {
            var options = JSONRecordOptions()
            options.parser.allowComments = true
            _ = try JSONRecordReader(Row.self, at: "$", from: source, options: options, parallel: JSONParallelOptions())
        }
    }

    @Test("the document limit is enforced across blocks")
    func documentLimit() {
        let text = (0..<3000).map { #"{"id":\#($0)}"# }.joined(separator: "\n") + "\n"
        var options = JSONParser.Options(allowMultipleValues: true)
        options.maxDocumentBytes = 20_000
        var serialError = ""
        do { try JSONParser.validate(.text(text), options: options) } catch { serialError = "\(error)" }
        var parallelError = ""
        do {
            try JSONParser.validateInParallel(
                .text(text),
                options: options,
                parallel: .init(threads: 4, blockSize: 1024)
            )
        } catch { parallelError = "\(error)" }
        #expect(!serialError.isEmpty)
        #expect(parallelError == serialError)
    }
}

extension ParallelNDJSONTests {
    /// Strict NDJSON, line by line (no newlines): one value per non-blank line.
    static func strictLines(seed: UInt64, lines: Int) -> [String] {
        var generator = Generator(state: seed)
        return (0..<lines).map { _ in
            switch generator.next(15) {
            case 0: return ""
            case 1: return "   \r"
            case 2: return "{\"long\":\"" + String(repeating: "cd", count: 200 + generator.next(200)) + "\"}"
            default: return "{\"id\":\(generator.next(1000)),\"v\":" + generator.value(depth: 1) + "}"
            }
        }
    }

    static func strictDocument(seed: UInt64, lines: Int) -> String {
        strictLines(seed: seed, lines: lines).joined(separator: "\n") + "\n"
    }

    static func unorderedRecords(_ text: String, _ paths: [String], threads: Int, blockSize: Int) -> ([String], String?)
    {
        var out: [(Int, String)] = []
        do {
            let reader = try JSONRecordReader(
                JSONFragment.self,
                at: paths,
                from: .text(text),
                parallel: JSONParallelOptions(threads: threads, blockSize: blockSize, ordered: false)
            )
            do {
                while let record = try reader.nextRecord() { out.append((record.byteOffset, describe(record))) }
            } catch {
                return (out.sorted { $0.0 < $1.0 }.map(\.1), "\(error)")
            }
        } catch {
            return ([], "\(error)")
        }
        // Any order between blocks; sorted by where they start, they are the serial records.
        return (out.sorted { $0.0 < $1.0 }.map(\.1), nil)
    }

    @Test("unordered: the serial records (by position), exact lines, offsets and indices", arguments: [1, 2, 5, 8])
    func unorderedEqualsSerialAsASet(threads: Int) {
        let text = Self.strictDocument(seed: 300 + UInt64(threads), lines: 500)
        for paths in [["$"], ["$.id", "$..k0"]] {
            let serial = Self.serialRecords(text, paths, JSONRecordOptions())
            #expect(serial.1 == nil)
            for size in [1024, 4096, 65536] {
                let unordered = Self.unorderedRecords(text, paths, threads: threads, blockSize: size)
                #expect(unordered.1 == nil, "threads \(threads), block \(size)")
                // Records that start at the same offset (two queries) keep their serial order.
                #expect(Set(unordered.0) == Set(serial.0), "threads \(threads), block \(size)")
                #expect(unordered.0.count == serial.0.count)
            }
        }
    }

    @Test("unordered: what is not strict NDJSON is an error at its line, after every record before it")
    func unorderedRefusesWhatIsNotStrict() throws {
        var lines = Self.strictLines(seed: 9, lines: 400)
        for (bad, expected) in [
            (200, "line 201 holds 2 values"), (250, "line 251"), (300, "line 301 is longer than a block"),
        ] {
            var copy = lines
            switch bad {
            case 200: copy[bad] = #"{"id":1} {"id":2}"#
            case 250: copy[bad] = #"{"id": ["#
            default: copy[bad] = #"{"s":""# + String(repeating: "x", count: 5000) + #""}"#
            }
            let text = copy.joined(separator: "\n")
            for threads in [1, 3] {
                let result = Self.unorderedRecords(text, ["$.id"], threads: threads, blockSize: 2048)
                #expect(result.1?.contains(expected) == true, "\(String((result.1 ?? "no error").prefix(300)))")
                // Every record before the bad line came out.
                let before = copy[..<bad].filter { $0.hasPrefix("{\"id\"") }.count
                let lineNumbers = result.0.compactMap { entry in
                    entry.split(separator: " ").first { $0.hasPrefix("L") }.flatMap { Int($0.dropFirst()) }
                }
                #expect(lineNumbers.filter { $0 <= bad }.count == before, "\(expected)")
            }
        }
        lines.removeAll()
        var options = JSONRecordOptions()
        options.onBadLine = .skip
        #expect(throws: JSONOptionError.self) {
            _ = try JSONRecordReader(
                Row.self,
                at: "$",
                from: .text("1\n"),
                options: options,
                parallel: JSONParallelOptions(threads: 2, ordered: false)
            )
        }
        #expect(throws: JSONOptionError.self) {
            try JSONParser.validateInParallel(
                .text("1\n"),
                options: .init(allowMultipleValues: true),
                parallel: JSONParallelOptions(threads: 2, ordered: false)
            )
        }
    }
}
