import Dispatch
import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an `http://` or `https://` URL with libcurl, in the pull style of every byte source.
///
/// **Back-pressure.** curl runs only inside `read(into:)`, and only until the caller's buffer has
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
/// Not `Sendable`; blocking reads happen on the calling thread. As an `AsyncJSONByteSource` it
/// runs each read on a thread of its own (never a cooperative thread) and honours task
/// cancellation within a tenth of a second.
public final class HTTPByteSource: JSONByteSource, AsyncJSONByteSource, InterruptibleByteSource {
    /// The URL being read.
    public let url: URL
    /// The options of the transfer.
    public let options: HTTPOptions

    /// Where the transfer is. Every path through ``read(into:)`` switches on it.
    enum State {
        /// No read yet (the options are checked by the first).
        case idle
        /// An attempt is running; where its response is.
        case transferring(ResponsePhase)
        /// An attempt ended and the next (a redirect, a retry, a resume) starts on the next turn.
        case betweenAttempts
        /// The whole body has been received (the spill may still hold its last bytes).
        case finished
        /// The transfer cannot go on; every later read throws this.
        case failed(HTTPError)
    }

    /// Where the current attempt's response is.
    enum ResponsePhase {
        /// Headers are arriving; the body's first byte decides (``ResumePolicy/verdict(on:delivered:identity:)``).
        case headers
        /// Its body is the document.
        case body
        /// Its body is not the document (a redirect's, a retried status's): dropped.
        case discarding
    }

    var state = State.idle
    lazy var transfer = CurlTransfer(receiver: self)
    let policy: ResumePolicy

    // Reading: the caller's buffer during a read, and what did not fit in it.
    var target: UnsafeMutableRawBufferPointer?
    var targetFilled = 0
    var spill: [UInt8] = []
    var spillOffset = 0
    /// The bytes handed out: where a resumed request starts.
    var delivered = 0
    /// Set by the async read's task cancellation.
    let cancellation = ReadInterruption()
    /// Set by a record reader that is dropped while this source's read waits.
    package var interruption: ReadInterruption?
    var isInterrupted: Bool { cancellation.isSet || interruption?.isSet == true || parent?.isInterrupted == true }
    /// The source this one is a connection of (a segmented or cached download's), whose
    /// cancellation and interruption stop this one's reads too.
    weak var parent: HTTPByteSource?

    // The transfer so far.
    /// Where the current request goes (the URL, or a redirect's target).
    var currentURL: URL
    var redirects = 0
    var retries = 0
    /// When the transfer began (for the deadline).
    var started: ContinuousClock.Instant?
    /// The current response's headers.
    var head = HTTPResponseHead()
    /// Some response has been received (so a refused connection is a reconnect, worth retrying).
    var everConnected = false
    /// What the first response with body bytes promised; `nil` before it.
    var identity: ResourceIdentity?
    /// For a connection of a segmented download after the first: the bytes it fetches
    /// (``delivered`` counts from its start).
    var segment: Range<Int>?
    /// The segmented download this source runs, when ``HTTPOptions/segments`` is more than 1.
    var segmented: SegmentedDownload?
    /// The download cache this source reads through, with ``HTTPOptions/cacheDirectory``.
    var cached: CachedDownload?
    /// A complete cached copy's validators: the request is conditional, and a `304` ends it
    /// with ``notModified``.
    var conditional: ResourceIdentity?
    /// The server answered the conditional request with `304 Not Modified`.
    var notModified = false

    let queue = DispatchQueue(label: "swift-yajl.http")

    /// A source for `url` (`http` or `https`).
    public init(url: URL, options: HTTPOptions = HTTPOptions()) {
        self.url = url
        self.options = options
        policy = ResumePolicy(options: options)
        currentURL = url
    }

    /// One connection of a segmented download: the bytes of `segment` of the resource `identity`
    /// describes, or (no segment) the first connection, which defines the resource.
    init(url: URL, options: HTTPOptions, segment: Range<Int>?, identity: ResourceIdentity?) {
        var single = options
        single.segments = 1
        single.onProgress = nil
        self.url = url
        self.options = single
        policy = ResumePolicy(options: single)
        currentURL = url
        self.segment = segment
        self.identity = identity
    }

    /// A connection that goes on from byte `offset` of the resource `identity` describes (a
    /// download cache's spool ends there): its first request is a resume (`Range` + `If-Range`).
    init(url: URL, options: HTTPOptions, resumingAt offset: Int, identity: ResourceIdentity) {
        var single = options
        single.segments = 1
        single.onProgress = nil
        single.cacheDirectory = nil
        self.url = url
        self.options = single
        policy = ResumePolicy(options: single)
        currentURL = url
        delivered = offset
        self.identity = identity
    }

    /// The bytes this source fetches in all: the segment's, else the resource's (when known).
    var expectedLength: Int? { segment.map { $0.count } ?? identity?.totalLength }

    /// The resource's `ETag`, as the response that delivered the first body byte sent it (`nil`
    /// before that, or when the server sent none).
    public var resourceETag: String? { resource?.etag }
    /// The resource's `Last-Modified`, as the response that delivered the first body byte sent it.
    public var resourceLastModified: String? { resource?.lastModified }
    /// The body's length (`Content-Length`), when the server said and the body is not compressed.
    public var resourceLength: Int? { resource?.totalLength }

    /// What the resource is, as this source's connection, its segmented download's first
    /// connection, or its cache knows it.
    var resource: ResourceIdentity? { identity ?? segmented?.identity ?? cached?.identity }

    /// Whether `text` names an HTTP(S) resource.
    public static func isHTTPURL(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://")
    }

    // MARK: Reading

    /// Reads the next body bytes into `buffer`, blocking; 0 at the end of the body.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if options.cacheDirectory != nil || options.segments > 1 {
            if cached == nil && segmented == nil {
                do {
                    try options.validate()
                } catch let error as HTTPError {
                    throw fail(error.kind, error.reason)
                }
                // The cache reads the network through sources of its own (segmented when asked).
                if options.cacheDirectory != nil {
                    cached = CachedDownload(source: self)
                } else {
                    segmented = SegmentedDownload(source: self)
                }
            }
            return try cached?.read(into: buffer) ?? segmented!.read(into: buffer)
        }
        do {
            return try readOnce(into: buffer)
        } catch {
            transfer.release()
            throw error
        }
    }

    /// Reads on this source's own thread, suspending the task meanwhile; cancelling the task
    /// ends the transfer within a tenth of a second with `CancellationError`.
    nonisolated(nonsending) public func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
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

    private func readOnce(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        if case .failed(let error) = state { throw error }
        if spillOffset < spill.count { return handOut(takeFromSpill(into: buffer)) }
        switch state {
        case .finished: return 0
        case .idle:
            do {
                try options.validate()
            } catch let error as HTTPError {
                throw fail(error.kind, error.reason)
            }
            started = .now
            state = .betweenAttempts
        case .transferring, .betweenAttempts, .failed: break
        }
        target = buffer
        targetFilled = 0
        defer { target = nil }
        while targetFilled == 0 {
            if isInterrupted { throw CancellationError() }
            if remainingTime() == 0 { throw deadlineExceeded() }
            switch state {
            case .failed(let error): throw error
            case .finished: return 0
            case .idle, .betweenAttempts: try beginAttempt()
            case .transferring: break
            }
            if transfer.isPaused {
                transfer.unpause()
                if targetFilled > 0 { break }
            }
            transfer.perform()
            if case .failed(let error) = state { throw error }
            if targetFilled > 0 { break }
            if let completion = transfer.completion() {
                try attemptEnded(completion)
                continue
            }
            transfer.poll(milliseconds: 100)
        }
        return handOut(targetFilled)
    }

    private func takeFromSpill(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(buffer.count, spill.count - spillOffset)
        spill.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + spillOffset, byteCount: n) }
        spillOffset += n
        if spillOffset == spill.count {
            spill.removeAll(keepingCapacity: true)
            spillOffset = 0
        }
        return n
    }

    private func handOut(_ count: Int) -> Int {
        delivered += count
        options.onProgress?(
            HTTPProgress(receivedBytes: delivered, expectedBytes: identity?.totalLength, resumes: retries)
        )
        return count
    }

    /// Seconds left before the deadline (`nil` without one), never negative.
    func remainingTime() -> TimeInterval? {
        guard let deadline = options.deadline, let started else { return nil }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return max(0, HTTPOptions.clamped(deadline) - seconds)
    }

    /// Records a failure. Safe inside curl's callbacks: the transfer is closed by ``read(into:)``
    /// once curl has returned (cleaning up a handle inside its own callback is a use after free).
    @discardableResult
    func fail(_ kind: HTTPError.Kind, _ reason: String) -> HTTPError {
        let offset = (segment?.lowerBound ?? 0) + delivered
        let error = HTTPError(kind: kind, url: url.absoluteString, byteOffset: offset, reason: reason)
        state = .failed(error)
        return error
    }

    var pendingBytes: Int { spill.count - spillOffset }

    // MARK: Attempts

    /// Starts the next attempt to ``currentURL``, from byte ``delivered``.
    private func beginAttempt() throws {
        head = HTTPResponseHead()
        spill.removeAll(keepingCapacity: true)
        spillOffset = 0
        let timeout = options.attemptTimeout
        let request = CurlTransfer.Request(
            url: currentURL,
            headers: policy.requestHeaders(
                to: currentURL,
                original: url,
                delivered: delivered,
                identity: identity,
                segment: segment,
                conditional: conditional
            ),
            connectTimeout: timeout,
            lowSpeedLimit: options.lowSpeedLimit,
            lowSpeedTime: timeout,
            totalTimeout: remainingTime(),
            caCertificates: options.caCertificates,
            decodesCompression: options.acceptsCompression
        )
        if let problem = transfer.begin(request) { throw fail(.transport(code: -1), problem) }
        state = .transferring(.headers)
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
