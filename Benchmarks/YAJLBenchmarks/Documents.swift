import Foundation
import YAJLFixtures

/// A document the benchmark reads.
struct BenchmarkDocument: Sendable, Codable {
    let name: String
    let path: String
    let bytes: Int
    /// `records`, `ndjson`, `numbers`, `strings`, or `corpus`.
    let kind: String

    var isNDJSON: Bool { kind == "ndjson" }
}

/// Finds the shared corpus and generates (once, cached under .build/bench-data) the synthetic documents.
enum DocumentSet {
    static let cacheDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent(".build/bench-data")

    static func corpus(log: (String) -> Void) -> [BenchmarkDocument] {
        let candidates = [
            ProcessInfo.processInfo.environment["YAJL_SHARED_DIR"],
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
                .appendingPathComponent("shared").path,
        ].compactMap { $0 }
        guard let shared = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/corpus") }) else {
            log("corpus: SKIPPED — ../shared/corpus not found (set YAJL_SHARED_DIR)")
            return []
        }
        return ["canada.json", "citm_catalog.json", "twitter.json"].compactMap { name in
            let path = shared + "/corpus/" + name
            guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else {
                log("corpus: SKIPPED \(name) — not found")
                return nil
            }
            return BenchmarkDocument(name: name, path: path, bytes: size, kind: "corpus")
        }
    }

    static func generated(
        _ kind: DocumentGenerator.Kind,
        mebibytes: Int,
        log: (String) -> Void
    ) throws -> BenchmarkDocument {
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        let name = "\(kind.rawValue)-\(mebibytes)MiB.json"
        let path = cacheDirectory.appendingPathComponent(name).path
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size >= mebibytes << 20,
            DocumentGenerator.isCurrent(path, kind: kind)
        {
            return BenchmarkDocument(name: name, path: path, bytes: size, kind: kind.rawValue)
        }
        log("generating \(name) ...")
        let counts = try DocumentGenerator.write(kind, targetBytes: mebibytes << 20, to: path)
        return BenchmarkDocument(name: name, path: path, bytes: counts.bytes, kind: kind.rawValue)
    }
}
