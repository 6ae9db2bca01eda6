import Foundation
import Testing
import YAJL

/// Swift 6 code calls the async entry points from an actor (here the main actor) without
/// sending anything: this file compiling is half of the test.
@MainActor
final class MainActorModel {
    var events: [String] = []
    var ids: [Int] = []

    struct Item: Decodable, Sendable {
        let id: Int
    }

    func load(_ chunks: AsyncStream<[UInt8]>) async throws {
        var collected: [String] = []
        try await JSONParser { event, _ in collected.append("\(event)") }.parse(from: .chunks(chunks))
        events = collected
    }

    func loadItems(_ chunks: AsyncStream<[UInt8]>) async throws {
        for try await item in JSONRecords(Item.self, at: "$[*]", from: .chunks(chunks)) { ids.append(item.id) }
    }
}

@Suite("Async from an actor")
struct MainActorTests {
    static func chunks(_ text: String, size: Int = 3) -> AsyncStream<[UInt8]> {
        let bytes = Array(text.utf8)
        return AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(Array(bytes[start..<min(start + size, bytes.count)]))
            }
            continuation.finish()
        }
    }

    @Test @MainActor func eventsAndRecordsFromTheMainActor() async throws {
        let model = MainActorModel()
        try await model.load(Self.chunks(#"{"a": [1, true]}"#))
        #expect(model.events.count == 7)  // { "a" [ 1 true ] }
        try await model.loadItems(Self.chunks(#"[{"id": 1}, {"id": 2}, {"id": 3}]"#))
        #expect(model.ids == [1, 2, 3])
    }
}

@Suite("Events as an AsyncSequence")
struct JSONEventsTests {
    @Test func eventsComeWithTheirPathsAndLines() async throws {
        var seen: [String] = []
        for try await record in JSONEvents(from: .chunks(MainActorTests.chunks("{\"a\": [1,\n \"x\"]}", size: 2))) {
            seen.append("\(record.event) \(record.path) d\(record.depth) l\(record.line)")
        }
        #expect(
            seen == [
                "startObject $ d0 l1", "key(\"a\") $.a d1 l1", "startArray $.a d1 l1", "number(1) $.a[0] d2 l1",
                "string(\"x\") $.a[1] d2 l2", "endArray $.a d1 l2", "endObject $ d0 l2",
            ]
        )
    }

    @Test func anErrorComesAfterTheEventsBeforeIt() async throws {
        var seen = 0
        do {
            for try await _ in JSONEvents(from: .chunks(MainActorTests.chunks("[1, 2, oops]", size: 64))) { seen += 1 }
            Issue.record("no error")
        } catch let error as JSONParseError {
            #expect(seen == 3)  // [ 1 2
            #expect(error.byteOffset >= 7)
        }
    }

    @Test @MainActor func eventsFromTheMainActorAndFromAFile() async throws {
        let file = TemporaryFileForEvents()
        defer { file.remove() }
        var count = 0
        for try await _ in JSONEvents(from: .file(file.path)) { count += 1 }
        #expect(count == 4)
    }

    struct TemporaryFileForEvents {
        let path = NSTemporaryDirectory() + "events-\(UUID().uuidString).json"
        init() { try? #"{"k": null}"#.write(toFile: path, atomically: true, encoding: .utf8) }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }
}
