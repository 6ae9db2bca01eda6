import Foundation
import Testing

@testable import YAJLHTTP

/// The transfer's decisions without a server: which response bodies may be used, which requests
/// resume safely, when a broken transfer is retried, and where redirects go.
@Suite("Resume policy")
struct ResumePolicyTests {
    /// A response head from its lines, as curl hands them over.
    static func head(_ lines: String...) -> HTTPResponseHead {
        var head = HTTPResponseHead()
        for line in lines + [""] {
            var text = line + "\r\n"
            text.withUTF8 { head.take(UnsafeRawBufferPointer($0)) }
        }
        return head
    }

    static let first = head(
        "HTTP/1.1 200 OK",
        "Content-Length: 1000",
        "ETag: \"v1\"",
        "Accept-Ranges: bytes",
        "Last-Modified: Mon, 30 Nov 2026 10:00:00 GMT"
    )
    static let identity = ResourceIdentity(first)
    static let policy = ResumePolicy(options: HTTPOptions())

    @Test func theFirstResponseDefinesTheResource() {
        guard case .useBody(let defines?) = Self.policy.verdict(on: Self.first, delivered: 0, identity: nil) else {
            Issue.record("the first 200 is the document")
            return
        }
        #expect(defines.totalLength == 1000 && defines.acceptsRanges && !defines.compressed)
        #expect(defines.validator == .etag("\"v1\""), "the strong ETag is preferred to Last-Modified")
    }

    /// Every answer to a ranged request that is not the same resource from the same byte is
    /// refused before its first byte.
    @Test(arguments: [
        (["HTTP/1.1 200 OK", "ETag: \"v1\""], "200 instead of 206"),
        (["HTTP/1.1 206 Partial Content", "Content-Range: bytes 400-999/1000", "ETag: \"v1\""], "not at 500"),
        (
            ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 500-999/1000", "ETag: \"v2\""],
            "ETag \"v2\", was \"v1\""
        ),
        (["HTTP/1.1 206 Partial Content", "Content-Range: bytes 500-999/1000", "ETag: W/\"v1\""], "weak ETag"),
        (["HTTP/1.1 206 Partial Content", "Content-Range: bytes 500-999/1000"], "no ETag"),
        (
            [
                "HTTP/1.1 206 Partial Content", "Content-Range: bytes 500-999/1000", "ETag: \"v1\"",
                "Content-Encoding: gzip",
            ],
            "Accept-Encoding: identity"
        ),
    ])
    func aResumedResponseMustBeTheSameResource(lines: [String], reason: String) {
        var head = HTTPResponseHead()
        for line in lines + [""] {
            var text = line + "\r\n"
            text.withUTF8 { head.take(UnsafeRawBufferPointer($0)) }
        }
        let verdict = Self.policy.verdict(on: head, delivered: 500, identity: Self.identity)
        guard case .fail(let kind, let message) = verdict else {
            Issue.record("accepted: \(lines)")
            return
        }
        // A compressed body is refused before the resume is even considered.
        #expect(kind == (lines.contains("Content-Encoding: gzip") ? .contentEncoding("gzip") : .cannotResume))
        #expect(message.contains(reason), "\(message)")
    }

    @Test func theSameResourceFromTheRightByteIsUsed() {
        let head = Self.head("HTTP/1.1 206 Partial Content", "Content-Range: bytes 500-999/1000", "ETag: \"v1\"")
        #expect(Self.policy.verdict(on: head, delivered: 500, identity: Self.identity) == .useBody(defines: nil))
    }

    @Test func redirectsAndRetriedStatusesAreNotTheDocument() {
        let redirect = Self.head("HTTP/1.1 302 Found", "Location: /elsewhere")
        let busy = Self.head("HTTP/1.1 503 Service Unavailable", "Retry-After: 2")
        let missing = Self.head("HTTP/1.1 404 Not Found")
        #expect(Self.policy.verdict(on: redirect, delivered: 0, identity: nil) == .discardBody)
        #expect(Self.policy.verdict(on: busy, delivered: 0, identity: nil) == .discardBody)
        #expect(Self.policy.verdict(on: missing, delivered: 0, identity: nil) == .fail(.status(404), "Not Found"))
    }

    @Test func aCompressedBodyIsRefusedUnlessAskedFor() {
        let gzip = Self.head("HTTP/1.1 200 OK", "Content-Encoding: gzip")
        guard case .fail(.contentEncoding("gzip"), _) = Self.policy.verdict(on: gzip, delivered: 0, identity: nil)
        else {
            Issue.record("a gzip body was accepted without acceptsCompression")
            return
        }
        var options = HTTPOptions()
        options.acceptsCompression = true
        guard
            case .useBody(let defines?) = ResumePolicy(options: options).verdict(on: gzip, delivered: 0, identity: nil)
        else {
            Issue.record("acceptsCompression refused gzip")
            return
        }
        #expect(defines.compressed && defines.totalLength == nil)
    }

    @Test func requestsResumeFromTheBytesHandedOutWithTheValidator() {
        let url = URL(string: "http://a.example/doc.json")!
        var options = HTTPOptions(headers: ["X-Key": "secret"])
        options.acceptsCompression = false
        let policy = ResumePolicy(options: options)
        #expect(
            policy.requestHeaders(to: url, original: url, delivered: 0, identity: nil) == [
                "X-Key: secret", "Accept-Encoding: identity",
            ]
        )
        #expect(
            policy.requestHeaders(to: url, original: url, delivered: 500, identity: Self.identity) == [
                "X-Key: secret", "Accept-Encoding: identity", "Range: bytes=500-", "If-Range: \"v1\"",
            ]
        )
        let elsewhere = URL(string: "http://b.example/doc.json")!
        #expect(
            !policy.requestHeaders(to: elsewhere, original: url, delivered: 0, identity: nil).contains("X-Key: secret"),
            "custom headers stay with their origin"
        )
    }

    @Test func retriesBackOffWithinTheRetriesAndTheDeadline() {
        var options = HTTPOptions(maxRetries: 2, backoff: 0.5)
        options.maxBackoff = 1
        let policy = ResumePolicy(options: options)
        let dropped = RetryCause.dropped("connection reset")
        #expect(
            policy.decision(after: dropped, delivered: 0, identity: nil, retries: 0, remaining: nil)
                == .retry(wait: 0.5)
        )
        #expect(
            policy.decision(after: dropped, delivered: 0, identity: nil, retries: 1, remaining: nil) == .retry(wait: 1)
        )
        guard
            case .fail(.cannotResume, let used) = policy.decision(
                after: dropped,
                delivered: 0,
                identity: nil,
                retries: 2,
                remaining: nil
            )
        else {
            Issue.record("a third retry was allowed")
            return
        }
        #expect(used.contains("2 retries are used up"))
        guard
            case .fail(.deadlineExceeded, _) = policy.decision(
                after: dropped,
                delivered: 0,
                identity: nil,
                retries: 0,
                remaining: 0.2
            )
        else {
            Issue.record("a retry past the deadline was allowed")
            return
        }
        let busy = RetryCause.status(503, "Service Unavailable", retryAfter: 3)
        #expect(
            policy.decision(after: busy, delivered: 0, identity: nil, retries: 0, remaining: nil) == .retry(wait: 3)
        )
    }

    /// Bytes were handed out: a retry resumes, and only when it is safe.
    @Test func resumingNeedsRangesAValidatorAndAnUncompressedBody() {
        let dropped = RetryCause.dropped("connection reset")
        let noRanges = ResourceIdentity(Self.head("HTTP/1.1 200 OK", "ETag: \"v1\""))
        let noValidator = ResourceIdentity(Self.head("HTTP/1.1 200 OK", "Accept-Ranges: bytes"))
        #expect(
            Self.policy.decision(after: dropped, delivered: 10, identity: Self.identity, retries: 0, remaining: nil)
                == .retry(wait: 0.25)
        )
        for (identity, reason) in [(noRanges, "does not accept ranges"), (noValidator, "resumesWithoutValidator")] {
            guard
                case .fail(.cannotResume, let message) = Self.policy.decision(
                    after: dropped,
                    delivered: 10,
                    identity: identity,
                    retries: 0,
                    remaining: nil
                )
            else {
                Issue.record("resumed without \(reason)")
                continue
            }
            #expect(message.contains(reason), "\(message)")
        }
        var options = HTTPOptions()
        options.resumesWithoutValidator = true
        #expect(
            ResumePolicy(options: options).decision(
                after: dropped,
                delivered: 10,
                identity: noValidator,
                retries: 0,
                remaining: nil
            )
                == .retry(wait: 0.25)
        )
    }

    @Test func redirectsGoToHTTPOnlyAndNotForever() throws {
        let current = URL(string: "https://a.example/dir/doc.json")!
        #expect(
            try Self.policy.redirectTarget("next.json", from: current, redirects: 0).get().absoluteString
                == "https://a.example/dir/next.json"
        )
        guard case .failure(let scheme) = Self.policy.redirectTarget("file:///etc/passwd", from: current, redirects: 0)
        else {
            Issue.record("followed a file: redirect")
            return
        }
        #expect(scheme.kind == .redirect && scheme.reason.contains("only http and https"))
        guard case .failure(let tooMany) = Self.policy.redirectTarget("next.json", from: current, redirects: 10) else {
            Issue.record("followed an 11th redirect")
            return
        }
        #expect(tooMany.reason.contains("more than 10 redirects"))
    }
}
