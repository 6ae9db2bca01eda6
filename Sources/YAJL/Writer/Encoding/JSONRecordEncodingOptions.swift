import Foundation

/// How `Encodable` records are written: the strategies users know from `JSONEncoder`, matching
/// ``JSONRecordDecodingOptions``.
public struct JSONRecordEncodingOptions: Sendable {
    public enum KeyEncodingStrategy: Sendable {
        /// Keys as the type names them.
        case useDefaultKeys
        /// `firstName` → `first_name`, `myURLValue` → `my_url_value` (as `JSONEncoder`).
        case convertToSnakeCase
        /// Your own mapping of a key's path to the key to write.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    public enum DateEncodingStrategy: Sendable {
        /// `Date`'s own `Encodable`: seconds since 2001-01-01.
        case deferredToDate
        case secondsSince1970
        case millisecondsSince1970
        /// ISO 8601 / RFC 3339, e.g. `2026-11-29T10:00:00Z`.
        case iso8601
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init(keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys, dateEncodingStrategy: DateEncodingStrategy = .deferredToDate) {
        self.keyEncodingStrategy = keyEncodingStrategy
        self.dateEncodingStrategy = dateEncodingStrategy
    }
}
