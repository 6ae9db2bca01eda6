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

    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// Passed to your `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Default strategies: keys as written, dates as `Date` decodes itself.
    public init(
        keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys, dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    ) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
    }
}

/// A record that could not be decoded: the record's JSON path, the coding path inside it, why,
/// and where the failing value is in the input.
///
/// `$.results[41].address.zip: expected String, found number at line 44, column 17 (byte 2301)`
public struct JSONRecordDecodingError: Error, Sendable, CustomStringConvertible {
    /// The selected value's path in the document.
    public let recordPath: JSONPath
    /// The full path of the failing value: the record's path followed by the coding path.
    public let path: JSONPath
    /// What was wrong, e.g. `expected String, found number` or `missing key 'zip'`.
    public let message: String
    /// The 1-based line where the failing value starts (for a missing key, its object).
    public let line: Int
    /// The 1-based column, in bytes, where the failing value starts.
    public let column: Int
    /// The absolute byte offset where the failing value starts (its first byte: a quote, a digit
    /// or `-`, a bracket, or a literal's first letter).
    public let byteOffset: Int
    /// The 1-based line where the record starts.
    public let recordLine: Int
    /// The `DecodingError` your type or the decoder raised, when there was one.
    public let underlying: DecodingError?

    /// `$.results[41].address.zip: expected String, found number at line 44, column 17 (byte 2301)`
    public var description: String { "\(path): \(message) at line \(line), column \(column) (byte \(byteOffset))" }
}
