#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The RFC 3339 profile of ISO 8601 that `.iso8601` dates use, read and written by hand over
/// UTF-8 bytes: `ISO8601DateFormatter` made date-heavy decoding 26× slower than `JSONDecoder`.
///
/// The fast path reads `yyyy-MM-ddTHH:mm:ss`, an optional fraction, and `Z` or `±hh:mm`; anything
/// else (a leap second, another ISO 8601 form) is left to Foundation's `Date.ISO8601FormatStyle`,
/// so no text that Foundation accepts is refused. So are years before 1583: Foundation's calendar
/// is Julian before the Gregorian reform of October 1582, the fast path's is not.
package enum RFC3339 {
    /// The date `text` denotes, or `nil` when neither the fast path nor Foundation accepts it.
    static func date(from text: UnsafeRawBufferPointer) -> Date? {
        if let date = fastDate(from: text) { return date }
        let string = String(decoding: text, as: UTF8.self)
        return (try? Date.ISO8601FormatStyle().parse(string))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string))
    }

    /// `yyyy-MM-ddTHH:mm:ss[.f…](Z|±hh:mm)`, with every field in range; `nil` otherwise.
    static func fastDate(from text: UnsafeRawBufferPointer) -> Date? {
        let n = text.count
        guard n >= 20 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for i in at..<(at + count) {
                let digit = text[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = digits(0, 4), text[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            text[7] == UInt8(ascii: "-"),
            let day = digits(8, 2), text[10] | 0x20 == UInt8(ascii: "t"), let hour = digits(11, 2),
            text[13] == UInt8(ascii: ":"), let minute = digits(14, 2), text[16] == UInt8(ascii: ":"),
            let second = digits(17, 2),
            year >= firstGregorianYear, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if text[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < n, text[i] &- UInt8(ascii: "0") < 10 {
                fraction += Double(text[i] &- UInt8(ascii: "0")) * scale
                scale /= 10
                i += 1
            }
            guard i > start, i - start <= 9 else { return nil }  // nanoseconds at most: longer goes to Foundation
        }
        guard i < n else { return nil }
        var offset = 0
        if text[i] | 0x20 == UInt8(ascii: "z") {
            i += 1
        } else if text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            guard i + 6 == n, let hours = digits(i + 1, 2), text[i + 3] == UInt8(ascii: ":"),
                let minutes = digits(i + 4, 2),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (text[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == n else { return nil }
        let seconds =
            daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        // Counted from 2001, as `Date` stores it (one rounding, as Foundation's parser does).
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + fraction)
    }

    /// The first whole year of the Gregorian calendar, as Foundation counts dates.
    static let firstGregorianYear = 1583

    /// `date` as `yyyy-MM-ddTHH:mm:ssZ` (whole seconds, rounded down, as `ISO8601DateFormatter`
    /// writes it); years outside 1583…9999 go through Foundation's `Date.ISO8601FormatStyle`.
    package static func string(from date: Date) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, abs(interval) < 300_000_000_000 else {
            return Date.ISO8601FormatStyle().format(date)
        }
        let seconds = Int(interval)
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let rest = seconds - days * 86_400
        let (year, month, day) = civil(fromDaysSince1970: days)
        guard (firstGregorianYear...9999).contains(year) else { return Date.ISO8601FormatStyle().format(date) }
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int, _ at: Int, _ width: Int) {
            var value = value
            for i in stride(from: at + width - 1, through: at, by: -1) {
                bytes[i] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, 0, 4)
        bytes[4] = UInt8(ascii: "-")
        put(month, 5, 2)
        bytes[7] = UInt8(ascii: "-")
        put(day, 8, 2)
        bytes[10] = UInt8(ascii: "T")
        put(rest / 3600, 11, 2)
        bytes[13] = UInt8(ascii: ":")
        put(rest / 60 % 60, 14, 2)
        bytes[16] = UInt8(ascii: ":")
        put(rest % 60, 17, 2)
        bytes[19] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
    private static func civil(fromDaysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
