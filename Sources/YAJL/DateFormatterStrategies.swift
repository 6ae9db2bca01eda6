import Foundation
import YAJLCore

extension JSONRecordDecodingOptions.DateDecodingStrategy {
    /// A string read by a `DateFormatter` (as `JSONDecoder`'s `.formatted`). A formatter is not
    /// safe to share between threads that use it at once: give each reader its own.
    public static func formatted(_ formatter: DateFormatter) -> Self {
        .parsed { text in
            guard let date = formatter.date(from: text) else {
                throw DateFormatMismatch(format: formatter.dateFormat ?? "")
            }
            return date
        }
    }
}

extension JSONRecordEncodingOptions.DateEncodingStrategy {
    /// A string written by a `DateFormatter` (as `JSONEncoder`'s `.formatted`). A formatter is not
    /// safe to share between threads that use it at once: give each writer its own.
    public static func formatted(_ formatter: DateFormatter) -> Self {
        .formattedBy { formatter.string(from: $0) }
    }
}
