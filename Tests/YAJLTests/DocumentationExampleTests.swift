import Foundation
import Testing
import YAJL
import YAJLTestSupport

// The README's example, compiled and run, so the README cannot drift from the API.
final class CityCounter: JSONEventHandler {
    var cities: [String: Int] = [:]
    private var atCity = false
    func key(_ key: JSONStringView, context: JSONEventContext) throws { atCity = key == "city" }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        if atCity { cities[value.string, default: 0] += 1 }  // a String only when needed
    }
}

@Suite("Documentation examples")
struct DocumentationExampleTests {
    @Test func readmeRecordsOneLiner() async throws {
        struct User: Decodable {
            let id: Int
            let name: String
        }
        let file = TemporaryFile("users.json")
        defer { file.remove() }
        try #"{"count": 2, "results": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]}"#
            .write(toFile: file.path, atomically: true, encoding: .utf8)
        var seen: [String] = []
        for try await user in JSONRecords(User.self, at: "$.results[*]", from: .file(file.path)) {
            seen.append("\(user.id) \(user.name)")
        }
        #expect(seen == ["1 Ann", "2 Bob"])

        let users = try JSONRecordReader(User.self, at: "$.results[*]", from: .file(file.path))
        var names: [String] = []
        while let user = try users.next() { names.append(user.name) }
        #expect(names == ["Ann", "Bob"])
    }

    @Test func readmeWriterSnippets() throws {
        struct User: Codable {
            let id: Int
            let name: String
        }
        let file = TemporaryFile("users-writer.json")
        defer { file.remove() }
        try #"{"results": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]}"#
            .write(toFile: file.path, atomically: true, encoding: .utf8)
        let sink = MemoryOutputSink()
        // The README's snippet, with a memory sink for `.standardOutput`.
        let users = try JSONRecordReader(User.self, at: "$.results[*]", from: .file(file.path))
        let output = JSONRecordWriter<User>(to: sink, layout: .ndjson)
        while let user = try users.next() { try output.write(user) }
        try output.finish()
        #expect(
            String(decoding: sink.data, as: UTF8.self) == "{\"id\":1,\"name\":\"Ann\"}\n{\"id\":2,\"name\":\"Bob\"}\n"
        )

        let v: JSONValue = ["a": [1, nil]]
        #expect(v[path: ["a", 0]]?.int64Value == 1)
        #expect(try v.select("$..[?@ == null]") == [nil])
        #expect(try JSONRecordDecoder().decode(User.self, from: Data(#"{"id": 3, "name": "Cy"}"#.utf8)).name == "Cy")
    }

    @Test func readmeExample() throws {
        let file = TemporaryFile("export.json")
        defer { file.remove() }
        try
            #"{"results": [{"address": {"city": "Lima"}}, {"address": {"city": "Cairo"}}, {"address": {"city": "Lima"}}]}"#
            .write(toFile: file.path, atomically: true, encoding: .utf8)

        let counter = CityCounter()
        try JSONParser(handler: counter).parse(from: .file(file.path))
        #expect(counter.cities == ["Lima": 2, "Cairo": 1])
    }
}
