import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one response's status line and headers said (a new status line starts over: a redirect or
/// a `100 Continue` comes before the response that counts).
struct HTTPResponseHead {
    var status = 0
    var contentLength: Int?
    var etag: String?
    var lastModified: String?
    var acceptsRanges = false
    var contentRangeStart: Int?
    var contentRangeTotal: Int?
    var location: String?
    var retryAfter: TimeInterval?
    var contentEncoding: String?
    /// Header bytes of this response so far.
    var headerBytes = 0

    /// The most header bytes one response may have.
    static let maxHeaderBytes = 256 << 10

    /// Takes one header line (or the status line, or the blank line ending the headers).
    mutating func take(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).trimmingASCIIWhitespace()
        if text.hasPrefix("HTTP/") {
            self = HTTPResponseHead()
            status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
            headerBytes = line.count
            return
        }
        headerBytes += line.count
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingASCIIWhitespace()
        switch name {
        case "content-length": contentLength = Int(value)
        case "etag": etag = value
        case "last-modified": lastModified = value
        case "accept-ranges": acceptsRanges = value.lowercased().contains("bytes")
        case "location": location = value
        case "retry-after": retryAfter = Self.retryAfter(value)
        case "content-encoding":
            let encoding = value.lowercased()
            contentEncoding = encoding == "identity" || encoding.isEmpty ? nil : encoding
        case "content-range":
            // bytes START-END/TOTAL
            let spec = value.split(separator: " ").last ?? ""
            contentRangeStart = spec.split(separator: "-").first.flatMap { Int($0) }
            contentRangeTotal = spec.split(separator: "/").last.flatMap { Int($0) }
            acceptsRanges = true
        default: break
        }
    }

    /// Whether this is a redirect the source follows itself.
    var isRedirect: Bool { (300..<400).contains(status) && status != 304 && location != nil }

    /// A status worth retrying: 503 and 429 (with their `Retry-After`), 502 and 504.
    var isRetriableStatus: Bool { [429, 502, 503, 504].contains(status) }

    /// `Retry-After`: seconds, or an HTTP date.
    static func retryAfter(_ value: String) -> TimeInterval? {
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        return httpDate(value).map { max(0, $0.timeIntervalSinceNow) }
    }
}

/// What a resumed request sends in `If-Range`, and what its `206` must carry again: the strong
/// ETag, else `Last-Modified` (a weak ETag cannot validate a range).
enum ResumeValidator: Equatable {
    case etag(String)
    case lastModified(String)

    init?(_ head: HTTPResponseHead) {
        if let etag = head.etag, !etag.hasPrefix("W/") {
            self = .etag(etag)
        } else if let lastModified = head.lastModified {
            self = .lastModified(lastModified)
        } else {
            return nil
        }
    }

    /// The `If-Range` header value.
    var ifRange: String {
        switch self {
        case .etag(let etag): return etag
        case .lastModified(let date): return date
        }
    }

    /// Why the `206` of a resumed request is not the same resource, or `nil` when it is.
    func mismatch(in head: HTTPResponseHead) -> String? {
        switch self {
        case .etag(let etag):
            guard let now = head.etag else { return "the resumed response has no ETag (was \(etag))" }
            if now.hasPrefix("W/") { return "the resumed response has a weak ETag \(now) (was \(etag))" }
            return now == etag ? nil : "the resource changed (ETag \(now), was \(etag))"
        case .lastModified(let date):
            guard let now = head.lastModified else { return "the resumed response has no Last-Modified (was \(date))" }
            return now == date ? nil : "the resource changed (Last-Modified \(now), was \(date))"
        }
    }
}

/// The origin (scheme, host, port) of a URL, to keep custom headers with the host they were given for.
struct HTTPOrigin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}

extension HTTPResponseHead {
    /// An HTTP date in its preferred form (RFC 9110 §5.6.7, IMF-fixdate):
    /// `Sun, 06 Nov 1994 08:49:37 GMT`. `nil` for any other text.
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].count == 4, fields[0].last == ",", fields[5] == "GMT",
            let day = number(fields[1], digits: 2), let year = number(fields[3], digits: 4),
            let month = months.firstIndex(of: String(fields[2])).map({ $0 + 1 })
        else { return nil }
        let time = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, let hour = number(time[0], digits: 2), let minute = number(time[1], digits: 2),
            let second = number(time[2], digits: 2), hour < 24, minute < 60, second <= 60,
            (1...RFC3339.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = RFC3339.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `text` as a decimal number of exactly `digits` ASCII digits, else `nil`.
    private static func number(_ text: Substring, digits: Int) -> Int? {
        guard text.utf8.count == digits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
