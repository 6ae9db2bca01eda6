#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two key conversions of `JSONDecoder` and `JSONEncoder`, in one place: snake_case JSON keys
/// to camelCase property names (``JSONRecordDecodingOptions/KeyDecodingStrategy/convertFromSnakeCase``)
/// and back (``JSONRecordEncodingOptions/KeyEncodingStrategy/convertToSnakeCase``), with exactly
/// their rules, so that a record decodes and encodes as it would with Foundation.
enum KeyCaseConversion {
    /// `JSONDecoder`'s rule, exactly: between the leading and trailing underscores (kept), split
    /// on `_`; with more than one word, the first is lowercased and the others `capitalized`.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first && key[last] == "_" { key.formIndex(before: &last) }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let body = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + body + String(key[key.index(after: last)...])
    }

    /// `JSONEncoder`'s snake_case rule: words split before capitals (an acronym is one word), lowercased,
    /// joined with `_`.
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upper = firstScalar(of: key, in: searchRange, where: isUppercase) {
            words.append(wordStart..<upper.lowerBound)
            searchRange = upper.lowerBound..<searchRange.upperBound
            guard let lower = firstScalar(of: key, in: searchRange, where: isLowercase) else {
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

    /// `CharacterSet.uppercaseLetters`: general categories Lu and Lt.
    private static func isUppercase(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x41...0x5A).contains(scalar.value) }
        let category = scalar.properties.generalCategory
        return category == .uppercaseLetter || category == .titlecaseLetter
    }

    /// `CharacterSet.lowercaseLetters`: general category Ll.
    private static func isLowercase(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x61...0x7A).contains(scalar.value) }
        return scalar.properties.generalCategory == .lowercaseLetter
    }

    /// The first scalar of `key` in `range` that `matches`, as a range of one scalar (what
    /// `rangeOfCharacter(from:range:)` gives, without Foundation).
    private static func firstScalar(
        of key: String,
        in range: Range<String.Index>,
        where matches: (Unicode.Scalar) -> Bool
    ) -> Range<String.Index>? {
        let scalars = key.unicodeScalars
        var index = range.lowerBound
        while index < range.upperBound {
            let next = scalars.index(after: index)
            if matches(scalars[index]) { return index..<next }
            index = next
        }
        return nil
    }
}
