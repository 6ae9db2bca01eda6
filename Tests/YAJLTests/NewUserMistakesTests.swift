import Foundation
import Testing
import YAJL
import YAJLCore

#if canImport(Glibc)
import Glibc
#endif

/// The mistakes a new user makes on purpose in issue 48: a query that matches nothing, a writer
/// never finished, `print` mixed with the sink, NDJSON without the flag, a `Date` without a
/// strategy, errors shown with `localizedDescription`.
@Suite("What a new user meets")
struct NewUserMistakesTests {
    struct Item: Codable, Equatable, Sendable { let id: Int }

    /// A document of `count` items under `key`, and typo'd queries that select nothing in it.
    static func document(count: Int, key: String = "results") -> String {
        #"{"meta": {"n": \#(count)}, "\#(key)": ["# + (0..<count).map { #"{"id": \#($0)}"# }.joined(separator: ", ")
            + "]}"
    }
    static let misspelt = [
        "$.result[*]", "$.Results[*]", "$.results[*].ID", "$.meta.count", "$.results[99999]", "$..nothing",
        "$[?@.x == 1]",
    ]

    static var requiring: JSONRecordOptions {
        var options = JSONRecordOptions()
        options.requireMatch = true
        return options
    }

    @Test("a query that selects nothing throws with requireMatch, in every reader", arguments: misspelt)
    func misspeltQueriesThrow(query: String) async throws {
        for count in [0, 1, 7, 300] {
            let text = Self.document(count: count)
            for concurrently in [false, true] {
                var options = Self.requiring
                options.parsesConcurrently = concurrently
                let reader = try JSONRecordReader(Item.self, at: query, from: .text(text), options: options)
                #expect(throws: JSONNoMatchError.self) { while try reader.next() != nil {} }
                #expect(reader.report.matchedNothing)
            }
            await #expect(throws: JSONNoMatchError.self) {
                for try await _ in JSONRecords(Item.self, at: query, from: .text(text), options: Self.requiring) {}
            }
            let push = try JSONRecordPushParser(Item.self, at: query, options: Self.requiring)
            #expect(throws: JSONNoMatchError.self) {
                try push.feed(Array(text.utf8)) { _ in }
                try push.finish { _ in }
            }
            // Without the option: an empty stream, and the report says nothing matched.
            let quiet = try JSONRecordReader(Item.self, at: query, from: .text(text))
            #expect(try quiet.next() == nil)
            #expect(quiet.report.matchedNothing)
        }
    }

    @Test("the error names the query, the bytes read and the option")
    func theErrorSaysWhatToChange() throws {
        let text = Self.document(count: 3)
        let reader = try JSONRecordReader(Item.self, at: "$.result[*]", from: .text(text), options: Self.requiring)
        do {
            while try reader.next() != nil {}
            Issue.record("no error")
        } catch let error as JSONNoMatchError {
            #expect(error.queries == ["$.result[*]"])
            #expect(error.bytesRead == text.utf8.count)
            #expect(error.localizedDescription.contains("no value matched $.result[*]"))
            #expect(error.localizedDescription.contains("JSONRecordOptions.requireMatch"))
        }
    }

    @Test("a query that selects something never throws, and the report says it matched", arguments: [0, 1, 2, 50])
    func matchesAreNotErrors(count: Int) throws {
        let text = Self.document(count: count)
        let reader = try JSONRecordReader(Item.self, at: "$.results[*]", from: .text(text), options: Self.requiring)
        if count == 0 {
            // An empty array selects nothing: with requireMatch that is the error too.
            #expect(throws: JSONNoMatchError.self) { while try reader.next() != nil {} }
            return
        }
        var seen: [Item] = []
        while let item = try reader.next() { seen.append(item) }
        #expect(seen == (0..<count).map(Item.init))
        #expect(!reader.report.matchedNothing)
        // Records that do not decode still matched.
        var skipping = Self.requiring
        skipping.onDecodingFailure = .skip
        let strings = try JSONRecordReader(String.self, at: "$.results[*]", from: .text(text), options: skipping)
        #expect(try strings.next() == nil)
        #expect(strings.report.skippedCount == count)
        #expect(!strings.report.matchedNothing)
    }

    @Test("`$`, limit 0 and an empty NDJSON input are not errors")
    func rootLimitZeroAndEmptyNDJSON() throws {
        var ndjson = Self.requiring
        ndjson.parser.allowMultipleValues = true
        // `$` on input without values: whatever the reader says without the option (an empty
        // stream, or YAJL's premature EOF for no bytes at all), it says with it.
        for text in ["", "\n", "  \n\n"] {
            var plain = ndjson
            plain.requireMatch = false
            let expected = Result { try JSONRecordReader(Item.self, at: "$", from: .text(text), options: plain).next() }
            let reader = try JSONRecordReader(Item.self, at: "$", from: .text(text), options: ndjson)
            let actual = Result { try reader.next() }
            #expect(String(describing: actual) == String(describing: expected))
            #expect((try? actual.get()) == nil)
            let parallel = try JSONRecordReader(
                Item.self,
                at: "$",
                from: .text(text),
                options: ndjson,
                parallel: .init()
            )
            do {
                _ = try parallel.next()
            } catch {
                #expect(!(error is JSONNoMatchError), "\(error)")
            }
        }
        var none = Self.requiring
        none.limit = 0
        let reader = try JSONRecordReader(
            Item.self,
            at: "$.results[*]",
            from: .text(Self.document(count: 5)),
            options: none
        )
        #expect(try reader.next() == nil)
    }

    @Test("parallel NDJSON: nothing selected in any block throws once, after every block", arguments: [1, 40, 2000])
    func parallelNoMatch(lines: Int) throws {
        let text = (0..<lines).map { #"{"id": \#($0)}"# }.joined(separator: "\n") + "\n"
        var options = Self.requiring
        options.parser.allowMultipleValues = true
        var parallel = JSONParallelOptions()
        parallel.blockSize = 1024
        let wrong = try JSONRecordReader(Int.self, at: "$.ID", from: .text(text), options: options, parallel: parallel)
        #expect(throws: JSONNoMatchError.self) { while try wrong.next() != nil {} }
        let right = try JSONRecordReader(Int.self, at: "$.id", from: .text(text), options: options, parallel: parallel)
        var count = 0
        while try right.next() != nil { count += 1 }
        #expect(count == lines)
    }

    // MARK: Writers dropped without finish()

    @Test("a record writer dropped without finish() completes its document", arguments: [0, 1, 2, 17, 3000])
    func droppedRecordWritersFinish(count: Int) throws {
        for layout in [JSONRecordWriter<Item>.Layout.array, .ndjson] {
            let sink = MemoryOutputSink()
            do {
                let writer = JSONRecordWriter<Item>(to: sink, layout: layout)
                for id in 0..<count { try writer.write(Item(id: id)) }
            }  // dropped here
            let items: [Item]
            switch layout {
            case .array: items = try JSONDecoder().decode([Item].self, from: sink.data)
            case .ndjson:
                #expect(count == 0 || sink.string.hasSuffix("}\n"))
                items = try sink.string.split(separator: "\n").map {
                    try JSONDecoder().decode(Item.self, from: Data($0.utf8))
                }
            }
            #expect(items == (0..<count).map(Item.init))
        }
    }

    @Test("the scoped writer finishes, also when its closure throws", arguments: [0, 3, 100])
    func scopedWritersFinish(count: Int) async throws {
        struct Stop: Error {}
        let sink = MemoryOutputSink()
        #expect(throws: Stop.self) {
            try JSONRecordWriter<Item>.write(to: sink) { writer in
                for id in 0..<count { try writer.write(Item(id: id)) }
                throw Stop()
            }
        }
        #expect(try JSONDecoder().decode([Item].self, from: sink.data) == (0..<count).map(Item.init))
        let async = MemoryOutputSink()
        let written = try await JSONRecordWriter<Item>.write(to: async, layout: .ndjson) { writer in
            for id in 0..<count { try writer.write(Item(id: id)) }
            await Task.yield()
            return writer.count
        }
        #expect(written == count)
        #expect(async.string == (0..<count).map { #"{"id":\#($0)}"# + "\n" }.joined())
    }

    /// A writer dropped at a random point of a random document writes valid JSON that holds
    /// everything written, every open container closed.
    @Test("a JSONWriter dropped anywhere completes valid JSON", arguments: 0..<8)
    func droppedWritersCloseTheirContainers(seed: UInt64) throws {
        var random = NumberParsingTests.SplitMix(state: seed)
        for _ in 0..<60 {
            let sink = MemoryOutputSink()
            var steps = 0
            do {
                let writer = JSONWriter(to: sink)
                var open: [Bool] = []  // true: object waiting for a key
                var needsValue = false  // inside an object, after a key
                let budget = Int(random.next() % 40)
                try writer.startArray()
                open.append(false)
                while steps < budget {
                    steps += 1
                    let inObjectWantingKey = open.last == true && !needsValue
                    if inObjectWantingKey {
                        if random.next() % 4 == 0 && open.count > 1 {
                            try writer.endObject()
                            open.removeLast()
                        } else {
                            try writer.key("k\(steps)")
                            needsValue = true
                        }
                        continue
                    }
                    needsValue = false
                    switch random.next() % 5 {
                    case 0:
                        try writer.startObject()
                        open.append(true)
                    case 1:
                        try writer.startArray()
                        open.append(false)
                    case 2 where open.last == false && open.count > 1:
                        try writer.endArray()
                        open.removeLast()
                    default: try writer.string("v\(steps)")
                    }
                }
            }
            let value = try JSONValue(parsing: sink.data)
            #expect(value.arrayValue != nil, "\(sink.string)")
        }
    }

    /// A writer kept in a global of a `main.swift` is never released: the process's exit
    /// completes it (`UnfinishedWriters`, run by `atexit`); here the same completion is run on
    /// this test's own writers, which stay alive throughout.
    @Test("writers that are never released finish at exit; memory writers are not kept", arguments: [0, 1, 5])
    func writersNeverReleasedFinishAtExit(count: Int) throws {
        let directory = FileManager.default.temporaryDirectory.path
        let records = directory + "/at-exit-records-\(getpid())-\(count).json"
        let lines = directory + "/at-exit-lines-\(getpid())-\(count).ndjson"
        let plain = directory + "/at-exit-plain-\(getpid())-\(count).json"
        defer { for path in [records, lines, plain] { unlink(path) } }
        let array = JSONRecordWriter<Item>(to: try .file(records))
        let ndjson = JSONRecordWriter<Item>(to: try .file(lines), layout: .ndjson)
        for id in 0..<count {
            try array.write(Item(id: id))
            try ndjson.write(Item(id: id))
        }
        let writer = JSONWriter(to: try .file(plain))
        try writer.startObject()
        try writer.key("a")
        try writer.startArray()
        for id in 0..<count { try writer.string("v\(id)") }
        try writer.startObject()
        try writer.key("k")
        let memory = JSONWriter(to: MemoryOutputSink())
        #expect(
            UnfinishedWriters.contains(array) && UnfinishedWriters.contains(ndjson)
                && UnfinishedWriters.contains(writer)
        )
        #expect(!UnfinishedWriters.contains(memory))
        UnfinishedWriters.completeAll(only: [array, ndjson, writer])
        #expect(!UnfinishedWriters.contains(array) && !UnfinishedWriters.contains(writer))
        let expected = (0..<count).map(Item.init)
        #expect(
            try JSONDecoder().decode([Item].self, from: Data(contentsOf: URL(fileURLWithPath: records))) == expected
        )
        let text = try String(contentsOfFile: lines, encoding: .utf8)
        #expect(
            try text.split(separator: "\n").map { try JSONDecoder().decode(Item.self, from: Data($0.utf8)) } == expected
        )
        let strings = (0..<count).map { "\"v\($0)\"," }.joined()
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == #"{"a":["# + strings + #"{"k":null}]}"#)
        try array.finish()  // already finished: nothing more is written
        #expect(
            try JSONDecoder().decode([Item].self, from: Data(contentsOf: URL(fileURLWithPath: records))) == expected
        )
        withExtendedLifetime((array, ndjson, writer, memory)) {}
    }

    /// The same through a real exit: this test process is run again, with only
    /// ``exitProbe()``, which leaves writers unfinished in a global and returns; the files must
    /// hold complete documents once that process has exited.
    @Test("writers left in a global finish when the process exits")
    func writersLeftInGlobalsFinishAtExit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("at-exit-\(getpid())").path
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "exitProbe"]
        child.environment = ProcessInfo.processInfo.environment.merging(["YAJL_EXIT_PROBE": folder]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        let records = try Data(contentsOf: URL(fileURLWithPath: folder + "/records.json"))
        #expect(try JSONDecoder().decode([Item].self, from: records) == (0..<3).map(Item.init))
        let lines = try String(contentsOfFile: folder + "/lines.ndjson", encoding: .utf8)
        #expect(lines == (0..<3).map { #"{"id":\#($0)}"# + "\n" }.joined())
        #expect(try String(contentsOfFile: folder + "/plain.json", encoding: .utf8) == #"{"a":["x",{"k":null}]}"#)
    }

    /// Run only as the child process of ``writersLeftInGlobalsFinishAtExit()`` (`YAJL_EXIT_PROBE`
    /// names its folder): writers left unfinished in a global, as in a `main.swift`.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["YAJL_EXIT_PROBE"] != nil,
            "runs only as the child process of 'writers left in a global finish when the process exits'"
        )
    )
    func exitProbe() throws {
        let folder = try #require(ProcessInfo.processInfo.environment["YAJL_EXIT_PROBE"])
        let array = JSONRecordWriter<Item>(to: try .file(folder + "/records.json"))
        let ndjson = JSONRecordWriter<Item>(to: try .file(folder + "/lines.ndjson"), layout: .ndjson)
        for id in 0..<3 {
            try array.write(Item(id: id))
            try ndjson.write(Item(id: id))
        }
        let writer = JSONWriter(to: try .file(folder + "/plain.json"))
        try writer.startObject()
        try writer.key("a")
        try writer.startArray()
        try writer.string("x")
        try writer.startObject()
        try writer.key("k")
        exitProbeWriters = [array, ndjson, writer]
    }

    @Test("JSONWriter.write(to:) closes what the closure left open")
    func scopedJSONWriter() throws {
        let sink = MemoryOutputSink()
        try JSONWriter.write(to: sink) { writer in
            try writer.startObject()
            try writer.key("a")
            try writer.startArray()
            try writer.string("x")
        }
        #expect(sink.string == #"{"a":["x"]}"#)
    }

    // MARK: print and the standard output sink

    /// Standard output redirected to a file for the duration: `print` before, the writer, `print`
    /// after (flushed by the test, as the process's exit would).
    @Test("print and the .standardOutput sink keep their order")
    func printThenSinkThenPrint() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stdout-order-\(getpid()).txt").path
        defer { unlink(path) }
        fflush(nil)
        let saved = dup(1)
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(saved >= 0 && file >= 0)
        dup2(file, 1)
        close(file)
        print("before")
        let writer = JSONRecordWriter<Item>(to: .standardOutput, layout: .ndjson)
        try writer.write(Item(id: 1))
        try writer.finish()
        print("after")
        fflush(nil)
        dup2(saved, 1)
        close(saved)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "before\n{\"id\":1}\nafter\n")
    }

    // MARK: Errors that Swift code can show

    @Test("localizedDescription is the error's description, for every public error")
    func localizedDescriptions() async throws {
        var errors: [any Error] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        collect { _ = try JSONValue(parsing: "[1,") }
        collect { _ = try JSONRecordDecoder().decode(Int.self, from: #""x""#) }
        collect { _ = try JSONRecordReader(Item.self, at: "$[", from: .text("[]")) }
        collect { _ = try JSONRecordReader(Item.self, at: "$.a", from: .file("/nonexistent/x.json")).next() }
        collect {
            var options = JSONRecordOptions()
            options.limit = -1
            _ = try JSONRecordReader(Item.self, at: "$", from: .text("1"), options: options)
        }
        collect { try JSONWriter(to: MemoryOutputSink()).endArray() }
        collect {
            while try JSONRecordReader(Item.self, at: "$.x", from: .text("{}"), options: Self.requiring).next() != nil {
            }
        }
        collect { _ = try JSONValue(foundation: Date()) }
        #expect(errors.count == 8)
        for error in errors {
            let described = String(describing: error)
            #expect(error.localizedDescription == described, "\(type(of: error))")
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
    }

    @Test(
        "several values on separate lines: the error names allowMultipleValues",
        arguments: [
            "{\"a\":1}\n{\"a\":2}\n", "[1]\n[2]", "1\n2", "\"x\"\n\"y\"", "true\r\nfalse", "{}\n  \t{}", "null\nnull\n",
            "{\"a\":1}\n-1",
        ]
    )
    func ndjsonWithoutTheFlag(text: String) throws {
        for chunk in [1, 3, 64 << 10] {
            var options = JSONParser.Options()
            options.chunkSize = max(chunk, 1)
            do {
                _ = try JSONRecordReader(JSONValue.self, at: "$", from: .text(text), options: .init(parser: options))
                    .next()
                _ = try JSONValue(parsing: text)
                Issue.record("accepted \(text)")
            } catch let error as JSONParseError {
                #expect(error.kind == .trailingGarbage)
                #expect(error.description.contains("allowMultipleValues"), "\(error)")
            }
        }
    }

    /// Queries that read past the first line fail there, with the hint. (A query that stops
    /// early, such as `$.id`, stops inside the first line, before the second is read: documented
    /// with ``JSONRecordOptions/stopsEarly``.)
    @Test(
        "NDJSON without the flag fails, whatever the reader",
        arguments: ["$", "$.*", "$..id", "$[?@.id > 0]", "$.missing"]
    )
    func ndjsonWithoutTheFlagAndAQuery(query: String) async throws {
        let text = (1...50).map { #"{"id": \#($0)}"# }.joined(separator: "\n") + "\n"
        for concurrently in [false, true] {
            var options = JSONRecordOptions()
            options.parsesConcurrently = concurrently
            let reader = try JSONRecordReader(JSONValue.self, at: query, from: .text(text), options: options)
            do {
                while try reader.next() != nil {}
                Issue.record("\(query): read NDJSON as one document without an error")
            } catch let error as JSONParseError {
                #expect(error.description.contains("allowMultipleValues"), "\(error)")
            }
        }
        await #expect(throws: JSONParseError.self) {
            for try await _ in JSONRecords(JSONValue.self, at: query, from: .text(text)) {}
        }
    }

    @Test("garbage on the same line gets no NDJSON hint", arguments: ["{} {}", "[1] x", "1 2", "{}\n}"])
    func garbageOnTheSameLine(text: String) throws {
        do {
            _ = try JSONValue(parsing: text)
            Issue.record("accepted \(text)")
        } catch let error as JSONParseError {
            #expect(!error.description.contains("allowMultipleValues"), "\(error)")
        }
    }

    @Test("a Date written as text names dateDecodingStrategy; with it set, it decodes")
    func dateWithoutAStrategy() throws {
        struct Event: Decodable { let at: Date }
        let text = #"{"at": "2026-12-06T10:00:00Z"}"#
        do {
            _ = try JSONRecordDecoder().decode(Event.self, from: text)
            Issue.record("decoded")
        } catch {
            #expect("\(error)".contains("dateDecodingStrategy"), "\(error)")
        }
        let decoder = JSONRecordDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Event.self, from: text).at == Date(timeIntervalSince1970: 1_796_551_200))
    }
}

/// What ``NewUserMistakesTests/exitProbe()`` leaves for the process's exit, never released.
nonisolated(unsafe) var exitProbeWriters: [AnyObject] = []
