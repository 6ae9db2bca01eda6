import Dispatch
import Foundation
import YAJL
internal import CCurl

/// Reads an `http://` or `https://` URL with libcurl, in the pull style of every byte source.
///
/// **Back-pressure.** curl runs only inside ``read(into:)``, and only until the caller's buffer has
/// bytes; what arrives beyond it waits in a spill of at most 1 MiB, and past that the write callback
/// pauses the transfer (`CURL_WRITEFUNC_PAUSE`) and curl keeps the data. So memory is bounded
/// whatever the network's speed.
///
/// **Resume, never splice.** When the connection drops mid-body, the source reconnects with
/// `Range: bytes=N-` (N is exactly the number of bytes handed out) and `If-Range` with the first
/// response's strong ETag, else its Last-Modified; the `206` must carry the same validator, or the
/// transfer fails with ``HTTPError/Kind/cannotResume`` naming the offset. A first response with no
/// validator is not resumed unless ``HTTPOptions/resumesWithoutValidator`` says so. A drop before
/// the first body byte, a refused reconnect, a 503 or 429 (after `Retry-After`) are retried with
/// exponential backoff, within ``HTTPOptions/maxRetries`` and the ``HTTPOptions/deadline``.
///
/// **Bounded waits.** Each attempt has ``HTTPOptions/timeout`` to connect and fails after that
/// long below ``HTTPOptions/lowSpeedLimit``; the deadline bounds everything; redirects are
/// followed here (at most ``HTTPOptions/maxRedirects``, http and https only), so custom headers
/// stay with their origin. Durations are clamped, so no value of an option can trap.
///
/// Not `Sendable`; blocking reads happen on the calling thread. As an ``AsyncJSONByteSource`` it
/// runs each read on a thread of its own (never a cooperative thread) and honours task
/// cancellation within a tenth of a second.
public final class HTTPByteSource: JSONByteSource, AsyncJSONByteSource, InterruptibleByteSource {
    /// The URL being read.
    public let url: URL
    /// The options of the transfer.
    public let options: HTTPOptions

    var multi: UnsafeMutableRawPointer?
    var easy: UnsafeMutableRawPointer?
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// curl's detailed message of the last failure (`CURLOPT_ERRORBUFFER`).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    // Reading.
    var target: UnsafeMutableRawBufferPointer?
    var targetFilled = 0
    var spill: [UInt8] = []
    var spillOffset = 0
    var paused = false
    var delivered = 0
    var finished = false
    var failure: HTTPError?
    /// Set by the async read's task cancellation.
    let cancellation = ReadInterruption()
    /// Set by a record reader that is dropped while this source's read waits.
    package var interruption: ReadInterruption?
    var isInterrupted: Bool { cancellation.isSet || interruption?.isSet == true }
    /// Where the current request goes (the URL, or a redirect's target).
    var currentURL: URL
    var redirects = 0
    /// When the transfer began (for the deadline).
    var started: ContinuousClock.Instant?

    // The current response.
    var head = HTTPResponseHead()
    var headersChecked = false
    /// Its body is not the document (a redirect's or a retried status's): dropped.
    var discardingBody = false
    /// Some response has been received (so a refused connection is a reconnect, worth retrying).
    var everConnected = false

    // What the first response promised.
    var totalLength: Int?
    var validator: ResumeValidator?
    var acceptsRanges = false
    var compressed = false
    var resumes = 0

    let queue = DispatchQueue(label: "swift-yajl.http")

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// A source for `url` (`http` or `https`).
    public init(url: URL, options: HTTPOptions = HTTPOptions()) {
        self.url = url
        self.options = options
        currentURL = url
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        closeTransfer()
        if let multi { curl_multi_cleanup(multi) }  // also when dropped before the end (early stop)
        errorBuffer.deallocate()
    }

    /// Whether `text` names an HTTP(S) resource.
    public static func isHTTPURL(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://")
    }

    // MARK: Reading

    /// Reads the next body bytes into `buffer`, blocking; 0 at the end of the body.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do {
            return try readOnce(into: buffer)
        } catch {
            closeTransfer()
            throw error
        }
    }

    /// Reads on this source's own thread, suspending the task meanwhile; cancelling the task
    /// ends the transfer within a tenth of a second with `CancellationError`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        try Task.checkCancellation()
        let flag = cancellation
        let call = UnsafeTransfer((self, buffer))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                queue.async {
                    let (source, buffer) = call.value
                    continuation.resume(with: Result { try source.read(into: buffer) })
                }
            }
        } onCancel: {
            flag.set()
        }
    }

    func readOnce(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
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
        if started == nil {
            do {
                try options.validate()
            } catch let error as HTTPError {
                throw fail(error.kind, error.reason)
            }
            started = .now
        }
        target = buffer
        targetFilled = 0
        defer { target = nil }
        while targetFilled == 0 {
            if isInterrupted { throw CancellationError() }
            if remainingTime() == 0 { throw deadlineExceeded() }
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

    func handOut(_ count: Int) -> Int {
        delivered += count
        options.onProgress?(HTTPProgress(receivedBytes: delivered, expectedBytes: totalLength, resumes: resumes))
        return count
    }

    /// Seconds left before the deadline (`nil` without one), never negative.
    func remainingTime() -> TimeInterval? {
        guard let deadline = options.deadline, let started else { return nil }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return max(0, HTTPOptions.clamped(deadline) - seconds)
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The result of the transfer if curl reports it finished.
    func finishedTransferResult() -> CURLcode? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { return ccurl_message_result(message) }
        }
        return nil
    }

    /// Records a failure. Safe inside curl's callbacks: the transfer is closed by ``read(into:)``
    /// once curl has returned (cleaning up a handle inside its own callback is a use after free).
    @discardableResult
    func fail(_ kind: HTTPError.Kind, _ reason: String) -> HTTPError {
        let error = HTTPError(kind: kind, url: url.absoluteString, byteOffset: delivered, reason: reason)
        failure = error
        return error
    }

    var pendingBytes: Int { spill.count - spillOffset }

    // MARK: Transfers

    func startTransfer() throws {
        guard Self.globalInit else { throw fail(.transport(code: -1), "curl_global_init failed") }
        guard let easy = curl_easy_init(), let multi = multi ?? curl_multi_init() else {
            throw fail(.transport(code: -1), "out of memory")
        }
        self.easy = easy
        self.multi = multi
        head = HTTPResponseHead()
        headersChecked = false
        discardingBody = false
        spill.removeAll(keepingCapacity: true)
        spillOffset = 0
        paused = false
        errorBuffer[0] = 0

        _ = ccurl_setopt_string(easy, CURLOPT_URL, currentURL.absoluteString)
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)  // followed here, see follow(_:)
        _ = ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        let timeout = options.attemptTimeout
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout * 1000))
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, max(1, min(options.lowSpeedLimit, 1 << 40)))
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, Int(timeout))
        if let remaining = remainingTime() { _ = ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, Int(remaining * 1000))) }
        if let caCertificates = options.caCertificates { _ = ccurl_setopt_string(easy, CURLOPT_CAINFO, caCertificates) }
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, "swift-yajl")
        var headers: [String] = []
        if options.sendsHeadersAcrossOrigins || HTTPOrigin(currentURL) == HTTPOrigin(url) {
            headers = options.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        }
        if options.acceptsCompression {
            _ = ccurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")  // what curl can decode
        } else {
            headers.append("Accept-Encoding: identity")
        }
        if delivered > 0 {
            headers.append("Range: bytes=\(delivered)-")
            if let validator { headers.append("If-Range: \(validator.ifRange)") }
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

    func closeTransfer() {
        if let easy {
            if let multi { curl_multi_remove_handle(multi, easy) }
            curl_easy_cleanup(easy)
            self.easy = nil
        }
        if let requestHeaders {
            curl_slist_free_all(requestHeaders)
            self.requestHeaders = nil
        }
        if finished || failure != nil || isInterrupted, let multi {
            curl_multi_cleanup(multi)
            self.multi = nil
        }
    }
}

/// Hands a value to the source's own thread: the caller awaits until that thread is done with it.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
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

