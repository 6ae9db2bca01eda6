#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the response that delivered the first body byte promised about the resource: every later
/// response of the transfer must be the same resource, or no byte of it is used.
struct ResourceIdentity: Equatable {
    /// The body's length, when known and not compressed.
    let totalLength: Int?
    /// The strong ETag, else the Last-Modified date; `nil` when the server gave neither.
    let validator: ResumeValidator?
    /// Whether the server said it accepts byte ranges.
    let acceptsRanges: Bool
    /// Whether the body was content-encoded (then offsets are not the server's: no resume).
    let compressed: Bool
    /// The response's ETag (strong or weak) and Last-Modified, as sent.
    let etag: String?
    let lastModified: String?

    /// What a download cache's metadata remembers of the resource.
    init(totalLength: Int?, etag: String?, lastModified: String?) {
        self.totalLength = totalLength
        self.etag = etag
        self.lastModified = lastModified
        var head = HTTPResponseHead()
        head.etag = etag
        head.lastModified = lastModified
        validator = ResumeValidator(head)
        acceptsRanges = true
        compressed = false
    }

    init(_ head: HTTPResponseHead) {
        compressed = head.contentEncoding != nil
        etag = head.etag
        lastModified = head.lastModified
        // A 206 to a ranged first request says the whole length after its slash.
        totalLength = compressed ? nil : head.status == 206 ? head.contentRangeTotal : head.contentLength
        validator = ResumeValidator(head)
        acceptsRanges = head.acceptsRanges
    }
}

/// Why an attempt ended before the end of the body, when it may be retried.
enum RetryCause: Equatable {
    /// The connection broke (or a reconnection was refused); curl's words.
    case dropped(String)
    /// The attempt stalled (no connection, or too slow for too long); curl's words.
    case timedOut(String)
    /// A 503, 429, 502 or 504, its text, and its `Retry-After` in seconds.
    case status(Int, String, retryAfter: TimeInterval?)
}

/// The transfer's decisions, with no I/O: which headers a request carries, whether a response's
/// body may be used, and whether and when a broken transfer is retried. Pure functions of the
/// options and of what the transfer has seen, tested without a server (`ResumePolicyTests`).
struct ResumePolicy {
    let options: HTTPOptions

    /// What to do with a response whose headers have arrived, before its first body byte.
    enum Verdict: Equatable {
        /// Its body is the document. `defines` is the resource's identity when this response is
        /// the first to deliver body bytes.
        case useBody(defines: ResourceIdentity?)
        /// Its body is not the document (a redirect's, a retried status's): dropped.
        case discardBody
        /// The transfer cannot go on.
        case fail(HTTPError.Kind, String)
    }

    /// What to do after an attempt ended early.
    enum Decision: Equatable {
        /// Try again after `wait` seconds, from byte `delivered` of the resource.
        case retry(wait: TimeInterval)
        case fail(HTTPError.Kind, String)
    }

    /// The request headers of an attempt to `url`: the caller's headers (only to the origin they
    /// were given for, unless ``HTTPOptions/sendsHeadersAcrossOrigins``), the encoding asked for,
    /// and, when resuming at `delivered`, the range and the validator that keeps a changed
    /// resource out.
    func requestHeaders(
        to url: URL,
        original: URL,
        delivered: Int,
        identity: ResourceIdentity?,
        segment: Range<Int>? = nil,
        conditional: ResourceIdentity? = nil
    ) -> [String] {
        var headers: [String] = []
        if options.sendsHeadersAcrossOrigins || HTTPOrigin(url) == HTTPOrigin(original) {
            headers = options.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        }
        if !options.acceptsCompression { headers.append("Accept-Encoding: identity") }
        if let segment {
            // A segment of a segmented download: always its remaining bytes, validated once the
            // first response has fixed the validator.
            headers.append("Range: bytes=\(segment.lowerBound + delivered)-\(segment.upperBound - 1)")
            if let validator = identity?.validator { headers.append("If-Range: \(validator.ifRange)") }
        } else if delivered == 0, let conditional {
            // A complete cached copy: fetched again only if it changed.
            if let etag = conditional.etag {
                headers.append("If-None-Match: \(etag)")
            } else if let date = conditional.lastModified {
                headers.append("If-Modified-Since: \(date)")
            }
        } else if delivered > 0 {
            headers.append("Range: bytes=\(delivered)-")
            if let validator = identity?.validator { headers.append("If-Range: \(validator.ifRange)") }
        }
        return headers
    }

    /// Whether the body of the response `head` may be passed on, `delivered` bytes into the
    /// resource first described by `identity`.
    func verdict(
        on head: HTTPResponseHead,
        delivered: Int,
        identity: ResourceIdentity?,
        segment: Range<Int>? = nil
    ) -> Verdict {
        if head.isRedirect || head.isRetriableStatus { return .discardBody }  // followed or retried at its end
        if head.status >= 300 {
            return .fail(.status(head.status), HTTPError.statusText[head.status] ?? "status \(head.status)")
        }
        if let encoding = head.contentEncoding, !options.acceptsCompression {
            return .fail(
                .contentEncoding(encoding),
                "the request asked for Accept-Encoding: identity (acceptsCompression to decode it)"
            )
        }
        if let segment { return segmentVerdict(on: head, delivered: delivered, identity: identity, segment: segment) }
        // Nothing handed out yet: this response defines the resource.
        guard delivered > 0 else { return .useBody(defines: ResourceIdentity(head)) }
        if head.status == 200 {
            return .fail(.cannotResume, "the resource changed (200 instead of 206 to a ranged request with If-Range)")
        }
        if head.status != 206 || head.contentRangeStart != delivered {
            let start = head.contentRangeStart.map(String.init) ?? "none"
            return .fail(
                .cannotResume,
                "the server answered \(head.status) with a range starting at \(start), not at \(delivered)"
            )
        }
        if let encoding = head.contentEncoding {
            return .fail(.cannotResume, "the resumed response is \(encoding)-compressed")
        }
        if let validator = identity?.validator, let mismatch = validator.mismatch(in: head) {
            return .fail(.cannotResume, mismatch)
        }
        return .useBody(defines: nil)
    }

    /// The verdict on a response to a segment's ranged request: a `206` from exactly the next
    /// byte, with the validator (and length) of the response that defined the resource.
    private func segmentVerdict(
        on head: HTTPResponseHead,
        delivered: Int,
        identity: ResourceIdentity?,
        segment: Range<Int>
    ) -> Verdict {
        let next = segment.lowerBound + delivered
        guard let identity else { return .fail(.cannotResume, "a segment was requested before the resource was known") }
        if head.status == 200 {
            return .fail(
                .cannotResume,
                "the server sent the whole resource (200) for the segment at \(next): it changed, or ignores ranges now"
            )
        }
        if head.status != 206 || head.contentRangeStart != next {
            let start = head.contentRangeStart.map(String.init) ?? "none"
            return .fail(
                .cannotResume,
                "the server answered \(head.status) with a range starting at \(start), not at \(next)"
            )
        }
        if let total = head.contentRangeTotal, total != identity.totalLength {
            return .fail(.cannotResume, "the resource changed (length \(total), was \(identity.totalLength ?? -1))")
        }
        if let validator = identity.validator, let mismatch = validator.mismatch(in: head) {
            return .fail(.cannotResume, mismatch)
        }
        return .useBody(defines: nil)
    }

    /// Whether and when to retry after `cause`, with `delivered` bytes handed out, `retries`
    /// retries made, and `remaining` seconds before the deadline (`nil` without one). Retries
    /// back off exponentially up to ``HTTPOptions/maxBackoff``; `Retry-After` is honoured up to a
    /// minute (or `maxBackoff` if longer); a retry that would pass the deadline is not made.
    func decision(
        after cause: RetryCause,
        delivered: Int,
        identity: ResourceIdentity?,
        retries: Int,
        remaining: TimeInterval?
    ) -> Decision {
        let reason: String
        var wait = HTTPOptions.clamped(
            min(options.maxBackoff, options.backoff * Double(sign: .plus, exponent: min(retries, 1000), significand: 1))
        )
        switch cause {
        case .dropped(let text), .timedOut(let text): reason = text
        case .status(_, let text, let retryAfter):
            reason = text
            if let retryAfter { wait = min(max(60, HTTPOptions.clamped(options.maxBackoff)), retryAfter) }
        }
        if delivered > 0 {
            // Resuming: only with ranges, and a validator that keeps a changed resource out.
            guard identity?.acceptsRanges == true else {
                return .fail(.cannotResume, "\(reason), and the server does not accept ranges")
            }
            guard identity?.compressed != true else {
                return .fail(.cannotResume, "\(reason), and a compressed transfer cannot resume")
            }
            guard identity?.validator != nil || options.resumesWithoutValidator else {
                return .fail(
                    .cannotResume,
                    "\(reason), and the server gave no ETag or Last-Modified to resume safely (resumesWithoutValidator, --resume-unvalidated, to resume anyway)"
                )
            }
        }
        guard retries < options.maxRetries else {
            let tried = "after \(options.maxRetries) \(options.maxRetries == 1 ? "retry" : "retries")"
            switch cause {
            case .status(let status, let text, _): return .fail(.status(status), "\(text) \(tried)")
            case .timedOut(let text):
                return .fail(
                    .timedOut,
                    "\(text): no connection, or less than \(options.lowSpeedLimit) bytes/s for \(Self.seconds(options.attemptTimeout)) (timeout), \(tried)"
                )
            case .dropped: return .fail(.cannotResume, "\(reason), and \(options.maxRetries) retries are used up")
            }
        }
        if let remaining, wait >= remaining {
            return .fail(
                .deadlineExceeded,
                "\(reason); the next retry would pass the deadline of \(Self.seconds(options.deadline ?? 0))"
            )
        }
        return .retry(wait: wait)
    }

    /// Where a redirect to `location` (relative to `current`) goes, after `redirects` redirects;
    /// an error when it must not be followed.
    func redirectTarget(_ location: String, from current: URL, redirects: Int) -> Result<URL, HTTPError.Failure> {
        guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
            return .failure(.init(kind: .redirect, reason: "the redirect to '\(location)' is not a URL"))
        }
        guard let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(
                .init(
                    kind: .redirect,
                    reason: "a redirect to \(next.absoluteString) (only http and https are followed)"
                )
            )
        }
        guard redirects < options.maxRedirects else {
            return .failure(
                .init(
                    kind: .redirect,
                    reason:
                        "more than \(options.maxRedirects) redirects (maxRedirects), the last to \(next.absoluteString)"
                )
            )
        }
        return .success(next)
    }

    /// A duration in messages: `30 s`, `0.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
