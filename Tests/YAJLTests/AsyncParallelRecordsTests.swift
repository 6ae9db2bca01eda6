import Foundation
import Testing
import YAJL

/// `JSONRecords(_:at:from:options:parallel:)`: parallel NDJSON in async code gives what the
/// synchronous parallel reader and a reader on one thread give, errors included, and stops when
/// the task is cancelled or the loop is left.
@Suite("Parallel NDJSON in async code")
struct AsyncParallelRecordsTests {
    struct Row: Decodable, Equatable, Sendable {
        let id: Int
        let tag: String?
    }

    /// NDJSON of `lines` rows, with blank lines and, at `badLine`, a broken one.
    static func ndjson(lines: Int, seed: UInt64, badLine: Int? = nil) -> String {
        var random = NumberParsingTests.SplitMix(state: seed)
        var text = ""
        for line in 0..<lines {
            if line == badLine {
                text += "{\"id\": \(line), \n"
                continue
            }
            if random.next() % 17 == 0 { text += "\n" }
            let tag = random.next() % 3 == 0 ? "null" : "\"t\(String(repeating: "é", count: Int(random.next() % 40)))\""
            text += "{\"id\": \(line), \"tag\": \(tag)}\n"
        }
        return text
    }

    /// Records as `[path @ line: id]`, and the error's text, from any reader.
    typealias Outcome = (records: [String], error: String?)

    static func describe(_ record: JSONRecord<Row>) -> String {
        "\(record.path) @\(record.line):\(record.byteOffset) v\(record.topLevelIndex) \(record.value.id)"
    }

    static func serial(_ text: String, options: JSONRecordOptions) -> Outcome {
        var records: [String] = []
        do {
            var options = options
            options.parser.allowMultipleValues = true
            let reader = try JSONRecordReader(Row.self, at: "$", from: .text(text), options: options)
            while let record = try reader.nextRecord() { records.append(describe(record)) }
            return (records, nil)
        } catch {
            return (records, "\(error)")
        }
    }

    static func asyncParallel(
        _ text: String,
        options: JSONRecordOptions,
        parallel: JSONParallelOptions
    ) async -> Outcome {
        var records: [String] = []
        do {
            let sequence = JSONRecords(Row.self, at: "$", from: .text(text), options: options, parallel: parallel)
            for try await record in sequence.matches { records.append(describe(record)) }
            return (records, nil)
        } catch {
            return (records, "\(error)")
        }
    }

    @Test("the same records and errors as one thread", arguments: [(0, 1), (1, 2), (3, 3), (700, 2), (5000, 4)])
    func sameAsSerial(lines: Int, threads: Int) async throws {
        for (seed, badLine) in [(UInt64(1), nil), (2, lines / 2), (3, lines > 0 ? lines - 1 : nil)] as [(UInt64, Int?)]
        {
            let text = Self.ndjson(lines: lines, seed: seed, badLine: badLine)
            var parallel = JSONParallelOptions()
            parallel.threads = threads
            parallel.blockSize = 1024
            for skip in [false, true] {
                var options = JSONRecordOptions()
                if skip { options.onBadLine = .skip }
                let expected = Self.serial(text, options: options)
                let actual = await Self.asyncParallel(text, options: options, parallel: parallel)
                #expect(actual.records == expected.records, "lines \(lines), bad \(badLine ?? -1), skip \(skip)")
                #expect(actual.error == expected.error)
            }
        }
    }

    @Test("options out of range and invalid paths are the first next()'s error")
    func errorsAtTheFirstNext() async throws {
        var bad = JSONParallelOptions()
        bad.threads = 0
        await #expect(throws: JSONOptionError.self) {
            for try await _ in JSONRecords(Row.self, at: "$", from: .text("{}\n"), parallel: bad) {}
        }
        await #expect(throws: JSONPathSyntaxError.self) {
            for try await _ in JSONRecords(Row.self, at: "$[", from: .text("{}\n"), parallel: JSONParallelOptions()) {}
        }
        var options = JSONRecordOptions()
        options.requireMatch = true
        await #expect(throws: JSONNoMatchError.self) {
            for try await _ in JSONRecords(
                Int.self,
                at: "$.ID",
                from: .text("{\"id\": 1}\n"),
                options: options,
                parallel: .init()
            ) {}
        }
    }

    @Test("leaving the loop early or cancelling the task ends the reading")
    func earlyEndAndCancellation() async throws {
        let text = Self.ndjson(lines: 60_000, seed: 9)
        var parallel = JSONParallelOptions()
        parallel.blockSize = 4096
        var seen = 0
        for try await _ in JSONRecords(Row.self, at: "$", from: .text(text), parallel: parallel) {
            seen += 1
            if seen == 10 { break }
        }
        #expect(seen == 10)
        // Cancelled after the 100th record: the 101st next() throws, within a batch too.
        let task = Task {
            var count = 0
            do {
                for try await _ in JSONRecords(Row.self, at: "$", from: .text(text), parallel: parallel) {
                    count += 1
                    if count == 100 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch is CancellationError {
                return count
            }
            return -1
        }
        let counted = try await task.value
        #expect(counted == 100)
        // Each iteration reads the source afresh: all of it, again.
        var all = 0
        for try await _ in JSONRecords(Row.self, at: "$", from: .text(text), parallel: parallel) { all += 1 }
        #expect(all == 60_000)
    }
}
