import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// Readers dropped before their end, in bulk and at random points, release their parsing threads,
/// their files and their buffers: the thread count returns to where it started, descriptors
/// close, and resident memory does not grow with the number of readers dropped (measured from
/// `/proc/self`, not assumed).
@Suite("Readers dropped in bulk", .serialized)
struct BulkDropTests {
    struct Item: Decodable, Sendable {
        let id: Int
        let name: String
        let tags: [String]
    }

    /// A record type that is not `Sendable` (the parsing thread then never decodes).
    final class Unshared: Decodable {
        let id: Int
        let tags: [String]
    }

    /// About 2.3 MiB of records, written once to a temporary file.
    static let document: [UInt8] = {
        var text = "{\"results\": ["
        for id in 0..<20_000 {
            if id > 0 { text += ",\n" }
            text += "{\"id\": \(id), \"name\": \"item number \(id)\", \"tags\": [\"a\", \"b\", \"c\(id % 7)\"]}"
        }
        return Array((text + "]}").utf8)
    }()

    static let file: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swift-yajl-bulk-drop-\(getpid()).json"
        ).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(document))
        return path
    }()

    static func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
    static func descriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
    /// Resident memory in KiB (`/proc/self/statm`, its second field, in pages).
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 : 0
    }

    /// Waits up to two seconds for `measure` to come down to `bound`; its last value.
    static func settle(to bound: Int, _ measure: () -> Int) -> Int {
        var value = measure()
        let deadline = ContinuousClock.now + .seconds(2)
        while value > bound && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            value = measure()
        }
        return value
    }

    enum Kind: String, CaseIterable, CustomStringConvertible {
        case syncFile, syncBytes, syncFileHandle, syncNotSendable, asyncFile, asyncBytes, asyncIterator, tokenReader
        case parallelNDJSON
        var description: String { rawValue }
    }

    static let ndjson: [UInt8] = {
        var text = ""
        for id in 0..<20_000 { text += "{\"id\": \(id), \"name\": \"item \(id)\", \"tags\": [\"x\"]}\n" }
        return Array(text.utf8)
    }()

    /// Opens a reader of `kind`, reads `count` records (or tokens) from it, and drops it.
    static func readAndDrop(_ kind: Kind, count: Int) async throws {
        var options = JSONRecordOptions()
        options.parsesConcurrently = true
        switch kind {
        case .syncFile, .syncBytes, .syncFileHandle:
            let source: JSONByteSource
            switch kind {
            case .syncFile: source = .file(file)
            case .syncBytes: source = .bytes(document)
            default: source = .fileHandle(try FileHandle(forReadingFrom: URL(fileURLWithPath: file)))
            }
            let reader = try JSONRecordReader(Item.self, at: "$.results[*]", from: source, options: options)
            for _ in 0..<count { _ = try reader.next() }
        case .asyncFile, .asyncBytes:
            func readSome(_ records: JSONRecords<Item>) async throws {
                var seen = 0
                for try await _ in records {
                    seen += 1
                    if seen >= count { break }
                }
            }
            if kind == .asyncFile {
                let source: FileByteSource = .file(file)
                try await readSome(JSONRecords(Item.self, at: "$.results[*]", from: source, options: options))
            } else {
                let source: MemoryByteSource = .bytes(document)
                try await readSome(JSONRecords(Item.self, at: "$.results[*]", from: source, options: options))
            }
        case .syncNotSendable:
            let reader = try JSONRecordReader(Unshared.self, at: "$.results[*]", from: .file(file), options: options)
            for _ in 0..<count { _ = try reader.next() }
        case .asyncIterator:
            // An iterator kept, advanced by hand and dropped: no loop that ends it.
            var iterator = JSONRecords(Item.self, at: "$.results[*]", from: .file(file), options: options)
                .makeAsyncIterator()
            for _ in 0..<count { _ = try await iterator.next() }
        case .tokenReader:
            let reader = JSONTokenReader(from: .file(file))
            for _ in 0..<count * 8 { _ = try reader.next() }
        case .parallelNDJSON:
            options.parser.allowMultipleValues = true
            let reader = try JSONRecordReader(
                Item.self,
                at: "$",
                from: .bytes(ndjson),
                options: options,
                parallel: JSONParallelOptions(threads: 2, blockSize: 64 << 10)
            )
            for _ in 0..<count { _ = try reader.next() }
        }
    }

    @Test(arguments: Kind.allCases)
    func droppedReadersReleaseTheirThreadsAndMemory(_ kind: Kind) async throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/self/task"), "needs /proc: the check cannot run")
        _ = Self.file
        var random = NumberParsingTests.SplitMix(state: 0xD20B_0000 &+ UInt64(kind.description.utf8.count))
        // Warm up (the first readers allocate what the process keeps: caches, the runtime's pools).
        for _ in 0..<50 { try await Self.readAndDrop(kind, count: Int(random.next() % 30)) }
        let threadsBefore = Self.settle(to: 0) { Self.threads() }
        let descriptorsBefore = Self.descriptors()
        let residentBefore = Self.residentKiB()
        // 250 drops of each kind: a reader that kept its thread or file would leave 250 behind
        // (counted exactly), one that kept its buffers more than 15 MiB (a 64 KiB read buffer
        // each at least). Under a sanitizer (several times slower) 100, and it says so.
        let rounds = Sanitizer.scaled(250, underSanitizer: 100, "bulk drop \(kind): drops")
        for round in 0..<rounds {
            // Most stop early, some read nothing, a few read far into the document.
            let count = round % 97 == 0 ? 5_000 : Int(random.next() % 40)
            try await Self.readAndDrop(kind, count: count)
        }
        let threadsAtOnce = Self.threads()
        let threadsAfter = Self.settle(to: threadsBefore + 1) { Self.threads() }
        let descriptorsAfter = Self.settle(to: descriptorsBefore) { Self.descriptors() }
        let residentAfter = Self.residentKiB()
        print(
            "bulk drop \(kind): threads \(threadsBefore) -> \(threadsAtOnce) at once -> \(threadsAfter); "
                + "descriptors \(descriptorsBefore) -> \(descriptorsAfter); resident \(residentBefore >> 10) -> \(residentAfter >> 10) MiB"
        )
        #expect(
            threadsAfter <= threadsBefore + 1,
            "\(kind): \(threadsAfter - threadsBefore) threads left after \(rounds) drops"
        )
        #expect(
            descriptorsAfter <= descriptorsBefore,
            "\(kind): \(descriptorsAfter - descriptorsBefore) descriptors left open"
        )
        // 250 leaked readers would hold more than 12 MiB (each a parsing thread, tapes, a 64 KiB
        // read buffer at least); allocator noise stays within one or two. Not under a sanitizer, whose
        // quarantine keeps freed memory resident (threads and descriptors are checked there too).
        if let reason = ProcessMemory.unavailable {
            print("⚠️  bulk drop \(kind): resident memory not checked (\(reason))")
        } else {
            #expect(
                residentAfter - residentBefore < 12 << 10,
                "\(kind): resident memory grew \((residentAfter - residentBefore) >> 10) MiB"
            )
        }
    }
}
