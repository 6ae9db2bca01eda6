import Foundation

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
    }

    /// How JSON keys map to property names (default: as they are).
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How `Date` values are read (default: `Date`'s own `Decodable`, a number of seconds since 2001).
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// Passed to your `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Default strategies: keys as written, dates as `Date` decodes itself.
    public init(
        keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys,
        dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    ) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
    }
}
