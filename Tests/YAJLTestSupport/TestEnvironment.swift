import Foundation

/// The test targets' shared helpers: the shared material, process memory, temporary files, the
/// loopback HTTP server and the `yajl` tool runner (`package` access, one copy for all targets).

/// Where the shared test material lives (`../shared` beside the package), if it is there.
package enum SharedMaterial {
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package static let root: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["YAJL_SHARED_DIR"].map { URL(fileURLWithPath: $0) },
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared"),
        ].compactMap { $0 }
        let found = candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path)
        }
        if found == nil {
            print(
                "⚠️  SKIPPING shared-material tests: ../shared (or $YAJL_SHARED_DIR) not found next to \(packageRoot.path)"
            )
        }
        return found
    }()

    package static var conformanceDirectory: URL? {
        root?.appendingPathComponent("conformance/JSONTestSuite/test_parsing")
    }

    package static var corpusDirectory: URL? { root?.appendingPathComponent("corpus") }

    package static var isAvailable: Bool { root != nil }
}

/// The sanitizer the suite runs under (`YAJL_SANITIZER`, set by scripts/sanitized-tests.sh).
/// That run is several times slower and is there to find memory errors: tests whose generated
/// tables are large run a part of them under it (the plain run checks every case) and say so.
package enum Sanitizer {
    /// The sanitizer's name (`address`), or `nil` in a plain run.
    package static let name = ProcessInfo.processInfo.environment["YAJL_SANITIZER"]

    /// `full` in a plain run; `reduced` under a sanitizer, printing that `what` was cut.
    package static func scaled<Count>(_ full: Count, underSanitizer reduced: Count, _ what: String) -> Count {
        guard let name else { return full }
        print("⚠️  \(what): \(reduced) instead of \(full) (under the \(name) sanitizer)")
        return reduced
    }

    /// `full` in a plain run; under a sanitizer `reduced`, a part of it, printing how many cases
    /// of `what` are left.
    package static func scaled<Case>(_ full: [Case], underSanitizer reduced: [Case], _ what: String) -> [Case] {
        guard let name else { return full }
        print("⚠️  \(what): \(reduced.count) of \(full.count) (under the \(name) sanitizer)")
        return reduced
    }
}

/// Process memory figures from /proc/self/status (Linux).
package enum ProcessMemory {
    /// A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`).
    package static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return digits.first.map { $0 * 1024 }
        }
        return nil
    }

    /// Resets the peak RSS (`VmHWM`) to the current RSS, so a later peak measures only what follows.
    package static func resetPeak() -> Bool {
        unavailable == nil
            && (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The size of the document for a test whose size is there for its peak-memory check: `size`
    /// where the check runs. Under a sanitizer (which also runs several times slower) 4 MiB, and
    /// elsewhere an eighth of it (at least 16 MiB): the test still checks every result on a
    /// document of many chunks, and says that it was made smaller.
    package static func documentSize(forMemoryCheck size: Int, test: String) -> Int {
        guard let reason = unavailable else { return size }
        let smaller = Sanitizer.name == nil ? max(size / 8, min(size, 16 << 20)) : min(size, 4 << 20)
        print("⚠️  \(test): \(smaller >> 20) MiB instead of \(size >> 20) MiB (\(reason))")
        return smaller
    }

    /// Why peak-memory checks cannot run here (the tests then say so), or `nil`.
    package static var unavailable: String? {
        if let sanitizer = Sanitizer.name {
            return "running under the \(sanitizer) sanitizer, whose shadow memory and quarantine dominate RSS"
        }
        if !FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs") {
            return "/proc/self/clear_refs not writable"
        }
        return nil
    }
}

/// A temporary file removed when the test is done.
package struct TemporaryFile {
    package let path: String

    package init(_ name: String) {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "swift-yajl-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))-\(name)"
            ).path
    }

    package func remove() { try? FileManager.default.removeItem(atPath: path) }
}
