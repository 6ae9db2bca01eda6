import Foundation
import Synchronization
import YAJL
private import CCurl

/// Settings for reading JSON over HTTP(S).
public struct HTTPOptions: Sendable {
    /// Extra request headers (e.g. `Authorization`).
    public var headers: [String: String] = [:]
    /// Seconds to wait to connect, and the longest time without receiving a byte. Default 30.
    public var timeout: TimeInterval = 30
    /// How many times a dropped transfer is resumed before giving up. Default 5.
    public var maxRetries = 5
    /// The wait before the first retry, doubled for each further one (up to ``maxBackoff``). Default 0.25 s.
    public var backoff: TimeInterval = 0.25
    /// The longest wait between retries. Default 8 s.
    public var maxBackoff: TimeInterval = 8
    /// Called after each read with the bytes received so far, the expected total and the resumes.
    public var onProgress: (@Sendable (HTTPProgress) -> Void)?

    public init(headers: [String: String] = [:], timeout: TimeInterval = 30, maxRetries: Int = 5, backoff: TimeInterval = 0.25) {
        self.headers = headers
        self.timeout = timeout
        self.maxRetries = maxRetries
        self.backoff = backoff
    }
}

/// How far a download is.
public struct HTTPProgress: Sendable, Hashable {
    /// Body bytes handed to the parser.
    public let receivedBytes: Int
    /// The body's length (`Content-Length`), when the server said.
    public let expectedBytes: Int?
    /// How many times the transfer was resumed after a dropped connection.
    public let resumes: Int
}

/// A failed download: an HTTP status, a transport failure, or a transfer that could not be resumed.
/// Always names the URL and the body byte offset reached.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The server answered with a 4xx or 5xx status (its body is never parsed).
        case status(Int)
        /// The connection failed: refused, timed out, TLS, DNS (curl's message and code).
        case transport(code: Int)
        /// The transfer broke and could not be resumed (no ranges, changed resource, retries exhausted).
        case cannotResume
    }

    public let kind: Kind
    public let url: String
    /// Body bytes received and handed to the parser before the failure.
    public let byteOffset: Int
    /// Why, in words.
    public let reason: String

    public var description: String {
        switch kind {
        case .status(let status): return "HTTP \(status) from \(url): \(reason)"
        case .transport(let code): return "cannot download \(url) at byte \(byteOffset): \(reason) (curl error \(code))"
        case .cannotResume: return "cannot resume \(url) at byte \(byteOffset): \(reason)"
        }
    }
}

/// Reads an `http://` or `https://` URL with libcurl, in the pull style of every byte source.
///
/// **Back-pressure.** curl runs only inside ``read(into:)``, and only until the caller's buffer has
/// bytes; what arrives beyond it waits in a spill of at most 1 MiB, and past that the write callback
/// pauses the transfer (`CURL_WRITEFUNC_PAUSE`) and curl keeps the data. So memory is bounded
/// whatever the network's speed. (`URLSession` on Linux either buffers without limit or, suspended
/// from its delegate, delivered duplicated bytes; see Docs/Architecture.md.)
///
/// **Resume.** When the connection drops mid-body, and the first response allowed ranges
/// (`Accept-Ranges: bytes`) and gave a validator (ETag, else Last-Modified), the source reconnects
/// with `Range: bytes=N-` and `If-Range`, where N is exactly the number of bytes it has handed out;
/// the parser just goes on. A 200 instead of a 206, a different ETag or a wrong `Content-Range` means
/// the resource changed, and the source fails rather than splice. Retries are bounded, with
/// exponential backoff.
///
/// Durations are clamped to 0…1,000,000 s (NaN counts as 0), so no value of an option can trap.
///
/// Not `Sendable`; reads happen on the calling thread. As an ``AsyncJSONByteSource`` it honours task
/// cancellation within a tenth of a second.
public final class HTTPByteSource: JSONByteSource, AsyncJSONByteSource {
    /// The URL being read.
    public let url: URL
    public let options: HTTPOptions

    private var multi: UnsafeMutableRawPointer?
    private var easy: UnsafeMutableRawPointer?
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?

    // Reading.
    private var target: UnsafeMutableRawBufferPointer?
    private var targetFilled = 0
    private var spill: [UInt8] = []
    private var spillOffset = 0
    private var paused = false
    private var delivered = 0
    private var finished = false
    private var failure: HTTPError?
    private let cancellation = CancellationFlag()

    // The current response.
    private var status = 0
    private var responseLength: Int?
    private var responseETag: String?
    private var responseLastModified: String?
    private var responseAcceptsRanges = false
    private var contentRangeStart: Int?
    private var headersChecked = false

    // What the first response promised.
    private var totalLength: Int?
    private var validator: String?
    private var etag: String?
    private var acceptsRanges = false
    private var resumes = 0

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// A source for `url` (`http` or `https`).
    public init(url: URL, options: HTTPOptions = HTTPOptions()) {
        self.url = url
        self.options = options
    }

    deinit {
        closeTransfer()
        if let multi { curl_multi_cleanup(multi) }  // also when dropped before the end (early stop)
    }

    /// Whether `text` names an HTTP(S) resource.
    public static func isHTTPURL(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://")
    }

    // MARK: Reading

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do {
            return try readOnce(into: buffer)
        } catch {
            closeTransfer()
            throw error
        }
    }

    private func readOnce(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        if let failure { throw failure }
        if spillOffset < spill.count {
            let n = min(buffer.count, spill.count - spillOffset)
            spill.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + spillOffset, byteCount: n) }
            spillOffset += n
            if spillOffset == spill.count { spill.removeAll(keepingCapacity: true); spillOffset = 0 }
            return handOut(n)
        }
        if finished { return 0 }
        target = buffer
        targetFilled = 0
        defer { target = nil }
        while targetFilled == 0 {
            if cancellation.isSet { throw CancellationError() }
            if easy == nil { try startTransfer() }
            if paused {
                paused = false
                _ = ccurl_unpause(easy)
                if targetFilled > 0 { break }
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            if let failure { throw failure }
            if targetFilled > 0 { break }
            if let result = finishedTransferResult() {
                if try transferEnded(result) { return 0 }
                continue
            }
            curl_multi_poll(multi, nil, 0, 100, nil)
        }
        return handOut(targetFilled)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        try Task.checkCancellation()
        let flag = cancellation
        return try await withTaskCancellationHandler {
            try read(into: buffer)
        } onCancel: {
            flag.set()
        }
    }

    private func handOut(_ count: Int) -> Int {
        delivered += count
        options.onProgress?(HTTPProgress(receivedBytes: delivered, expectedBytes: totalLength, resumes: resumes))
        return count
    }

    /// The result of the transfer if curl reports it finished.
    private func finishedTransferResult() -> CURLcode? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { return ccurl_message_result(message) }
        }
        return nil
    }

    /// Handles the end of a transfer: `true` at the complete end of the body; `false` after
    /// starting a resumed transfer; throws when it cannot go on.
    private func transferEnded(_ result: CURLcode) throws -> Bool {
        if let failure { throw failure }
        let complete = totalLength.map { delivered + pendingBytes >= $0 } ?? true
        if result == CURLE_OK && complete {
            closeTransfer()
            finished = true
            return true
        }
        let reason = result == CURLE_OK ? "the connection closed before the end of the body"
            : String(cString: curl_easy_strerror(result))
        let retriable: Set<CURLcode> = [CURLE_OK, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
                                        CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT]
        guard status != 0, retriable.contains(result) else {
            throw fail(.transport(code: Int(result.rawValue)), reason)
        }
        guard acceptsRanges else { throw fail(.cannotResume, "\(reason), and the server does not accept ranges") }
        guard validator != nil else { throw fail(.cannotResume, "\(reason), and the server gave no ETag or Last-Modified to resume safely") }
        guard resumes < options.maxRetries else { throw fail(.cannotResume, "\(reason), and \(options.maxRetries) retries are used up") }
        resumes += 1
        let wait = Self.clampedSeconds(min(options.maxBackoff, options.backoff * pow(2, Double(resumes - 1))))
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        closeTransfer()  // bytes received but not handed out are fetched again
        return false
    }

    private var pendingBytes: Int { spill.count - spillOffset }

    /// Records a failure. Safe inside curl's callbacks: the transfer is closed by ``read(into:)``
    /// once curl has returned (cleaning up a handle inside its own callback is a use after free).
    @discardableResult
    private func fail(_ kind: HTTPError.Kind, _ reason: String) -> HTTPError {
        let error = HTTPError(kind: kind, url: url.absoluteString, byteOffset: delivered, reason: reason)
        failure = error
        return error
    }

    // MARK: Transfers

    private func startTransfer() throws {
        guard Self.globalInit else { throw fail(.transport(code: -1), "curl_global_init failed") }
        guard let easy = curl_easy_init(), let multi = multi ?? curl_multi_init() else {
            throw fail(.transport(code: -1), "out of memory")
        }
        self.easy = easy
        self.multi = multi
        resetResponse(status: 0)
        spill.removeAll(keepingCapacity: true)
        spillOffset = 0
        paused = false

        _ = ccurl_setopt_string(easy, CURLOPT_URL, url.absoluteString)
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // Any timeout (even .infinity, .nan or 1e300) becomes a whole number libcurl accepts: no
        // conversion here can trap.
        let timeout = Self.clampedSeconds(options.timeout)
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout * 1000))
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(timeout)))
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, "swift-yajl")
        var headers = options.headers.map { "\($0.key): \($0.value)" }
        if delivered > 0 {
            headers.append("Range: bytes=\(delivered)-")
            if let validator { headers.append("If-Range: \(validator)") }
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        requestHeaders = list
        if let list { _ = ccurl_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)) }

        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_setopt_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            Unmanaged<HTTPByteSource>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.receive(UnsafeRawBufferPointer(start: data, count: size * count))
            }
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            Unmanaged<HTTPByteSource>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.header(UnsafeRawBufferPointer(start: data, count: size * count))
            }
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        curl_multi_add_handle(multi, easy)
    }

    private func closeTransfer() {
        if let easy {
            if let multi { curl_multi_remove_handle(multi, easy) }
            curl_easy_cleanup(easy)
            self.easy = nil
        }
        if let requestHeaders {
            curl_slist_free_all(requestHeaders)
            self.requestHeaders = nil
        }
        if finished || failure != nil || cancellation.isSet, let multi {
            curl_multi_cleanup(multi)
            self.multi = nil
        }
    }

    // MARK: Callbacks

    /// The most body bytes held beside the caller's buffer before the transfer is paused. Pausing
    /// costs a round of `curl_multi_poll` when resumed, so it is kept for real back-pressure.
    static let spillLimit = 1 << 20

    /// Body bytes from curl: into the caller's buffer, the rest into the spill (up to
    /// ``spillLimit``); beyond that, pause the transfer so curl keeps the bytes. A callback is taken
    /// whole or not at all.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if failure != nil { return 0 }
        if !headersChecked { checkHeaders() }
        if failure != nil { return 0 }
        let room = target.map { $0.count - targetFilled } ?? 0
        if let target, bytes.count <= room {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            targetFilled += bytes.count
            return bytes.count
        }
        guard pendingBytes == 0 || pendingBytes + bytes.count - room <= Self.spillLimit else {
            paused = true
            return ccurl_writefunc_pause
        }
        if let target, room > 0 {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: room)
            targetFilled += room
        }
        spill.append(contentsOf: bytes[room...])
        return bytes.count
    }

    /// One header line (or a status line, or the blank line that ends the headers).
    private func header(_ line: UnsafeRawBufferPointer) -> Int {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue): start over.
            resetResponse(status: Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0)
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].lowercased()
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-length": responseLength = Int(value)
            case "etag": responseETag = value
            case "last-modified": responseLastModified = value
            case "accept-ranges": responseAcceptsRanges = value.lowercased().contains("bytes")
            case "content-range":
                // bytes START-END/TOTAL
                let spec = value.split(separator: " ").last ?? ""
                contentRangeStart = spec.split(separator: "-").first.flatMap { Int($0) }
                if let total = spec.split(separator: "/").last.flatMap({ Int($0) }) { totalLength = total }
                responseAcceptsRanges = true
            default: break
            }
        }
        return line.count
    }

    /// Forgets what the previous response said.
    private func resetResponse(status: Int) {
        self.status = status
        responseLength = nil
        responseETag = nil
        responseLastModified = nil
        responseAcceptsRanges = false
        contentRangeStart = nil
        headersChecked = false
    }

    /// Before the first body byte of a response: is it the body we want?
    private func checkHeaders() {
        headersChecked = true
        if status >= 400 {
            fail(.status(status), Self.statusText[status] ?? "status \(status)")
            return
        }
        if delivered == 0 && resumes == 0 {
            // The first response defines the resource.
            totalLength = responseLength
            etag = responseETag
            validator = responseETag ?? responseLastModified
            acceptsRanges = responseAcceptsRanges
            return
        }
        if status == 200 {
            fail(.cannotResume, "the resource changed (200 instead of 206 to a ranged request with If-Range)")
        } else if status != 206 || contentRangeStart != delivered {
            fail(.cannotResume, "the server answered \(status) with a range starting at \(contentRangeStart.map(String.init) ?? "none"), not at \(delivered)")
        } else if let etag, let responseETag, etag != responseETag {
            fail(.cannotResume, "the resource changed (ETag \(responseETag), was \(etag))")
        }
    }
}

extension HTTPByteSource {
    static let statusText: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        408: "Request Timeout", 410: "Gone", 416: "Range Not Satisfiable", 429: "Too Many Requests",
        500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// Set from a task's cancellation handler, read by the blocking read loop.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

@available(*, unavailable, message: "an HTTPByteSource reads from one thread at a time")
extension HTTPByteSource: Sendable {}

extension JSONByteSource where Self == HTTPByteSource {
    /// An `http://` or `https://` URL, read with libcurl, resumed after dropped connections.
    public static func http(_ url: URL, options: HTTPOptions = HTTPOptions()) -> HTTPByteSource {
        HTTPByteSource(url: url, options: options)
    }
}

extension AsyncJSONByteSource where Self == HTTPByteSource {
    /// An `http://` or `https://` URL, read with libcurl, resumed after dropped connections.
    public static func http(_ url: URL, options: HTTPOptions = HTTPOptions()) -> HTTPByteSource {
        HTTPByteSource(url: url, options: options)
    }
}

extension HTTPByteSource {
    /// `seconds` within 0…1,000,000 (NaN is 0): safe to convert to whole milliseconds.
    static func clampedSeconds(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), 1_000_000)
    }
}
