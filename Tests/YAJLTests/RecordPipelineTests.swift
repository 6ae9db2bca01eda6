// About 450 lines: the concurrent pipeline's behaviours (order, errors, cancellation, memory,
// thread starts), each against the serial reader, sharing the same probes.

import Foundation
import Synchronization
import Testing
import YAJL
import YAJLFixtures

/// Concurrent parsing (``JSONRecordOptions/parsesConcurrently``) against parsing in the caller's
/// thread, and the decoder's reuse of containers against Foundation's `JSONDecoder`.
@Suite("Record pipeline and decoder reuse")
struct RecordPipelineTests {
    static func options(concurrent: Bool, chunkSize: Int = 64 << 10, skip: Bool = false) -> JSONRecordOptions {
        var options = JSONRecordOptions()
        options.parsesConcurrently = concurrent
        options.parser.chunkSize = chunkSize
        if skip { options.onDecodingFailure = .skip }
        return options
    }

    /// Every record (value, path, line, offset) and the final error, if any.
    static func drain<Record: Decodable & Equatable>(
        _ type: Record.Type,
        _ path: String,
        _ text: String,
        _ options: JSONRecordOptions
    ) throws -> (records: [JSONRecord<Record>], error: String?, skipped: Int) {
        let reader = try JSONRecordReader(type, at: path, from: .text(text), options: options)
        var records: [JSONRecord<Record>] = []
        do {
            while let record = try reader.nextRecord() { records.append(record) }
            return (records, nil, reader.report.skippedCount)
        } catch {
            return (records, "\(error)", reader.report.skippedCount)
        }
    }

    static func same<Record: Equatable>(_ a: [JSONRecord<Record>], _ b: [JSONRecord<Record>]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy {
                $0.value == $1.value && $0.path == $1.path && $0.line == $1.line && $0.byteOffset == $1.byteOffset
            }
    }

    struct Row: Decodable, Equatable {
        let id: Int
        let name: String
        let tags: [String]
    }

    /// Many records, so that batches end inside records at every chunk size.
    static let rows: String = {
        var text = #"{"results": ["#
        for id in 0..<2_000 {
            text +=
                (id == 0 ? "" : ",")
                + #"{"id": \#(id), "name": "row \#(id) \#(String(repeating: "é", count: id % 40))", "tags": ["\#(id % 7)"]}"#
        }
        return text + "]}"
    }()

    @Test(arguments: [1, 7, 4093, 64 << 10])
    func concurrentParsingDeliversTheSameRecords(chunkSize: Int) throws {
        let serial = try Self.drain(
            Row.self,
            "$.results[*]",
            Self.rows,
            Self.options(concurrent: false, chunkSize: chunkSize)
        )
        let concurrent = try Self.drain(
            Row.self,
            "$.results[*]",
            Self.rows,
            Self.options(concurrent: true, chunkSize: chunkSize)
        )
        #expect(serial.records.count == 2_000)
        #expect(serial.error == nil && concurrent.error == nil)
        #expect(Self.same(serial.records, concurrent.records))
    }

    @Test(arguments: [1, 64 << 10])
    func errorsKeepTheirPlaceAmongRecords(chunkSize: Int) throws {
        // A record that fails to decode, in both modes; then a syntax error after good records.
        let text = Self.rows.replacingOccurrences(of: #"{"id": 1500,"#, with: #"{"id": "x","#)
            .replacingOccurrences(of: #"{"id": 1900,"#, with: #"{"id": 1900 1,"#)
        for skip in [false, true] {
            let serial = try Self.drain(
                Row.self,
                "$.results[*]",
                text,
                Self.options(concurrent: false, chunkSize: chunkSize, skip: skip)
            )
            let concurrent = try Self.drain(
                Row.self,
                "$.results[*]",
                text,
                Self.options(concurrent: true, chunkSize: chunkSize, skip: skip)
            )
            #expect(serial.records.count == (skip ? 1_899 : 1_500))
            #expect(serial.error != nil)
            #expect(concurrent.error == serial.error)
            #expect(concurrent.skipped == serial.skipped)
            #expect(Self.same(serial.records, concurrent.records))
        }
    }

    @Test func aLimitStopsTheParsingThreadEarly() throws {
        let probe = DeliveryProbe(
            RepeatingSource(
                prefix: #"{"results": ["#,
                fill: #"{"id": 1, "name": "n", "tags": []},"#,
                count: 10_000_000,
                suffix: "0]}"
            )
        )
        var options = Self.options(concurrent: true)
        options.limit = 3
        let reader = try JSONRecordReader(Row.self, at: "$.results[*]", from: probe, options: options)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 3)
        #expect(reader.report.bytesRead <= 64 << 10)
    }

    /// A never-ending source that says when it has been released, from whichever thread.
    final class EndlessSource: JSONByteSource {
        private var base = RepeatingSource(
            prefix: #"{"results": ["#,
            fill: #"{"id": 1, "name": "n", "tags": []},"#,
            count: nil,
            suffix: ""
        )
        private let flag: ReleaseFlag
        init(_ flag: ReleaseFlag) { self.flag = flag }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try base.read(into: buffer) }
        deinit { flag.released.store(true, ordering: .sequentiallyConsistent) }
    }

    final class ReleaseFlag: Sendable {
        let released = Atomic<Bool>(false)

        /// Whether the source is released within 5 s (the parsing thread notices between reads).
        func waitForRelease() async throws -> Bool {
            var waited = 0
            while !released.load(ordering: .sequentiallyConsistent) && waited < 5_000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 10
            }
            return released.load(ordering: .sequentiallyConsistent)
        }
    }

    @Test func droppingTheReaderStopsTheParsingThreadAndReleasesTheSource() async throws {
        let flag = ReleaseFlag()
        do {
            let reader = try JSONRecordReader(
                Row.self,
                at: "$.results[*]",
                from: EndlessSource(flag),
                options: Self.options(concurrent: true)
            )
            for _ in 0..<1_000 { #expect(try reader.next() != nil) }
        }
        let released = try await flag.waitForRelease()
        #expect(released, "the source was not released after the reader was dropped")
    }

    @Test(arguments: [1, 64 << 10])
    func asyncRecordsFromABlockingSourceAreTheSameWithAParsingThread(chunkSize: Int) async throws {
        func collect(concurrent: Bool) async throws -> [String] {
            let records = JSONRecords(
                Row.self,
                at: "$.results[*]",
                from: .text(Self.rows),
                options: Self.options(concurrent: concurrent, chunkSize: chunkSize)
            )
            var seen: [String] = []
            for try await record in records.matches {
                seen.append("\(record.path) \(record.line) \(record.value.id) \(record.value.name)")
            }
            return seen
        }
        let serial = try await collect(concurrent: false)
        #expect(serial.count == 2_000)
        #expect(try await collect(concurrent: true) == serial)
    }

    @Test func leavingAnAsyncLoopEarlyStopsTheParsingThread() async throws {
        let flag = ReleaseFlag()
        var count = 0
        for try await _ in JSONRecords(
            Row.self,
            at: "$.results[*]",
            from: EndlessSource(flag),
            options: Self.options(concurrent: true)
        ) {
            count += 1
            if count == 500 { break }
        }
        #expect(count == 500)
        let released = try await flag.waitForRelease()
        #expect(released, "the source was not released after the loop ended")
    }

    @Test func cancellingATaskStopsTheParsingThreadWithCancellationError() async throws {
        let flag = ReleaseFlag()
        let consumer = Task {
            var count = 0
            for try await _ in JSONRecords(
                Row.self,
                at: "$.results[*]",
                from: EndlessSource(flag),
                options: Self.options(concurrent: true)
            ) {
                count += 1
                if count % 1_000 == 0 { await Task.yield() }
            }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        let released = try await flag.waitForRelease()
        #expect(released, "the source was not released after cancellation")
    }

    // MARK: Decoder reuse, checked against JSONDecoder

    /// Decodes every element of `$[*]` with the record reader (both modes) and with `JSONDecoder`.
    static func expectMatchesJSONDecoder<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws {
        let expected = try JSONDecoder().decode([T].self, from: Data(json.utf8))
        for concurrent in [false, true] {
            let reader = try JSONRecordReader(
                T.self,
                at: "$[*]",
                from: .text(json),
                options: options(concurrent: concurrent)
            )
            var decoded: [T] = []
            while let value = try reader.next() { decoded.append(value) }
            #expect(decoded == expected, "parsesConcurrently: \(concurrent)")
        }
    }

    struct Tree: Decodable, Equatable {
        let name: String
        let children: [Tree]
    }

    @Test func recursiveTypesUseTheirContainersAtEveryDepth() throws {
        try Self.expectMatchesJSONDecoder(
            Tree.self,
            #"""
            [{"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}, {"name": "d", "children": []}]},
             {"name": "e", "children": [{"name": "f", "children": []}]}]
            """#
        )
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Containers of one key type alive side by side: twice the same object, and two nested ones.
    struct SideBySide: Decodable, Equatable {
        let x: Int, y: Int, first: Int, second: Int, inner: Inner

        struct Inner: Decodable, Equatable {
            let x: Int
            init(from decoder: any Decoder) throws {
                x = try decoder.container(keyedBy: AnyKey.self).decode(Int.self, forKey: AnyKey("x"))
            }
        }

        init(from decoder: any Decoder) throws {
            let a = try decoder.container(keyedBy: AnyKey.self)
            let b = try decoder.container(keyedBy: AnyKey.self)
            let n1 = try a.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("n1"))
            let n2 = try a.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("n2"))
            inner = try a.decode(Inner.self, forKey: AnyKey("inner"))  // the same key type, one level deeper
            second = try n2.decode(Int.self, forKey: AnyKey("v"))
            first = try n1.decode(Int.self, forKey: AnyKey("v"))
            y = try b.decode(Int.self, forKey: AnyKey("y"))
            x = try a.decode(Int.self, forKey: AnyKey("x"))
        }
    }

    @Test func containersOfOneKeyTypeSideBySide() throws {
        try Self.expectMatchesJSONDecoder(
            SideBySide.self,
            #"""
            [{"x": 1, "y": 2, "n1": {"v": 3}, "n2": {"v": 4}, "inner": {"x": 5}},
             {"inner": {"x": 10}, "n2": {"v": 9}, "n1": {"v": 8}, "y": 7, "x": 6}]
            """#
        )
    }

    class Base: Decodable, Equatable {
        let id: Int
        static func == (a: Base, b: Base) -> Bool { type(of: a) == type(of: b) && a.isEqual(to: b) }
        func isEqual(to other: Base) -> Bool { id == other.id }
    }

    final class Derived: Base {
        let name: String
        enum CodingKeys: String, CodingKey { case name }
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
            try super.init(from: decoder)
        }
        override func isEqual(to other: Base) -> Bool { super.isEqual(to: other) && name == (other as? Derived)?.name }
    }

    @Test func subclassesAndTheirSuperclassShareTheDecoder() throws {
        try Self.expectMatchesJSONDecoder(Derived.self, #"[{"id": 1, "name": "a"}, {"name": "b", "id": 2}]"#)
    }

    struct Mixed: Decodable, Equatable {
        enum Shape: Codable, Equatable {
            case circle(radius: Double)
            case rectangle(width: Double, height: Double)
        }
        let shapes: [Shape]
        let byName: [String: [String: Int]]
        let maybe: [Int?]
    }

    @Test func enumsDictionariesAndOptionals() throws {
        try Self.expectMatchesJSONDecoder(
            Mixed.self,
            #"""
            [{"shapes": [{"circle": {"radius": 1.5}}, {"rectangle": {"width": 2, "height": 3}}],
              "byName": {"a": {"x": 1, "y": 2}, "b": {}}, "maybe": [1, null, 3]},
             {"shapes": [], "byName": {"z": {"q": 9}}, "maybe": []}]
            """#
        )
    }

    struct Shipment: Decodable {
        struct Address: Decodable { let zip: Int }
        let address: Address
    }

    @Test func errorPathsAreRightAfterContainersAreReused() throws {
        let json = #"{"results": [{"address": {"zip": 1}}, {"address": {"zip": 2}}, {"address": {"zip": "3"}}]}"#
        for concurrent in [false, true] {
            let reader = try JSONRecordReader(
                Shipment.self,
                at: "$.results[*]",
                from: .text(json),
                options: Self.options(concurrent: concurrent)
            )
            #expect(try reader.next()?.address.zip == 1)
            #expect(try reader.next()?.address.zip == 2)
            let error = #expect(throws: JSONRecordDecodingError.self) { try reader.next() }
            #expect(
                error?.description
                    == "$.results[2].address.zip: expected Int, found string at line 1, column 84 (byte 83)"
            )
        }
    }
}

/// Dropping a reader whose parsing thread is blocked in a read (a pipe whose writer stays open)
/// ends the thread and releases the source within a second.
@Suite("Dropped readers", .serialized)
struct DroppedReaderTests {
    static func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
    static func descriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test func aReaderBlockedOnAPipeIsReleasedWhenDropped() throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/self/task"), "needs /proc")
        let threadsBefore = Self.threads()
        var pipes: [Pipe] = []
        for _ in 0..<20 {
            let pipe = Pipe()
            pipes.append(pipe)
            pipe.fileHandleForWriting.write(Data(#"{"results":[{"a":1},"#.utf8))
            var options = JSONRecordOptions()
            options.parsesConcurrently = true
            let reader = try JSONRecordReader(
                JSONValue.self,
                at: "$.results[*]",
                from: .fileHandle(pipe.fileHandleForReading),
                options: options
            )
            #expect(try reader.next()?.description == #"{"a":1}"#)
            // The parsing thread now waits for more of the pipe; the reader is dropped here.
        }
        var threadsAfter = Self.threads()
        let deadline = ContinuousClock.now + .seconds(1)
        while threadsAfter > threadsBefore + 2 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            threadsAfter = Self.threads()
        }
        #expect(
            threadsAfter <= threadsBefore + 2,
            "\(threadsAfter - threadsBefore) parsing threads still blocked after 1 s"
        )
        for pipe in pipes {
            try pipe.fileHandleForWriting.close()
            try pipe.fileHandleForReading.close()
        }
    }

    @Test func aReaderBlockedOnAFIFOClosesItWhenDropped() throws {
        let descriptorsBefore = Self.descriptors()
        var writers: [Int32] = []
        var paths: [String] = []
        defer {
            for writer in writers { close(writer) }
            for path in paths { unlink(path) }
        }
        for _ in 0..<10 {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "swift-yajl-fifo-\(UUID().uuidString)"
            ).path
            try #require(mkfifo(path, 0o600) == 0, "mkfifo failed")
            paths.append(path)
            // The writer end stays open (and silent) for the whole test.
            let writer = open(path, O_RDWR | O_CLOEXEC)
            try #require(writer >= 0)
            writers.append(writer)
            let reader = try JSONRecordReader(JSONValue.self, at: "$.results[*]", from: .file(path))
            _ = write(writer, "{\"results\":[{\"a\":1},", 20)
            #expect(try reader.next() != nil)
        }
        var after = Self.descriptors()
        let deadline = ContinuousClock.now + .seconds(1)
        while after > descriptorsBefore + writers.count && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            after = Self.descriptors()
        }
        #expect(
            after <= descriptorsBefore + writers.count,
            "\(after - descriptorsBefore - writers.count) descriptors of the FIFOs still open after 1 s"
        )
    }
}
