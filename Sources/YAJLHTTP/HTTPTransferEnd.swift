import Foundation
import YAJL
internal import CCurl

/// The end of a transfer attempt: complete, a redirect to follow, or a failure that is retried
/// (with backoff, within the retries and the deadline, resuming only when it is safe) or thrown.
extension HTTPByteSource {
    /// Handles the end of a transfer: `true` at the complete end of the body; `false` after
    /// setting up the next request (a redirect, a retry, a resume); throws when it cannot go on.
    func transferEnded(_ result: CURLcode) throws -> Bool {
        if let failure { throw failure }
        if result == CURLE_OK && head.isRedirect {
            try follow(head.location!)
            return false
        }
        let complete = totalLength.map { delivered + pendingBytes >= $0 } ?? true
        if result == CURLE_OK && (200..<300).contains(head.status) && complete {
            closeTransfer()
            finished = true
            return true
        }
        let cause: Cause
        if result == CURLE_OK && head.status >= 300 {
            let status = head.status
            let text = HTTPError.statusText[status] ?? "status \(status)"
            guard head.isRetriableStatus else {
                throw fail(.status(status), status < 400 ? "\(text), not followed (no Location to follow)" : text)
            }
            cause = .status(status, text, head.retryAfter)
        } else if result == CURLE_OK || Self.droppedCodes.contains(result) {
            cause = .dropped(result == CURLE_OK ? "the connection closed before the end of the body" : curlMessage(result))
        } else if result == CURLE_COULDNT_CONNECT && everConnected {
            cause = .dropped("the server refused the reconnection (\(curlMessage(result)))")
        } else if result == CURLE_OPERATION_TIMEDOUT {
            if remainingTime() == 0 {
                throw deadlineExceeded()
            }
            cause = .timedOut(curlMessage(result))
        } else if result == CURLE_OUT_OF_MEMORY && !headersChecked {
            throw fail(.headersTooLarge, "a response header is longer than libcurl's limit (100 KiB)")
        } else {
            throw fail(.transport(code: Int(result.rawValue)), transportReason(result))
        }
        try retry(after: cause)
        return false
    }

    /// The failure when the whole transfer has passed ``HTTPOptions/deadline``.
    func deadlineExceeded() -> HTTPError {
        fail(.deadlineExceeded, "the whole transfer took longer than \(Self.seconds(options.deadline ?? 0))")
    }

    /// Why a transfer attempt ended early, when it may be retried.
    enum Cause {
        case dropped(String)
        case timedOut(String)
        case status(Int, String, TimeInterval?)
    }

    /// curl results that mean the connection broke.
    static let droppedCodes: Set<CURLcode> = [
        CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
    ]

    /// Sets up the next attempt after `cause`, or throws when it cannot be retried safely.
    func retry(after cause: Cause) throws {
        let reason: String
        var wait = HTTPOptions.clamped(min(options.maxBackoff, options.backoff * pow(2, Double(resumes))))
        switch cause {
        case .dropped(let text), .timedOut(let text): reason = text
        case .status(_, let text, let retryAfter):
            reason = text
            // Retry-After is honoured up to a minute (or maxBackoff if longer), within the deadline.
            if let retryAfter { wait = min(max(60, HTTPOptions.clamped(options.maxBackoff)), retryAfter) }
        }
        if delivered > 0 {
            // Resuming: only with ranges, and a validator that keeps a changed resource out.
            guard acceptsRanges else { throw fail(.cannotResume, "\(reason), and the server does not accept ranges") }
            guard !compressed else { throw fail(.cannotResume, "\(reason), and a compressed transfer cannot resume") }
            guard validator != nil || options.resumesWithoutValidator else {
                throw fail(.cannotResume, "\(reason), and the server gave no ETag or Last-Modified to resume safely (resumesWithoutValidator, --resume-unvalidated, to resume anyway)")
            }
        }
        guard resumes < options.maxRetries else {
            let tried = "after \(options.maxRetries) \(options.maxRetries == 1 ? "retry" : "retries")"
            switch cause {
            case .status(let status, let text, _): throw fail(.status(status), "\(text) \(tried)")
            case .timedOut(let text):
                throw fail(.timedOut, "\(text): no connection, or less than \(options.lowSpeedLimit) bytes/s for \(Self.seconds(options.attemptTimeout)) (timeout), \(tried)")
            case .dropped: throw fail(.cannotResume, "\(reason), and \(options.maxRetries) retries are used up")
            }
        }
        if let remaining = remainingTime(), wait >= remaining {
            throw fail(.deadlineExceeded, "\(reason); the next retry would pass the deadline of \(Self.seconds(options.deadline ?? 0))")
        }
        resumes += 1
        if wait > 0 { sleep(wait) }
        closeTransfer()  // bytes received but not handed out are fetched again
    }

    /// Waits `seconds`, waking for cancellation.
    func sleep(_ seconds: TimeInterval) {
        var left = seconds
        while left > 0 && !isInterrupted {
            Thread.sleep(forTimeInterval: min(0.05, left))
            left -= 0.05
        }
    }

    /// Follows a redirect to `location` (relative to the current URL).
    func follow(_ location: String) throws {
        guard let next = URL(string: location, relativeTo: currentURL)?.absoluteURL else {
            throw fail(.redirect, "the redirect to '\(location)' is not a URL")
        }
        guard let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw fail(.redirect, "a redirect to \(next.absoluteString) (only http and https are followed)")
        }
        redirects += 1
        guard redirects <= options.maxRedirects else {
            throw fail(.redirect, "more than \(options.maxRedirects) redirects (maxRedirects), the last to \(next.absoluteString)")
        }
        currentURL = next
        closeTransfer()
    }

    func curlMessage(_ result: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
    }

    /// A transport failure in words; TLS failures name the host.
    func transportReason(_ result: CURLcode) -> String {
        let tls: Set<CURLcode> = [
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
        ]
        let message = curlMessage(result)
        guard tls.contains(result) else { return message }
        return "TLS with \(currentURL.host ?? "the server") failed: \(message) (a private CA: caCertificates, --cacert)"
    }
}
