import Foundation
import Testing
import YAJL
import YAJLHTTP
import YAJLTestSupport

/// The download cache under tampering: its file names are predictable, so anything planted at
/// them (a symbolic link, a hard link, a directory, metadata with impossible counts) must never be
/// written through or trusted. The body read is always the server's, the planted target is never
/// changed, and every refusal or discard is reported with its reason.
@Suite(
    "Download cache under tampering",
    .serialized,
    .enabled(if: TestHTTPServer.python != nil, "python3 missing: network tests skipped")
)
struct DownloadCacheSafetyTests {
    typealias Events = DownloadCacheTests.Events

    /// A cache directory holding one complete entry for `server`'s URL: its directory and the
    /// paths of its `.part` and `.meta`.
    static func primedEntry(_ server: TestHTTPServer) throws -> (directory: String, part: String, meta: String) {
        let directory = TemporaryFile("cache").path
        #expect(
            DownloadCacheTests.same(
                try DownloadCacheTests.read(server.url, DownloadCacheTests.options(directory, Events()))
            )
        )
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let part = try #require(names.first { $0.hasSuffix(".part") })
        let base = directory + "/" + part.dropLast(5)
        return (directory, base + ".part", base + ".meta")
    }

    /// A file outside the cache that a planted link points at.
    static func victim() throws -> String {
        let path = TemporaryFile("victim").path
        try Data("the user's own file\n".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    enum Plant: String, CaseIterable, CustomStringConvertible {
        case partSymlink, metaSymlink, bothSymlinks, partHardLink, partDirectory, metaHardLink
        var description: String { rawValue }
    }

    @Test(arguments: Plant.allCases)
    func aPlantedEntryIsNeverWrittenThrough(_ plant: Plant) throws {
        let server = try TestHTTPServer(serving: DownloadCacheTests.document)
        defer { server.stop() }
        let (directory, part, meta) = try Self.primedEntry(server)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = try Self.victim()
        defer { try? FileManager.default.removeItem(atPath: victim) }
        let manager = FileManager.default
        func replace(_ path: String, with make: () throws -> Void) throws {
            try manager.removeItem(atPath: path)
            try make()
        }
        switch plant {
        case .partSymlink:
            try replace(part) { try manager.createSymbolicLink(atPath: part, withDestinationPath: victim) }
        case .metaSymlink:
            try replace(meta) { try manager.createSymbolicLink(atPath: meta, withDestinationPath: victim) }
        case .bothSymlinks:
            try replace(part) { try manager.createSymbolicLink(atPath: part, withDestinationPath: victim) }
            try replace(meta) { try manager.createSymbolicLink(atPath: meta, withDestinationPath: victim) }
        case .partHardLink: try replace(part) { try manager.linkItem(atPath: victim, toPath: part) }
        case .metaHardLink: try replace(meta) { try manager.linkItem(atPath: victim, toPath: meta) }
        case .partDirectory:
            try replace(part) { try manager.createDirectory(atPath: part, withIntermediateDirectories: false) }
        }
        let events = Events()
        let body = try DownloadCacheTests.read(server.url, DownloadCacheTests.options(directory, events))
        #expect(DownloadCacheTests.same(body), "\(plant): the body is the server's")
        #expect(
            try String(contentsOfFile: victim, encoding: .utf8) == "the user's own file\n",
            "\(plant): the planted link's target was written through"
        )
        let said = events.descriptions.joined(separator: "\n")
        switch plant {
        case .partSymlink, .bothSymlinks:
            #expect(said.contains("not used") && said.contains("symbolic link"), "\(plant): \(said)")
        case .partHardLink:
            #expect(said.contains("not used") && said.contains("hard links"), "\(plant): \(said)")
        case .partDirectory:
            #expect(said.contains("not used") && said.contains("not a regular file"), "\(plant): \(said)")
        case .metaSymlink:
            #expect(said.contains("discarded") && said.contains("symbolic link"), "\(plant): \(said)")
        case .metaHardLink:
            #expect(said.contains("discarded") && said.contains("hard links"), "\(plant): \(said)")
        }
    }

    /// Metadata that is not to be trusted, generated from the fields' ranges.
    static let corruptMetadata: [(name: String, edit: @Sendable (inout [String: Any], Int) -> Void)] = [
        ("negative complete_bytes", { m, _ in m["complete_bytes"] = -5 }),
        ("negative length", { m, _ in m["length"] = -1 }),
        ("negative synced_bytes", { m, _ in m["synced_bytes"] = -1 }),
        ("synced past written", { m, n in m["synced_bytes"] = n + 1 }),
        (
            "more bytes than the body",
            { m, n in
                m["complete_bytes"] = n + 10
                m["synced_bytes"] = n + 10
            }
        ),
        (
            "complete but short",
            { m, n in
                m["complete_bytes"] = n / 2
                m["synced_bytes"] = n / 2
            }
        ),
        ("a count as text", { m, _ in m["complete_bytes"] = "12" }),
        ("a count past Int64", { m, _ in m["complete_bytes"] = 1e30 }),
        ("a fractional count", { m, _ in m["complete_bytes"] = 10.5 }),
        ("another URL", { m, _ in m["url"] = "http://example.invalid/other" }),
        ("no url", { m, _ in m.removeValue(forKey: "url") }),
    ]

    @Test(arguments: corruptMetadata.indices)
    func corruptMetadataDiscardsTheEntry(_ index: Int) throws {
        let (name, edit) = Self.corruptMetadata[index]
        let server = try TestHTTPServer(serving: DownloadCacheTests.document)
        defer { server.stop() }
        let (directory, _, meta) = try Self.primedEntry(server)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var fields = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: meta))) as? [String: Any]
        )
        edit(&fields, DownloadCacheTests.file.count)
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: meta))
        let events = Events()
        let body = try DownloadCacheTests.read(server.url, DownloadCacheTests.options(directory, events))
        #expect(DownloadCacheTests.same(body), "\(name): the body is the server's")
        #expect(events.descriptions.contains { $0.contains("discarded") }, "\(name): \(events.descriptions)")
        #expect(!events.all.contains { if case .reused = $0 { return true } else { return false } }, "\(name)")
        // The entry was written again, whole and consistent.
        let after = try DownloadCacheTests.metadata(directory)
        #expect(after["complete_bytes"] as? Int == DownloadCacheTests.file.count, "\(name)")
        #expect(after["complete"] as? Bool == true, "\(name)")
    }

    @Test func theCacheDirectoryIsPrivate() throws {
        let server = try TestHTTPServer(serving: DownloadCacheTests.document)
        defer { server.stop() }
        let (directory, part, meta) = try Self.primedEntry(server)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        for file in [part, meta] {
            let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?
                .intValue
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test(arguments: [1_000, 100_000])
    func theSizeCapHoldsWithTheEntryBeingWritten(_ limit: Int) throws {
        let server = try TestHTTPServer(serving: DownloadCacheTests.document)
        defer { server.stop() }
        try #require(DownloadCacheTests.file.count > limit, "the test document must be larger than the cap")
        let directory = TemporaryFile("cache").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = Events()
        var options = DownloadCacheTests.options(directory, events)
        options.cacheMaxBytes = limit
        #expect(DownloadCacheTests.same(try DownloadCacheTests.read(server.url, options)))
        let held = try FileManager.default.contentsOfDirectory(atPath: directory).reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0)
        }
        #expect(held <= limit, "the cache holds \(held) bytes past its cap of \(limit)")
        #expect(events.descriptions.contains { $0.contains("cacheMaxBytes \(limit)") }, "\(events.descriptions)")
    }
}
