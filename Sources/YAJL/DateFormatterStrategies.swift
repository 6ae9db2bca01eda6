import Foundation
import YAJLCore

extension JSONRecordDecodingOptions.DateDecodingStrategy {
    /// A string read by a `DateFormatter` (as `JSONDecoder`'s `.formatted`). A formatter is not
    /// safe to share between threads that use it at once: give each reader its own. The reader
    /// itself uses it from one thread at a time (behind a lock of this strategy's own), as the
    /// parsing thread may decode `Sendable` records too.
    public static func formatted(_ formatter: DateFormatter) -> Self {
        let lock = NSLock()
        return .parsed { text in
            let (date, format) = lock.withLock { (formatter.date(from: text), formatter.dateFormat) }
            guard let date else { throw DateFormatMismatch(format: format ?? "") }
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
