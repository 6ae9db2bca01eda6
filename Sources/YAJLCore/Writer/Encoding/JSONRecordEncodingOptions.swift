#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `Encodable` records are written: the strategies users know from `JSONEncoder`, matching
/// ``JSONRecordDecodingOptions``.
public struct JSONRecordEncodingOptions: Sendable {
    /// How property names become JSON keys (as `JSONEncoder.KeyEncodingStrategy`).
    public enum KeyEncodingStrategy: Sendable {
        /// Keys as the type names them.
        case useDefaultKeys
        /// `firstName` → `first_name`, `myURLValue` → `my_url_value` (as `JSONEncoder`).
        case convertToSnakeCase
        /// Your own mapping of a key's path to the key to write.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How `Date` values are written (as `JSONEncoder.DateEncodingStrategy`).
    public enum DateEncodingStrategy: Sendable {
        /// `Date`'s own `Encodable`: seconds since 2001-01-01.
        case deferredToDate
        /// A number of seconds since 1970-01-01 (UNIX time).
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// ISO 8601 / RFC 3339, e.g. `2026-11-29T10:00:00Z`.
        case iso8601
        /// Your own encoding of the date, through the encoder given (one value).
        case custom(@Sendable (Date, any Encoder) throws -> Void)
        /// A string written by a closure; see ``formatStyle(_:)`` for a `FormatStyle`.
        case formattedBy(@Sendable (Date) -> String)

        /// A string written by a `FormatStyle` such as `Date.ISO8601FormatStyle()`.
        public static func formatStyle<Style: FormatStyle & Sendable>(_ style: Style) -> Self
        where Style.FormatInput == Date, Style.FormatOutput == String {
            .formattedBy { style.format($0) }
        }
    }

    /// How `Data` is written.
    public enum DataEncodingStrategy: Sendable {
        /// A Base64 string (the default, as `JSONEncoder`).
        case base64
        /// `Data`'s own `Encodable` form: an array of bytes.
        case deferredToData
        /// A closure writes the value.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// What infinities and NaN, which JSON has no number for, become.
    public enum NonConformingFloatEncodingStrategy: Sendable {
        /// Writing one throws (the default, as `JSONEncoder`).
        case `throw`
        /// These strings are written instead (`JSONEncoder`'s `.convertToString`).
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How property names become keys (default: as they are).
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How dates are written (default: `Date`'s own `Encodable`).
    public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    /// How `Data` is written. Default ``DataEncodingStrategy/base64``.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64
    /// What infinities and NaN become. Default ``NonConformingFloatEncodingStrategy/throw``.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
    /// Values your `encode(to:)` implementations read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Write each object's members in the byte order of their keys' UTF-8, as `JSONEncoder`'s
    /// `.sortedKeys` does. Default `false`: in the order `encode(to:)` wrote them.
    public var sortsKeys = false

    /// Options with the given strategies.
    public init(
        keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys,
        dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    ) {
        self.keyEncodingStrategy = keyEncodingStrategy
        self.dateEncodingStrategy = dateEncodingStrategy
    }
}
