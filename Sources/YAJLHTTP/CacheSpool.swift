import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One download cache entry on disk: `<sha256 of the URL>.part`, the body's first bytes in order,
/// and `<…>.meta`, what they are (URL, validators, length, bytes complete). The metadata is written
/// after the data it counts (to a temporary file renamed over the old one), with two counts: the
/// bytes written (which survive the process, so they count on the same boot: `boot_id`) and the
/// bytes synced to disk (which also survive a power loss, and count after a reboot). Whatever lies
/// past the count that applies is a possibly torn write, cut off when the entry is opened again.
///
/// The `.part` file is locked (`flock`) while an entry is open, so two processes never write one
/// spool.
final class CacheSpool {
    /// What the `.meta` file says.
    struct Metadata: Equatable {
        var url: String
        var etag: String?
        var lastModified: String?
        var length: Int?
        /// Bytes of `.part` that are the body's first bytes, on this boot (later ones may be torn).
        var completeBytes = 0
        /// Of those, the bytes synced to disk: what counts after a reboot.
        var syncedBytes = 0
        /// The boot the counts were written on (Linux's `boot_id`).
        var bootID: String? = CacheSpool.bootID
        /// The whole body is spooled.
        var complete = false

        /// The bytes that count now: all written on this boot, else only the synced ones.
        var trustedBytes: Int {
            bootID != nil && bootID == CacheSpool.bootID ? completeBytes : min(completeBytes, syncedBytes)
        }
    }

    /// This boot's identity (`/proc/sys/kernel/random/boot_id`), or `nil` where there is none.
    static let bootID: String? = {
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id") else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingASCIIWhitespace()
        return text.isEmpty ? nil : text
    }()

    let partPath: String
    let metaPath: String
    /// `.part`, open for reading and writing, locked, its offset at the end of the spooled bytes.
    private let fd: Int32
    /// Bytes written to `.part` (the next write's offset).
    private(set) var written = 0

    /// The entry for `url` in `directory`; `nil` when another process holds it.
    init?(directory: String, url: String) throws {
        let name = SHA256.hex(url.utf8)
        partPath = directory + "/" + name + ".part"
        metaPath = directory + "/" + name + ".meta"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        fd = try Syscalls.openForUpdate(partPath)
        guard Syscalls.lockExclusively(fd) else {
            Syscalls.close(fd)
            return nil
        }
    }

    deinit { Syscalls.close(fd) }

    /// The metadata on disk, when it is there, readable and for `url`.
    func metadata(for url: String) -> Metadata? {
        guard let data = FileManager.default.contents(atPath: metaPath),
            let value = try? JSONValue(parsing: data), case .string(let stored)? = value["url"], stored == url,
            let complete = value["complete_bytes"]?.int64Value
        else { return nil }
        func text(_ key: String) -> String? {
            if case .string(let string)? = value[key] { return string }
            return nil
        }
        return Metadata(
            url: stored,
            etag: text("etag"),
            lastModified: text("last_modified"),
            length: value["length"]?.int64Value.map { Int($0) },
            completeBytes: Int(complete),
            syncedBytes: value["synced_bytes"]?.int64Value.map { Int($0) } ?? 0,
            bootID: text("boot_id"),
            complete: value["complete"]?.boolValue ?? false
        )
    }

    /// The size of `.part` now.
    func fileSize() throws -> Int { try Syscalls.size(of: fd, target: partPath) }

    /// Keeps the first `count` bytes of `.part` (0: empties it); the next write goes after them.
    func cut(to count: Int) throws {
        try Syscalls.truncate(fd, to: count, target: partPath)
        written = count
    }

    /// Appends body bytes.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        try Syscalls.writeAll(fd, bytes, target: partPath)
        written += bytes.count
    }

    /// Records that the first `meta.completeBytes` bytes are written (with `sync`, synced to disk
    /// first, and so counted in `syncedBytes` too), replacing `.meta` atomically.
    func commit(_ meta: inout Metadata, sync: Bool) throws {
        if sync {
            try Syscalls.syncData(fd, target: partPath)
            meta.syncedBytes = meta.completeBytes
        }
        meta.bootID = Self.bootID
        var text = "{\"url\":\(Self.quoted(meta.url))"
        if let etag = meta.etag { text += ",\"etag\":\(Self.quoted(etag))" }
        if let date = meta.lastModified { text += ",\"last_modified\":\(Self.quoted(date))" }
        if let length = meta.length { text += ",\"length\":\(length)" }
        text += ",\"complete_bytes\":\(meta.completeBytes),\"synced_bytes\":\(meta.syncedBytes)"
        if let boot = meta.bootID { text += ",\"boot_id\":\(Self.quoted(boot))" }
        text += ",\"complete\":\(meta.complete)}\n"
        let temporary = metaPath + ".tmp"
        let metaFD = try Syscalls.createForWriting(temporary)
        defer { Syscalls.close(metaFD) }
        try Array(text.utf8).withUnsafeBytes { try Syscalls.writeAll(metaFD, $0, target: temporary) }
        try Syscalls.rename(temporary, to: metaPath)
    }

    /// Removes the metadata (the spool then counts for nothing).
    func forget() {
        try? FileManager.default.removeItem(atPath: metaPath)
    }

    private static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Removes the oldest entries of `directory` (by their metadata's modification time) until
    /// the spools there hold at most `limit` bytes, keeping `keep`. Returns what it removed.
    static func evict(in directory: String, downTo limit: Int, keeping keep: String) -> [(String, Int)] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var entries: [(part: String, size: Int, date: Date)] = []
        for name in names where name.hasSuffix(".part") {
            let part = directory + "/" + name
            let meta = String(part.dropLast(5)) + ".meta"
            let date = (try? manager.attributesOfItem(atPath: meta))?[.modificationDate] as? Date
            entries.append((part, Syscalls.fileSize(atPath: part) ?? 0, date ?? .distantPast))
        }
        var total = entries.reduce(0) { $0 + $1.size }
        var removed: [(String, Int)] = []
        for entry in entries.sorted(by: { $0.date < $1.date }) where total > limit && entry.part != keep {
            // Not an entry another process is writing: take its lock first.
            guard let fd = try? Syscalls.openForUpdate(entry.part) else { continue }
            defer { Syscalls.close(fd) }
            guard Syscalls.lockExclusively(fd) else { continue }
            try? manager.removeItem(atPath: String(entry.part.dropLast(5)) + ".meta")
            try? manager.removeItem(atPath: entry.part)
            total -= entry.size
            removed.append((entry.part, entry.size))
        }
        return removed
    }
}
