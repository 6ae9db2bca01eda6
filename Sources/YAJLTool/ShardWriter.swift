import CZlib
import YAJLCore

/// NDJSON shards for `yajl split`: each record a line, in numbered files of about `shardSize`
/// bytes of NDJSON, uncompressed, as engines size their tasks (a record is never split; a shard
/// holds at least one), plain or gzip. They are
/// written in the run's staging folder (``SplitDirectory``), which keeps them from an engine
/// reading `DIR/*.ndjson` until all are complete.
final class ShardWriter {
    /// One finished shard, as the manifest lists it.
    struct Shard {
        let name: String
        let records: Int
        /// The NDJSON bytes (uncompressed).
        let bytes: Int
        /// The file's size on disk (compressed with `--gzip`).
        let fileBytes: Int
    }

    private let directory: String
    private let prefix: String
    private let shardSize: Int
    private let gzip: Bool
    private(set) var shards: [Shard] = []
    // The shard being written.
    private var fd: Int32 = -1
    private var records = 0
    private var bytes = 0
    private var fileBytes = 0
    private var buffer: [UInt8] = []
    private var deflater: Deflater?

    init(directory: String, prefix: String, shardSize: Int, gzip: Bool) {
        self.directory = directory
        self.prefix = prefix
        self.shardSize = shardSize
        self.gzip = gzip
        buffer.reserveCapacity(1 << 17)
    }

    deinit {
        if fd >= 0 { Syscalls.close(fd) }
    }

    private var currentName: String {
        prefix + "-" + String(shards.count).leftPadded(to: 5) + ".ndjson" + (gzip ? ".gz" : "")
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// Writes one record (minified JSON, no newline) as a line.
    func write(_ record: [UInt8]) throws {
        let projected = bytes + record.count + 1  // uncompressed, with --gzip too
        if fd >= 0 && records > 0 && projected > shardSize { try closeShard() }
        if fd < 0 { try openShard() }
        buffer.append(contentsOf: record)
        buffer.append(UInt8(ascii: "\n"))
        records += 1
        bytes += record.count + 1
        if buffer.count >= 1 << 16 { try drain(final: false) }
    }

    /// Closes the last shard; the list of all shards.
    func finish() throws -> [Shard] {
        if fd >= 0 { try closeShard() }
        return shards
    }

    /// Closes the shard being written (after an error; the staging folder, removed with all in
    /// it, is ``SplitDirectory/abandon()``'s).
    func abandon() {
        if fd >= 0 {
            Syscalls.close(fd)
            fd = -1
        }
        shards = []
    }

    private func openShard() throws {
        fd = try Syscalls.createForWriting(path(currentName))
        records = 0
        bytes = 0
        fileBytes = 0
        if gzip { deflater = try Deflater() }
    }

    private func closeShard() throws {
        try drain(final: true)
        Syscalls.close(fd)
        fd = -1
        shards.append(Shard(name: currentName, records: records, bytes: bytes, fileBytes: fileBytes))
        deflater = nil
    }

    /// Writes the buffered lines (compressed with `--gzip`); `final` ends the gzip stream.
    private func drain(final: Bool) throws {
        let target = path(currentName)
        if let deflater {
            let output = try deflater.compress(buffer, final: final)
            try output.withUnsafeBytes { try Syscalls.writeAll(fd, $0, target: target) }
            fileBytes += output.count
        } else {
            try buffer.withUnsafeBytes { try Syscalls.writeAll(fd, $0, target: target) }
            fileBytes += buffer.count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A gzip stream over zlib's deflate.
final class Deflater {
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: 1 << 17)

    init() throws {
        guard czlib_deflate_init_gzip(&stream, 6) == Z_OK else {
            throw JSONIOError(operation: .write, target: "gzip", message: "zlib could not start a gzip stream")
        }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `input`; with `final`, also the stream's end (its trailer).
    func compress(_ input: [UInt8], final: Bool) throws -> [UInt8] {
        var result: [UInt8] = []
        var input = input
        try input.withUnsafeMutableBytes { source in
            stream.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(source.count)
            while true {
                let status = output.withUnsafeMutableBytes { out -> Int32 in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(out.count)
                    return deflate(&stream, final ? Z_FINISH : Z_NO_FLUSH)
                }
                let produced = output.count - Int(stream.avail_out)
                result.append(contentsOf: output[..<produced])
                if status == Z_STREAM_END { break }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    throw JSONIOError(operation: .write, target: "gzip", message: "zlib failed (\(status))")
                }
                if !final && stream.avail_in == 0 && stream.avail_out > 0 { break }
            }
        }
        return result
    }
}
