import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings for reading JSON over HTTP(S). Every wait is bounded: a per-attempt ``timeout`` (to
/// connect, and for any window of that length below ``lowSpeedLimit``), an optional ``deadline``
/// for the whole transfer, bounded retries and redirects.
public struct HTTPOptions: Sendable {
    /// Extra request headers (e.g. `X-Api-Key`). Sent only to the origin (scheme, host, port) of
    /// the URL they were given for, unless ``sendsHeadersAcrossOrigins`` is set. A name or value
    /// with a CR, LF or NUL (or a name that is not an HTTP token) is refused.
    public var headers: [String: String] = [:]
    /// Seconds per attempt: to connect, and the longest window with less than ``lowSpeedLimit``
    /// bytes per second received. Default 30. Clamped to 1…1,000,000 (NaN is the default), so
    /// no value traps or waits for ever.
    public var timeout: TimeInterval = 30
    /// Bytes per second below which, for ``timeout`` seconds, an attempt has stalled. Default 1 KiB.
    public var lowSpeedLimit = 1024
    /// Seconds for the whole transfer, retries and waits included; `nil` (the default) for none.
    /// Must be positive (NaN and negative values are refused); clamped to 1,000,000.
    public var deadline: TimeInterval?
    /// How many times a failed transfer is retried (a dropped connection, a refused reconnect, a
    /// 503 or 429). Default 5.
    public var maxRetries = 5
    /// The wait before the first retry, doubled for each further one (up to ``maxBackoff``). Default 0.25 s.
    public var backoff: TimeInterval = 0.25
    /// The longest wait between retries. Default 8 s. (A `Retry-After` is honoured up to a
    /// minute, or this if longer, and never past the ``deadline``.)
    public var maxBackoff: TimeInterval = 8
    /// The most redirects followed (http and https only). Default 10.
    public var maxRedirects = 10
    /// Send ``headers`` after a redirect to another origin too. Off by default: an API key given for
    /// one host is not handed to another.
    public var sendsHeadersAcrossOrigins = false
    /// Resume a dropped transfer even when the server gave no validator (no ETag, no
    /// Last-Modified), trusting that the resource did not change. Off by default: without a
    /// validator a changed resource could be spliced in.
    public var resumesWithoutValidator = false
    /// A PEM file of CA certificates to trust (a private CA), instead of the system's. TLS
    /// verification is always on.
    public var caCertificates: String?
    /// Ask for a compressed transfer (gzip, deflate, br, zstd) and decode it. A compressed transfer
    /// cannot resume: a drop fails. Off by default (`Accept-Encoding: identity`; a server that
    /// compresses anyway is an error naming the encoding).
    public var acceptsCompression = false
    /// Called after each read with the bytes received so far, the expected total and the resumes.
    public var onProgress: (@Sendable (HTTPProgress) -> Void)?

    /// Concurrent connections for one document. Default 1. With more, a server that accepts byte
    /// ranges (and gives an ETag or Last-Modified, or ``resumesWithoutValidator``) is read as
    /// ``segmentSize`` ranges fetched by this many connections at once, into a window of at most
    /// this many segments, and handed to the parser in order as soon as the next bytes are there.
    /// Each segment resumes and validates like the single connection: every response must carry
    /// the first one's validator, or the transfer fails with ``HTTPError/Kind/cannotResume``. A
    /// server without ranges, a compressed body or a document of one segment falls back to one
    /// connection. Memory: at most `segments × segmentSize` bytes.
    public var segments = 1
    /// The bytes of one segment (see ``segments``). Default 8 MiB.
    public var segmentSize = 8 << 20

    /// A directory for a resumable download cache, or `nil` (the default) for none. The body is
    /// spooled to `<dir>/<sha256 of the URL>.part` while it is parsed, with `<…>.meta` beside it
    /// (URL, validator, length, bytes written and bytes synced), written in order: data first,
    /// then the metadata; written bytes count on the same boot, synced ones after a reboot.
    /// After a crash, the next transfer of the URL parses the spooled bytes from disk first and
    /// fetches only the rest (`Range` + `If-Range`, asked before any spooled byte is handed out);
    /// bytes past the metadata's count (a torn write) are cut off, never parsed. A changed
    /// resource discards the spool and starts over; a complete spool is reused after a
    /// conditional request answered `304 Not Modified`. The directory is created mode 0700; an
    /// entry that is a symbolic link, not a regular file of the user's, or hard-linked elsewhere
    /// is refused (never written through), and metadata with impossible counts is discarded
    /// (Docs/Security.md). See ``HTTPCacheEvent``.
    public var cacheDirectory: String?
    /// The most bytes the cache's spools may hold together, the one being written included;
    /// older entries are evicted first, and a body larger than this is read without the cache
    /// (its partial entry removed, a ``HTTPCacheEvent/bypassed(reason:)`` event naming the
    /// option). `nil` (the default): no limit.
    public var cacheMaxBytes: Int?
    /// Called with what the cache does (resumes, reuses, discards, evicts).
    public var onCacheEvent: (@Sendable (HTTPCacheEvent) -> Void)?

    /// Options with the given headers, timeout, retries and backoff; the rest default.
    public init(
        headers: [String: String] = [:],
        timeout: TimeInterval = 30,
        maxRetries: Int = 5,
        backoff: TimeInterval = 0.25
    ) {
        self.headers = headers
        self.timeout = timeout
        self.maxRetries = maxRetries
        self.backoff = backoff
    }

    /// Throws ``HTTPError/Kind/invalidOptions`` for a header that could inject others, or a count
    /// out of range. Durations never throw: they are clamped (see ``HTTPByteSource``).
    public func validate() throws {
        func invalid(_ reason: String) -> HTTPError {
            HTTPError(kind: .invalidOptions, url: "", byteOffset: 0, reason: reason)
        }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw invalid(
                    "header name '\(MessageText.printable(name))' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
                )
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw invalid("the value of header '\(name)' contains a CR, LF or NUL (it would send other headers)")
            }
        }
        guard (0...1000).contains(maxRetries) else { throw invalid("maxRetries must be 0…1000, got \(maxRetries)") }
        guard (0...100).contains(maxRedirects) else { throw invalid("maxRedirects must be 0…100, got \(maxRedirects)") }
        if let deadline, !(deadline > 0) {
            throw invalid("deadline must be a positive number of seconds (or nil for none), got \(deadline)")
        }
        guard (1...64).contains(segments) else { throw invalid("segments must be 1…64, got \(segments)") }
        guard (64 << 10...1 << 30).contains(segmentSize) else {
            throw invalid("segmentSize must be 64 KiB…1 GiB, got \(segmentSize)")
        }
        if let cacheMaxBytes, cacheMaxBytes < 0 {
            throw invalid("cacheMaxBytes must be at least 0, got \(cacheMaxBytes)")
        }
        guard lowSpeedLimit >= 0 else { throw invalid("lowSpeedLimit must be at least 0, got \(lowSpeedLimit)") }
        if let caCertificates, !FileManager.default.isReadableFile(atPath: caCertificates) {
            throw invalid("cannot read the CA certificates file \(caCertificates)")
        }
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// `seconds` within 0…1,000,000 (NaN is 0): safe to convert to whole milliseconds.
    static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), 1_000_000)
    }

    /// The per-attempt timeout actually used: 1…1,000,000 s (NaN is the default, 30 s).
    var attemptTimeout: TimeInterval { timeout.isNaN ? 30 : max(1, Self.clamped(timeout)) }
}

/// How far a download is.
public struct HTTPProgress: Sendable, Hashable {
    /// Body bytes handed to the parser.
    public let receivedBytes: Int
    /// The body's length (`Content-Length`), when the server said.
    public let expectedBytes: Int?
    /// How many times the transfer was resumed or retried.
    public let resumes: Int
}

/// What a download cache (``HTTPOptions/cacheDirectory``) did, for logs and progress lines.
public enum HTTPCacheEvent: Sendable, Hashable, CustomStringConvertible {
    /// A new spool: the body is downloaded from its first byte and spooled.
    case started(spool: String)
    /// An unfinished spool is used: its bytes are parsed from disk, then the download goes on
    /// from `fromByte` (the server confirmed, with `If-Range`, that the resource is the same).
    case resuming(spool: String, fromByte: Int)
    /// A complete spool is used as it is: the server answered `304 Not Modified`.
    case reused(spool: String, bytes: Int)
    /// The spool could not be used (the resource changed, or cannot be resumed): it is
    /// discarded and the download starts over.
    case discarded(spool: String, reason: String)
    /// The spool held bytes past what its metadata counts (written after the last record, and
    /// perhaps torn by a crash): they were cut off, unread, and are fetched again.
    case cutTornWrite(spool: String, keptBytes: Int, droppedBytes: Int)
    /// An older entry was removed to stay within ``HTTPOptions/cacheMaxBytes``.
    case evicted(spool: String, bytes: Int)
    /// The cache is not used for this transfer (another process holds the entry, or the
    /// directory cannot be written); the download goes on without it.
    case bypassed(reason: String)
    /// The whole body is spooled.
    case completed(spool: String, bytes: Int)

    /// `cache: resuming /c/ab12….part from byte 1048576`
    public var description: String {
        switch self {
        case .started(let spool): return "cache: downloading into \(spool)"
        case .resuming(let spool, let byte):
            return "cache: parsing \(spool) from disk, then downloading from byte \(byte)"
        case .reused(let spool, let bytes):
            return "cache: \(spool) is current (304 Not Modified): \(bytes) bytes, none downloaded"
        case .discarded(let spool, let reason): return "cache: discarded \(spool) (\(reason)); starting over"
        case .cutTornWrite(let spool, let kept, let dropped):
            return
                "cache: cut \(dropped) bytes written after the last record of \(spool) (a crash may have torn them), keeping \(kept)"
        case .evicted(let spool, let bytes): return "cache: evicted \(spool) (\(bytes) bytes)"
        case .bypassed(let reason): return "cache: not used (\(reason))"
        case .completed(let spool, let bytes): return "cache: \(spool) complete (\(bytes) bytes)"
        }
    }
}
