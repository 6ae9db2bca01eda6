import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The end of a transfer attempt: complete, a redirect to follow, or a failure that is retried
/// (with backoff, within the retries and the deadline, resuming only when it is safe: see
/// ``ResumePolicy``) or thrown.
extension HTTPByteSource {
    /// Handles the end of an attempt: the state becomes ``State/finished`` at the complete end of
    /// the body, or ``State/betweenAttempts`` after setting up the next request; throws when the
    /// transfer cannot go on.
    func attemptEnded(_ completion: CurlTransfer.Completion) throws {
        if case .failed(let error) = state { throw error }
        if completion == .complete && head.status == 304 && conditional != nil && delivered == 0 {
            transfer.release()
            notModified = true  // the cached copy is current: no body
            state = .finished
            return
        }
        if completion == .complete && head.isRedirect {
            switch policy.redirectTarget(head.location!, from: currentURL, redirects: redirects) {
            case .success(let next):
                redirects += 1
                currentURL = next
                transfer.end()
                state = .betweenAttempts
                return
            case .failure(let failure): throw fail(failure.kind, failure.reason)
            }
        }
        let complete = expectedLength.map { delivered + pendingBytes >= $0 } ?? true
        if completion == .complete && (200..<300).contains(head.status) && complete {
            transfer.release()
            state = .finished
            return
        }
        try retry(after: try cause(of: completion))
    }

    /// Why the attempt ended early, when that may be retried; throws otherwise.
    private func cause(of completion: CurlTransfer.Completion) throws -> RetryCause {
        switch completion {
        case .complete where head.status >= 300:
            let status = head.status
            let text = HTTPError.statusText[status] ?? "status \(status)"
            guard head.isRetriableStatus else {
                throw fail(.status(status), status < 400 ? "\(text), not followed (no Location to follow)" : text)
            }
            return .status(status, text, retryAfter: head.retryAfter)
        case .complete: return .dropped("the connection closed before the end of the body")
        case .dropped(let message): return .dropped(message)
        case .refused(let message) where everConnected:
            return .dropped("the server refused the reconnection (\(message))")
        case .timedOut(let message):
            if remainingTime() == 0 { throw deadlineExceeded() }
            return .timedOut(message)
        case .outOfMemory where isReadingHeaders:
            throw fail(.headersTooLarge, "a response header is longer than libcurl's limit (100 KiB)")
        case .refused(let message), .outOfMemory(let message):
            throw fail(.transport(code: completion.code), message)
        case .failed(let code, let message, let isTLS):
            throw fail(
                .transport(code: code),
                isTLS
                    ? "TLS with \(currentURL.host ?? "the server") failed: \(message) (a private CA: caCertificates, --cacert)"
                    : message
            )
        }
    }

    /// Whether the current response's headers are still arriving (no body byte yet).
    private var isReadingHeaders: Bool {
        if case .transferring(.headers) = state { return true }
        return false
    }

    /// Sets up the next attempt after `cause`, or throws when it cannot be retried safely.
    private func retry(after cause: RetryCause) throws {
        switch policy.decision(
            after: cause,
            delivered: delivered,
            identity: identity,
            retries: retries,
            remaining: remainingTime()
        ) {
        case .fail(let kind, let reason): throw fail(kind, reason)
        case .retry(let wait):
            retries += 1
            if wait > 0 { sleep(wait) }
            transfer.end()  // bytes received but not handed out are fetched again
            state = .betweenAttempts
        }
    }

    /// The failure when the whole transfer has passed ``HTTPOptions/deadline``.
    func deadlineExceeded() -> HTTPError {
        fail(.deadlineExceeded, "the whole transfer took longer than \(ResumePolicy.seconds(options.deadline ?? 0))")
    }

    /// Waits `seconds`, waking for cancellation.
    private func sleep(_ seconds: TimeInterval) {
        var left = seconds
        while left > 0 && !isInterrupted {
            Syscalls.sleep(seconds: min(0.05, left))
            left -= 0.05
        }
    }
}
