import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A download through a ``CacheSpool`` (``HTTPOptions/cacheDirectory``): the body is spooled as it
/// is handed out; an unfinished spool is parsed from disk first and the rest fetched by range; a
/// complete one is reused when the server answers `304`. The server is asked before any spooled
/// byte is handed out, so a changed resource is never mixed with the spool: it is discarded and
/// the download starts over.
final class CachedDownload {
    private unowned let source: HTTPByteSource
    private let url: String
    /// What is handed out next.
    private enum Phase {
        case idle
        /// Spooled bytes from disk (`remaining` of them), then `then`.
        case spooled(offset: Int, remaining: Int)
        /// Network bytes read while asking the server, not yet handed out.
        case held([UInt8], offset: Int)
        case network
        case done
        case failed(any Error)
    }
    private var phase = Phase.idle
    /// After the spooled bytes: the held bytes, the network, or the end.
    private var afterSpool: [UInt8]?
    private var spool: CacheSpool?
    private var meta: CacheSpool.Metadata
    private var network: HTTPByteSource?
    private var delivered = 0
    /// Bytes spooled since the metadata last counted them, and since it last counted them synced.
    private var uncommitted = 0
    private var unsynced = 0
    private var lastCommit = ContinuousClock.now
    private var lastSync = ContinuousClock.now
    /// The bytes the cache's other entries hold (with ``HTTPOptions/cacheMaxBytes``).
    private var othersBytes = 0

    /// The metadata counts the bytes written every 64 KiB and tenth of a second (a killed process
    /// loses at most that much: the next run fetches it again), and the bytes synced to disk every
    /// MiB and half second, or 64 MiB (what a power loss can cost), so a fast download syncs rarely.
    private func commitIsDue() -> (due: Bool, sync: Bool) {
        let now = ContinuousClock.now
        let sync = unsynced >= 64 << 20 || (unsynced >= 1 << 20 && now - lastSync >= .milliseconds(500))
        return (sync || (uncommitted >= 64 << 10 && now - lastCommit >= .milliseconds(100)), sync)
    }

    init(source: HTTPByteSource) {
        self.source = source
        url = source.url.absoluteString
        meta = CacheSpool.Metadata(url: source.url.absoluteString)
    }

    deinit {
        // Dropped before the end (a reader that stopped early, an error, a cancelled task): what
        // is spooled counts for the next run.
        if uncommitted > 0 { try? commit(complete: false, sync: true) }
    }

    /// The resource: as the network's response defined it, else as the spool's metadata says.
    var identity: ResourceIdentity? {
        if let known = network?.resource { return known }
        guard meta.etag != nil || meta.lastModified != nil || meta.length != nil else { return nil }
        return ResourceIdentity(totalLength: meta.length, etag: meta.etag, lastModified: meta.lastModified)
    }

    private func event(_ event: HTTPCacheEvent) { source.options.onCacheEvent?(event) }

    /// The options of the connections: the source's, without the cache.
    private var networkOptions: HTTPOptions {
        var options = source.options
        options.cacheDirectory = nil
        options.onProgress = nil
        return options
    }

    private func connection(_ make: () -> HTTPByteSource) -> HTTPByteSource {
        let connection = make()
        connection.parent = source
        return connection
    }

    /// The next bytes of the body, in order; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            switch phase {
            case .idle:
                do {
                    try start()
                } catch {
                    phase = .failed(error)
                    throw error
                }
            case .failed(let error): throw error
            case .done: return 0
            case .spooled(let offset, let remaining):
                guard let spool else { throw JSONIOError(source: "the spool", message: "the spool was closed") }
                let n = try spool.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, remaining)]),
                    at: offset
                )
                guard n > 0 else {
                    let error = JSONIOError(source: spool.partPath, message: "the spool ended early")
                    phase = .failed(error)
                    throw error
                }
                if remaining - n == 0 {
                    if let held = afterSpool, !held.isEmpty {
                        phase = .held(held, offset: 0)
                    } else {
                        phase = network == nil ? .done : .network
                    }
                    afterSpool = nil
                } else {
                    phase = .spooled(offset: offset + n, remaining: remaining - n)
                }
                return handOut(n)
            case .held(let bytes, let offset):
                let n = min(buffer.count, bytes.count - offset)
                bytes.withUnsafeBytes {
                    buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n)
                }
                phase = offset + n == bytes.count ? .network : .held(bytes, offset: offset + n)
                spoolWrite(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                return handOut(n)
            case .network:
                let n = try network!.read(into: buffer)
                if n == 0 {
                    finishSpool()
                    phase = .done
                    return 0
                }
                spoolWrite(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                return handOut(n)
            }
        }
    }

    private func handOut(_ n: Int) -> Int {
        delivered += n
        source.options.onProgress?(
            HTTPProgress(
                receivedBytes: delivered,
                expectedBytes: meta.length ?? network?.resourceLength,
                resumes: network?.retries ?? 0
            )
        )
        return n
    }

    // MARK: Starting

    /// Opens the entry and decides, asking the server when there is a spool, what comes first.
    private func start() throws {
        let directory = source.options.cacheDirectory!
        var refused = false
        do {
            spool = try CacheSpool(directory: directory, url: url)
        } catch let error as CacheSpool.RefusedEntry {
            refused = true
            event(.bypassed(reason: "refused the cache entry: \(error); going on without the cache"))
        } catch {
            refused = true
            event(.bypassed(reason: "cannot use \(directory): \(Syscalls.describe(error))"))
        }
        guard let spool else {
            if !refused && spoolIsLocked(directory) {
                event(.bypassed(reason: "another process is downloading \(url) into \(directory)"))
            }
            try startFresh()
            return
        }
        let size = try spool.fileSize()
        if let limit = source.options.cacheMaxBytes {
            evict(downTo: limit - size, keeping: spool)
        }
        let stored: CacheSpool.Metadata
        switch spool.metadata(for: url) {
        case .missing:
            if size > 0 { event(.discarded(spool: spool.partPath, reason: "its metadata is missing")) }
            try startFresh(cutting: spool)
            return
        case .unusable(let reason):
            event(.discarded(spool: spool.partPath, reason: reason))
            try startFresh(cutting: spool)
            return
        case .valid(let found) where found.trustedBytes > size:
            event(
                .discarded(
                    spool: spool.partPath,
                    reason: "its metadata counts \(found.trustedBytes) bytes of a \(size)-byte spool"
                )
            )
            try startFresh(cutting: spool)
            return
        case .valid(let found):
            stored = found
        }
        try useStored(stored, spool: spool, size: size)
    }

    /// Evicts other entries until they hold at most `limit` bytes, reporting each.
    private func evict(downTo limit: Int, keeping spool: CacheSpool) {
        let directory = source.options.cacheDirectory!
        let (removed, others) = CacheSpool.evict(in: directory, downTo: max(0, limit), keeping: spool.partPath)
        for (path, bytes) in removed { event(.evicted(spool: path, bytes: bytes)) }
        othersBytes = others
    }

    /// Goes on from a spool whose metadata is valid: revalidates, resumes or starts over.
    private func useStored(_ found: CacheSpool.Metadata, spool: CacheSpool, size: Int) throws {
        var stored = found
        stored.completeBytes = stored.trustedBytes  // after a reboot: only what was synced
        stored.complete = stored.complete && stored.syncedBytes == stored.completeBytes
        if size > stored.completeBytes {
            event(
                .cutTornWrite(
                    spool: spool.partPath,
                    keptBytes: stored.completeBytes,
                    droppedBytes: size - stored.completeBytes
                )
            )
        }
        try spool.cut(to: stored.completeBytes)
        meta = stored
        let identity = ResourceIdentity(
            totalLength: stored.length,
            etag: stored.etag,
            lastModified: stored.lastModified
        )
        if stored.complete {
            try revalidate(spool, identity: identity)
        } else if stored.completeBytes > 0 && identity.validator != nil {
            try resume(spool, identity: identity)
        } else {
            if stored.completeBytes > 0 {
                event(
                    .discarded(
                        spool: spool.partPath,
                        reason: "the server gave no ETag or Last-Modified to resume it safely"
                    )
                )
            }
            try startFresh(cutting: spool)
        }
    }

    private func spoolIsLocked(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/" + SHA256.hex(url.utf8) + ".part")
    }

    /// A download from the first byte, spooled (into `spool`, emptied) when there is one.
    private func startFresh(cutting spool: CacheSpool? = nil) throws {
        if let spool {
            try spool.cut(to: 0)
            spool.forget()
            meta = CacheSpool.Metadata(url: url)
            event(.started(spool: spool.partPath))
        }
        let options = networkOptions
        network = connection { HTTPByteSource(url: source.url, options: options) }
        phase = .network
    }

    /// A complete spool: asks whether it is current (`If-None-Match` / `If-Modified-Since`).
    private func revalidate(_ spool: CacheSpool, identity: ResourceIdentity) throws {
        let options = networkOptions
        let check = connection {
            HTTPByteSource(url: source.url, options: options, segment: nil, identity: nil)
        }
        check.conditional = identity
        var first = [UInt8](repeating: 0, count: 64 << 10)
        let n = try first.withUnsafeMutableBytes { try check.read(into: $0) }
        if check.notModified {
            event(.reused(spool: spool.partPath, bytes: meta.completeBytes))
            try handOutSpool(spool, then: nil)
            return
        }
        event(.discarded(spool: spool.partPath, reason: "the resource changed (the server sent it again)"))
        try spool.cut(to: 0)
        spool.forget()
        meta = CacheSpool.Metadata(url: url)
        network = check
        phase = n > 0 ? .held(Array(first[..<n]), offset: 0) : .network
        if n == 0 {
            finishSpool()
            phase = .done
        }
    }

    /// An unfinished spool: asks for the rest (`Range` + `If-Range`) before handing out the
    /// spooled bytes; a resource that changed, or cannot be resumed, starts over.
    private func resume(_ spool: CacheSpool, identity: ResourceIdentity) throws {
        let offset = meta.completeBytes
        let options = networkOptions
        let rest = connection {
            HTTPByteSource(url: source.url, options: options, resumingAt: offset, identity: identity)
        }
        var first = [UInt8](repeating: 0, count: 64 << 10)
        let n: Int
        do {
            n = try first.withUnsafeMutableBytes { try rest.read(into: $0) }
        } catch let error as HTTPError where error.kind == .cannotResume {
            event(.discarded(spool: spool.partPath, reason: error.reason))
            try startFresh(cutting: spool)
            return
        }
        event(.resuming(spool: spool.partPath, fromByte: offset))
        network = rest
        try handOutSpool(spool, then: n > 0 ? Array(first[..<n]) : nil)
        if n == 0 {
            network = nil
            try commit(complete: true, sync: true)  // everything was spooled; only the mark was missing
        }
    }

    /// Hands out the spooled bytes from disk first, then `held`.
    private func handOutSpool(_ spool: CacheSpool, then held: [UInt8]?) throws {
        guard meta.completeBytes > 0 else {
            phase = held.map { .held($0, offset: 0) } ?? (network == nil ? .done : .network)
            return
        }
        afterSpool = held
        phase = .spooled(offset: 0, remaining: meta.completeBytes)
    }

    // MARK: Spooling

    /// Appends bytes just handed out from the network; commits the metadata every few MiB.
    private func spoolWrite(_ bytes: UnsafeRawBufferPointer) {
        guard let spool, !bytes.isEmpty else { return }
        if let limit = source.options.cacheMaxBytes, othersBytes + spool.written + bytes.count > limit {
            // The limit holds with the entry being written: older entries go first, then this one.
            evict(downTo: limit - spool.written - bytes.count, keeping: spool)
            if spool.written + bytes.count > limit {
                event(
                    .bypassed(
                        reason: "\(url) is larger than the cache's limit (cacheMaxBytes \(limit)): "
                            + "its entry \(spool.partPath) is removed; going on without the cache"
                    )
                )
                spool.remove()
                self.spool = nil
                return
            }
        }
        do {
            try spool.append(bytes)
            uncommitted += bytes.count
            unsynced += bytes.count
            let (due, sync) = commitIsDue()
            if due { try commit(complete: false, sync: sync) }
        } catch {
            event(.bypassed(reason: "cannot write \(spool.partPath): \(error); going on without the cache"))
            self.spool = nil
        }
    }

    /// Marks the spool complete.
    private func finishSpool() {
        guard let spool else { return }
        do {
            try commit(complete: true, sync: true)
            event(.completed(spool: spool.partPath, bytes: meta.completeBytes))
        } catch {
            event(.bypassed(reason: "cannot write \(spool.partPath): \(error)"))
            self.spool = nil
        }
    }

    /// Writes the metadata for what is spooled now (data first; with `sync`, synced first). A
    /// compressed transfer's offsets are not the server's: it is recorded only once complete.
    private func commit(complete: Bool, sync: Bool) throws {
        guard let spool else { return }
        if let resource = network?.resource {
            meta.etag = resource.etag ?? meta.etag
            meta.lastModified = resource.lastModified ?? meta.lastModified
            meta.length = resource.totalLength ?? meta.length
            if resource.compressed && !complete { return }
        }
        meta.completeBytes = spool.written
        meta.complete = complete
        try spool.commit(&meta, sync: sync)
        uncommitted = 0
        lastCommit = .now
        if sync {
            unsynced = 0
            lastSync = .now
        }
    }
}
