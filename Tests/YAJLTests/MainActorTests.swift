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
