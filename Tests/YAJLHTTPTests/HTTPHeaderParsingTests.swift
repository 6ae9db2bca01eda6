import Foundation
import Testing

@testable import YAJLHTTP

/// What the HTTP source reads from headers without Foundation's formatters: `Retry-After` dates
/// (RFC 9110's IMF-fixdate, compared with the `DateFormatter` it replaced) and trimmed values.
@Suite("HTTP header parsing")
struct HTTPHeaderParsingTests {
    /// The formatter `HTTPResponseHead.retryAfter` used before it parsed dates itself.
    static func foundationFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }

    @Test func imfFixdatesAreReadAsFoundationReadsThem() throws {
        let formatter = Self.foundationFormatter()
        var generator = SystemRandomNumberGenerator()
        // From 1970 to 9999, whole seconds: Foundation's text, read back by ours.
        for _ in 0..<2000 {
            let seconds = Int.random(in: 0...253_402_300_799, using: &generator)
            let date = Date(timeIntervalSince1970: Double(seconds))
            let text = formatter.string(from: date)
            #expect(HTTPResponseHead.httpDate(text) == date, "\(text)")
            #expect(formatter.date(from: text) == date, "\(text)")
        }
        #expect(HTTPResponseHead.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(
            HTTPResponseHead.httpDate("Thu, 29 Feb 2024 23:59:59 GMT") == Date(timeIntervalSince1970: 1_709_251_199)
        )
    }

    @Test(arguments: [
        "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT", "Fri, 29 Feb 2023 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT junk", "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:+9:37 GMT",
    ])
    func otherTextIsNoDate(text: String) {
        #expect(HTTPResponseHead.httpDate(text) == nil, "\(text)")
    }

    @Test func retryAfterTakesSecondsOrADate() throws {
        #expect(HTTPResponseHead.retryAfter("7") == 7)
        #expect(HTTPResponseHead.retryAfter("-3") == 0)
        #expect(HTTPResponseHead.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT") == 0)  // in the past
        let soon = Self.foundationFormatter().string(from: Date(timeIntervalSinceNow: 120))
        let wait = try #require(HTTPResponseHead.retryAfter(soon))
        #expect(wait > 100 && wait <= 120, "\(wait)")
        #expect(HTTPResponseHead.retryAfter("soon") == nil)
    }

    @Test func headerValuesAreTrimmed() {
        let head = ResumePolicyTests.head(
            "HTTP/1.1 200 OK",
            "Content-Length: \t 42 ",
            "ETag:\t\"v1\"\t",
            "Retry-After:  3\r",
            "Location:   /x  "
        )
        #expect(head.status == 200)
        #expect(head.contentLength == 42)
        #expect(head.etag == "\"v1\"")
        #expect(head.retryAfter == 3)
        #expect(head.location == "/x")
    }
}
