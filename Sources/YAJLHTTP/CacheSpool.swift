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

    /// An entry (or the cache directory) that is not what this package writes: a symbolic link,
    /// not a regular file, another user's, a file with other hard links. It is never opened
    /// through, written or removed; the download goes on without the cache.
    struct RefusedEntry: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "\(path) \(reason)" }
    }

    /// The entry for `url` in `directory` (made with mode 0700 when missing); `nil` when another
    /// process holds it.
    /// - Throws: ``RefusedEntry``, or the error of creating or opening the files.
    init?(directory: String, url: String) throws {
        let name = SHA256.hex(url.utf8)
        partPath = directory + "/" + name + ".part"
        metaPath = directory + "/" + name + ".meta"
        try Self.prepare(directory)
        fd = try Self.openEntry(partPath)
        guard Syscalls.lockExclusively(fd) else {
            Syscalls.close(fd)
            return nil
        }
    }

    deinit { Syscalls.close(fd) }

    /// Makes `directory` (its parents as usual, itself mode 0700) and checks that it is a
    /// directory of the current user's.
    private static func prepare(_ directory: String) throws {
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let parent = trimmed.lastIndex(of: "/").map { String(trimmed[..<$0]) } ?? ""
        if !parent.isEmpty, Syscalls.status(atPath: parent) == nil {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        try Syscalls.makePrivateDirectory(directory)
        guard let status = Syscalls.status(atPath: directory), status.isDirectory else {
            throw RefusedEntry(path: directory, reason: "is not a directory")
        }
        guard status.ownedByCurrentUser else {
            throw RefusedEntry(path: directory, reason: "belongs to another user")
        }
    }

    /// Why the file open as `fd` is not one of this cache's, or `nil`.
    private static func problem(with fd: Int32, path: String) throws -> String? {
        let status = try Syscalls.status(of: fd, target: path)
        if !status.isRegularFile { return "is not a regular file" }
        if !status.ownedByCurrentUser { return "belongs to another user" }
        if status.links != 1 { return "has other hard links (\(status.links))" }
        return nil
    }

    /// Opens the spool `path` without following a link, creating it when missing under a
    /// temporary name (`O_EXCL`) renamed into place.
    private static func openEntry(_ path: String) throws -> Int32 {
        for _ in 0..<8 {
            let fd: Int32
            switch Result(catching: { () throws(JSONIOError) -> Int32 in try Syscalls.openExistingForUpdate(path) }) {
            case .success(let opened):
                fd = opened
            case .failure(let error) where Syscalls.meansSymbolicLink(error):
                throw RefusedEntry(path: path, reason: "is a symbolic link")
            case .failure(let error) where Syscalls.meansMissing(error):
                fd = try createInPlace(path)
            case .failure(let error):
                if let status = Syscalls.linkStatus(atPath: path), !status.isRegularFile {
                    throw RefusedEntry(path: path, reason: "is not a regular file")
                }
                throw error
            }
            if let problem = try problem(with: fd, path: path) {
                Syscalls.close(fd)
                throw RefusedEntry(path: path, reason: problem)
            }
            // Another process may have renamed its new spool over this one meanwhile: use the
            // file the name holds.
            if let named = Syscalls.linkStatus(atPath: path),
                let opened = try? Syscalls.status(of: fd, target: path),
                named.device == opened.device && named.inode == opened.inode
            {
                return fd
            }
            Syscalls.close(fd)
        }
        throw RefusedEntry(path: path, reason: "kept being replaced while it was opened")
    }

    /// A name beside `path` that no other writer picks (process ID and a random number), for a
    /// file created with `O_EXCL` and renamed over `path`.
    private static func temporaryName(for path: String) -> String {
        path + ".\(Syscalls.processID).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Creates `path` under a temporary name (`O_EXCL`), renamed into place; its descriptor.
    private static func createInPlace(_ path: String) throws -> Int32 {
        let temporary = temporaryName(for: path)
        let fd = try Syscalls.createExclusively(temporary)
        do {
            try Syscalls.rename(temporary, to: path)
        } catch {
            Syscalls.close(fd)
            Syscalls.unlinkFile(temporary)
            throw error
        }
        return fd
    }

    /// What reading the `.meta` file found.
    enum StoredMetadata {
        case missing
        /// There, but not to be trusted: why.
        case unusable(String)
        case valid(Metadata)
    }

    /// The metadata on disk, checked: a regular file of the user's, JSON for `url`, with counts
    /// that are in range and agree with each other.
    func metadata(for url: String) -> StoredMetadata {
        let fd: Int32
        do {
            fd = try Syscalls.openExistingForUpdate(metaPath)
        } catch {
            if Syscalls.meansMissing(error) { return .missing }
            return .unusable(
                Syscalls.meansSymbolicLink(error)
                    ? "its metadata is a symbolic link" : "its metadata cannot be read: \(error.message)"
            )
        }
        defer { Syscalls.close(fd) }
        if let problem = try? Self.problem(with: fd, path: metaPath) { return .unusable("its metadata \(problem)") }
        var data = [UInt8](repeating: 0, count: 64 << 10)
        var count = 0
        while count < data.count {
            let n =
                (try? data.withUnsafeMutableBytes {
                    try Syscalls.read(
                        fd,
                        into: UnsafeMutableRawBufferPointer(rebasing: $0[count...]),
                        at: count,
                        target: metaPath
                    )
                }) ?? -1
            if n < 0 { return .unusable("its metadata cannot be read") }
            if n == 0 { break }
            count += n
        }
        if count == data.count { return .unusable("its metadata is larger than 64 KiB") }
        guard let value = try? JSONValue(parsing: data[..<count]) else { return .unusable("its metadata is not JSON") }
        guard case .string(let stored)? = value["url"], stored == url else {
            return .unusable("its metadata is for another URL")
        }
        func text(_ key: String) -> String? {
            if case .string(let string)? = value[key] { return string }
            return nil
        }
        func number(_ key: String) -> Int?? {
            guard let field = value[key] else { return .some(nil) }
            guard let number = field.int64Value, number >= 0 else { return nil }
            return .some(Int(number))
        }
        guard let complete = number("complete_bytes"), let completeBytes = complete,
            let synced = number("synced_bytes"), let length = number("length")
        else { return .unusable("its metadata holds a count that is not a non-negative integer") }
        let syncedBytes = synced ?? 0
        let isComplete = value["complete"]?.boolValue ?? false
        if syncedBytes > completeBytes {
            return .unusable("its metadata counts more bytes synced (\(syncedBytes)) than written (\(completeBytes))")
        }
        if let length, completeBytes > length {
            return .unusable("its metadata counts \(completeBytes) bytes of a \(length)-byte body")
        }
        if isComplete, let length, completeBytes != length {
            return .unusable("its metadata says complete with \(completeBytes) of \(length) bytes")
        }
        return .valid(
            Metadata(
                url: stored,
                etag: text("etag"),
                lastModified: text("last_modified"),
                length: length,
                completeBytes: completeBytes,
                syncedBytes: syncedBytes,
                bootID: text("boot_id"),
                complete: isComplete
            )
        )
    }

    /// Reads spooled bytes at `offset` (the spool's own descriptor: the file is not opened again
    /// by name).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        try Syscalls.read(fd, into: buffer, at: offset, target: partPath)
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
        let text = try Self.json(meta)
        let temporary = Self.temporaryName(for: metaPath)
        let metaFD = try Syscalls.createExclusively(temporary)
        defer { Syscalls.close(metaFD) }
        do {
            try text.withUnsafeBytes { try Syscalls.writeAll(metaFD, $0, target: temporary) }
            try Syscalls.rename(temporary, to: metaPath)
        } catch {
            Syscalls.unlinkFile(temporary)
            throw error
        }
    }

    /// Removes the metadata (the spool then counts for nothing).
    func forget() {
        Syscalls.unlinkFile(metaPath)
    }

    /// Removes the entry (while its lock is held): it will not be kept.
    func remove() {
        Syscalls.unlinkFile(metaPath)
        Syscalls.unlinkFile(partPath)
        written = 0
    }

    /// The metadata as one line of JSON, written by ``JSONWriter``.
    private static func json(_ meta: Metadata) throws -> Data {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        func member(_ key: String, _ write: () throws -> Void) throws {
            try writer.key(key)
            try write()
        }
        try writer.startObject()
        try member("url") { try writer.string(meta.url) }
        if let etag = meta.etag { try member("etag") { try writer.string(etag) } }
        if let date = meta.lastModified { try member("last_modified") { try writer.string(date) } }
        if let length = meta.length { try member("length") { try writer.integer(Int64(length)) } }
        try member("complete_bytes") { try writer.integer(Int64(meta.completeBytes)) }
        try member("synced_bytes") { try writer.integer(Int64(meta.syncedBytes)) }
        if let boot = meta.bootID { try member("boot_id") { try writer.string(boot) } }
        try member("complete") { try writer.bool(meta.complete) }
        try writer.endObject()
        try writer.finish()
        return sink.data + [0x0A]
    }

    /// Removes the oldest entries of `directory` (by their metadata's modification time) until
    /// the spools there hold at most `limit` bytes, keeping `keep`. Only regular files of the
    /// user's, never opened through a link, count and are removed. Returns what it removed and
    /// the bytes the other entries still hold.
    static func evict(
        in directory: String,
        downTo limit: Int,
        keeping keep: String
    ) -> (removed: [(String, Int)], othersBytes: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return ([], 0) }
        var entries: [(part: String, size: Int, date: Date)] = []
        for name in names where name.hasSuffix(".part") {
            let part = directory + "/" + name
            guard part != keep, let status = Syscalls.linkStatus(atPath: part), status.isRegularFile,
                status.ownedByCurrentUser
            else { continue }
            let meta = String(part.dropLast(5)) + ".meta"
            let date = (try? FileManager.default.attributesOfItem(atPath: meta))?[.modificationDate] as? Date
            entries.append((part, status.size, date ?? .distantPast))
        }
        var total = entries.reduce(0) { $0 + $1.size }
        var removed: [(String, Int)] = []
        for entry in entries.sorted(by: { $0.date < $1.date }) where total > limit {
            // Not an entry another process is writing: take its lock first.
            guard let fd = try? Syscalls.openExistingForUpdate(entry.part) else { continue }
            defer { Syscalls.close(fd) }
            guard (try? problem(with: fd, path: entry.part)) == .some(nil), Syscalls.lockExclusively(fd) else {
                continue
            }
            Syscalls.unlinkFile(String(entry.part.dropLast(5)) + ".meta")
            Syscalls.unlinkFile(entry.part)
            total -= entry.size
            removed.append((entry.part, entry.size))
        }
        return (removed, total)
    }
}
