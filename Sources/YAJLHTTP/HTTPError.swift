#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A failed download. Always names the URL, the body byte offset reached (the bytes handed to the
/// parser) and the reason in words.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The server answered with a 4xx or 5xx status, or a 3xx that was not followed (its body
        /// is never parsed). A 503 or 429 is retried first, honouring `Retry-After`.
        case status(Int)
        /// The connection failed: refused, reset, DNS, TLS (curl's message and code).
        case transport(code: Int)
        /// The transfer broke and could not be resumed safely (no ranges, no or a changed
        /// validator, a compressed transfer, retries used up).
        case cannotResume
        /// An attempt stalled: no connection, or less than ``HTTPOptions/lowSpeedLimit`` bytes
        /// per second, for ``HTTPOptions/timeout`` seconds (after the retries).
        case timedOut
        /// The whole transfer took longer than ``HTTPOptions/deadline``.
        case deadlineExceeded
        /// More than ``HTTPOptions/maxRedirects`` redirects, or a redirect to a scheme other than
        /// http and https.
        case redirect
        /// The server compressed the body although it was asked not to (the encoding is named).
        case contentEncoding(String)
        /// The response headers were larger than the limit.
        case headersTooLarge
        /// An option that could not be used (a header with CR or LF, a count out of range).
        case invalidOptions
    }

    /// What went wrong.
    public let kind: Kind
    /// The URL requested (the original one; a redirect's target is named in ``reason``).
    public let url: String
    /// Body bytes received and handed to the parser before the failure.
    public let byteOffset: Int
    /// Why, in words.
    public let reason: String

    /// The error as one line: what, which URL, at which byte, why.
    public var description: String {
        switch kind {
        case .status(let status): return "HTTP \(status) from \(url) at byte \(byteOffset): \(reason)"
        case .transport(let code): return "cannot download \(url) at byte \(byteOffset): \(reason) (curl error \(code))"
        case .cannotResume: return "cannot resume \(url) at byte \(byteOffset): \(reason)"
        case .timedOut: return "timed out reading \(url) at byte \(byteOffset): \(reason)"
        case .deadlineExceeded: return "deadline exceeded reading \(url) at byte \(byteOffset): \(reason)"
        case .redirect: return "redirect refused for \(url) at byte \(byteOffset): \(reason)"
        case .contentEncoding(let encoding):
            return "cannot read \(url) at byte \(byteOffset): the body is \(encoding)-compressed: \(reason)"
        case .headersTooLarge: return "cannot read \(url) at byte \(byteOffset): \(reason)"
        case .invalidOptions: return "invalid HTTP options for \(url) at byte \(byteOffset): \(reason)"
        }
    }
}

extension HTTPError {
    /// Reason phrases of the statuses a JSON API commonly answers with.
    static let statusText: [Int: String] = [
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 413: "Content Too Large",
        414: "URI Too Long", 416: "Range Not Satisfiable", 429: "Too Many Requests",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout",
    ]
}

extension HTTPError {
    /// A failure decided before it is placed: the source adds its URL and byte offset.
    struct Failure: Error, Equatable {
        let kind: Kind
        let reason: String
    }
}

extension HTTPError: LocalizedError {
    /// The same as ``description``: the URL, the offset reached and the reason, so that
    /// `error.localizedDescription` says what went wrong.
    public var errorDescription: String? { description }
}
