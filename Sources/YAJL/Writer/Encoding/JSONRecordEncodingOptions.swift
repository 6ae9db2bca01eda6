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

    /// `JSONEncoder`'s snake_case rule: words split before capitals (an acronym is one word), lowercased,
    /// joined with `_`.
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upper = key.rangeOfCharacter(from: .uppercaseLetters, options: [], range: searchRange) {
            words.append(wordStart..<upper.lowerBound)
            searchRange = upper.lowerBound..<searchRange.upperBound
            guard let lower = key.rangeOfCharacter(from: .lowercaseLetters, options: [], range: searchRange) else {
                wordStart = searchRange.lowerBound
                break
            }
            if lower.lowerBound == key.index(after: upper.lowerBound) {
                wordStart = upper.lowerBound
            } else {
                let beforeLower = key.index(before: lower.lowerBound)
                words.append(upper.lowerBound..<beforeLower)
                wordStart = beforeLower
            }
            searchRange = lower.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.filter { !$0.isEmpty }.map { key[$0].lowercased() }.joined(separator: "_")
    }
}
