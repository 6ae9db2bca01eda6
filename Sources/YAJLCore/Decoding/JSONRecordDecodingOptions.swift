#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How selected values are decoded into `Decodable` types: the strategies users know from
/// `JSONDecoder`, applied while streaming.
public struct JSONRecordDecodingOptions: Sendable {
    /// How JSON keys map to `CodingKey`s.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys as written.
        case useDefaultKeys
        /// `first_name` → `firstName` (as `JSONDecoder`: leading and trailing underscores are kept).
        case convertFromSnakeCase
        /// Your own mapping of a key's path (ending with the JSON key) to the key to use.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How `Date`s are read.
    public enum DateDecodingStrategy: Sendable {
        /// `Date`'s own `Decodable`: seconds since 2001-01-01.
        case deferredToDate
        /// A number of seconds since 1970-01-01.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// An ISO 8601 / RFC 3339 string, with or without fractional seconds.
        case iso8601
        /// Your own conversion.
        case custom(@Sendable (_ decoder: any Decoder) throws -> Date)
        /// A string read by a closure; see ``parseStrategy(_:)`` for a `ParseStrategy`.
        case parsed(@Sendable (String) throws -> Date)

        /// A string read by a `ParseStrategy` such as `Date.ISO8601FormatStyle()` or
        /// `Date.FormatStyle(...).parseStrategy`.
        public static func parseStrategy<Strategy: ParseStrategy & Sendable>(_ strategy: Strategy) -> Self
        where Strategy.ParseInput == String, Strategy.ParseOutput == Date {
            .parsed { try strategy.parse($0) }
        }
    }

    /// How `Data` is read.
    public enum DataDecodingStrategy: Sendable {
        /// A Base64 string (the default, as `JSONDecoder`).
        case base64
        /// `Data`'s own `Decodable` form: an array of bytes.
        case deferredToData
        /// A closure reads the value.
        case custom(@Sendable (_ decoder: any Decoder) throws -> Data)
    }

    /// Whether strings stand for the floating-point values JSON has no number for.
    public enum NonConformingFloatDecodingStrategy: Sendable {
        /// A string where a `Double` or `Float` is expected is a type mismatch (the default).
        case `throw`
        /// These strings decode as infinities and NaN (`JSONDecoder`'s `.convertFromString`).
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How JSON keys map to property names (default: as they are).
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How `Date` values are read (default: `Date`'s own `Decodable`, a number of seconds since 2001).
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// How `Data` is read. Default ``DataDecodingStrategy/base64``.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// Whether strings stand for infinities and NaN. Default ``NonConformingFloatDecodingStrategy/throw``.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
    /// Passed to your `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How many `Decodable` values deep a record may be decoded (each `init(from:)` of a nested
    /// value, a super-decoder's too, is one level). Past it decoding throws `dataCorrupted`
    /// naming this option, before a recursive type can overflow the stack. Default 512, the
    /// depth `JSONDecoder` allows. A level of a recursive `init(from:)` takes about 1 KiB of
    /// stack in a release build (3.5 KiB in a debug one): 512 levels fit the 8 MiB of a main
    /// thread, of Swift's task threads and of the package's parsing threads; raise it only where
    /// the decoding thread's stack holds that many levels. Values read whole as ``JSONValue`` or
    /// ``JSONFragment`` are built without recursion and limited only by
    /// ``JSONParser/Options/maxDepth``.
    public var maxDepth = 512

    /// Default strategies: keys as written, dates as `Date` decodes itself.
    public init(
        keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys,
        dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    ) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
    }
}

/// Thrown by a `.parsed` date strategy made from a `DateFormatter` (in the `YAJL` module) when the
/// text does not match its format; the decoder reports it as `JSONDecoder` does.
package struct DateFormatMismatch: Error {
    /// The formatter's `dateFormat`.
    package let format: String
    /// A mismatch with `format`.
    package init(format: String) { self.format = format }
}
