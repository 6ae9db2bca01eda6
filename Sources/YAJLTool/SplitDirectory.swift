import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `--out DIR` of one `yajl split` run, so that runs never mix: the shards are written into
/// a private staging folder inside DIR (`.yajl-split-<pid>-<n>`, mode 0700), the manifest too;
/// only once all are complete are the shards renamed into DIR, and the manifest last. So DIR
/// holds either a finished split (a manifest and its shards), or, after a run killed while it
/// renamed, a staging folder that says so; never shards that look finished.
///
/// Before a run, a DIR holding a manifest, a staging folder or files named as this run's shards
/// would be named is refused, unless `--replace` says to remove them. A run removes only what it
/// created: its staging folder on failure, nothing of the user's.
struct SplitDirectory {
    let directory: String
    let prefix: String
    /// The staging folder of this run.
    let staging: String

    static let stagingPrefix = ".yajl-split-"

    /// Creates DIR if needed; checks it (or, with `replace`, clears what earlier runs left);
    /// creates this run's staging folder.
    init(directory: String, prefix: String, replace: Bool) throws {
        self.directory = directory
        self.prefix = prefix
        var isDirectory = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory else { throw UsageError(description: "--out \(directory) is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw UsageError(description: "cannot create --out \(directory): \(Syscalls.describe(error))")
            }
        }
        let leftovers = try Self.leftovers(in: directory, prefix: prefix)
        if !leftovers.isEmpty {
            guard replace else { throw Self.refusal(directory, leftovers) }
            for name in leftovers {
                do {
                    try FileManager.default.removeItem(atPath: directory + "/" + name)
                } catch {
                    throw UsageError(
                        description: "--replace: cannot remove \(directory)/\(name): \(Syscalls.describe(error))"
                    )
                }
            }
            standardError.write(
                "yajl: --replace: removed \(leftovers.count) entr\(leftovers.count == 1 ? "y" : "ies") of an earlier split from \(directory)\n"
            )
        }
        var attempt = 0
        while true {
            let candidate = directory + "/" + Self.stagingPrefix + "\(Syscalls.processID)-\(attempt)"
            do {
                try Syscalls.makePrivateDirectory(candidate, mustBeNew: true)
                staging = candidate
                break
            } catch  where Syscalls.meansExisting(error) && attempt < 1_000 {
                attempt += 1
            } catch {
                throw UsageError(description: "cannot create a staging folder in --out \(directory): \(error.message)")
            }
        }
    }

    /// The entries of `directory` that an earlier split left: its manifest, staging folders,
    /// and files named as shards of `prefix` would be.
    static func leftovers(in directory: String, prefix: String) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw UsageError(description: "cannot list --out \(directory): \(Syscalls.describe(error))")
        }
        return names.filter {
            $0 == "manifest.json" || $0.hasPrefix(stagingPrefix) || isShardName($0, prefix: prefix)
        }.sorted()
    }

    /// Whether `name` is `PREFIX-NNNNN.ndjson` or `PREFIX-NNNNN.ndjson.gz` (any count of digits).
    static func isShardName(_ name: String, prefix: String) -> Bool {
        guard name.hasPrefix(prefix + "-") else { return false }
        var rest = name.dropFirst(prefix.count + 1)
        if rest.hasSuffix(".gz") { rest = rest.dropLast(3) }
        guard rest.hasSuffix(".ndjson") else { return false }
        let digits = rest.dropLast(7)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func refusal(_ directory: String, _ leftovers: [String]) -> UsageError {
        let shown = leftovers.prefix(3).joined(separator: ", ") + (leftovers.count > 3 ? ", …" : "")
        let what: String
        if leftovers.contains("manifest.json") {
            what = "already holds a split (manifest.json)"
        } else if leftovers.contains(where: { $0.hasPrefix(stagingPrefix) }) {
            what = "holds an unfinished split (a staging folder of a run that did not complete)"
        } else {
            what =
                "holds files named as this split's shards, without a manifest (an unfinished split, or files of yours)"
        }
        return UsageError(
            description: "--out \(directory) \(what): \(shown). Choose another directory or --prefix, "
                + "or pass --replace to remove them"
        )
    }

    /// Moves the complete split into DIR: each shard, then the manifest (written in the staging
    /// folder as `manifest.json`), then removes the empty staging folder.
    /// On failure, the shards already moved are removed again (they are this run's).
    func publish(_ shards: [ShardWriter.Shard]) throws {
        var moved: [String] = []
        do {
            for shard in shards {
                let target = directory + "/" + shard.name
                guard Syscalls.linkStatus(atPath: target) == nil else {
                    throw UsageError(description: "\(target) appeared while the split ran; it is left as it is")
                }
                try Syscalls.rename(staging + "/" + shard.name, to: target)
                moved.append(target)
            }
            try Syscalls.rename(staging + "/manifest.json", to: directory + "/manifest.json")
        } catch {
            for target in moved { Syscalls.unlinkFile(target) }
            throw error
        }
        try? FileManager.default.removeItem(atPath: staging)
    }

    /// Removes this run's staging folder and all in it (after an error).
    func abandon() {
        try? FileManager.default.removeItem(atPath: staging)
    }
}
