// Path/: the path of every event (PathStack) and RFC 9535 queries (parser, filters, I-Regexp);
// calls Support/.

/// A location in a JSON document: the object keys and array indices from the root to a value.
///
/// Rendered as a normalized JSONPath (RFC 9535 style): `$.results[3].address.geo[0]`, with bracket
/// notation for keys that are not plain identifiers: `$['first name']['a.b']`.
///
/// The parser never builds one of these per event: it keeps a cheap stack and materializes a
/// `JSONPath` only when you ask (``JSONEventContext/path``) or when an error is reported.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step of a path.
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// An object member, by key.
        case key(String)
        /// An array element, by zero-based index.
        case index(Int)

        /// The step as it appears in a normalized JSONPath: `.name`, `['odd key']` or `[3]`.
        public var description: String {
            switch self {
            case .index(let index): return "[\(index)]"
            case .key(let key):
                return JSONPath.isShorthandName(key) ? ".\(key)" : "[\(JSONPath.quoted(key))]"
            }
        }
    }

    /// The steps from the root, outermost first.
    public var components: [Component]

    /// The root, `$`.
    public static let root = JSONPath([])

    /// Creates a path from its steps, outermost first.
    public init(_ components: [Component]) { self.components = components }

    /// Creates a path from a literal list of steps.
    public init(arrayLiteral elements: Component...) { self.components = elements }

    /// The number of steps; equals the number of containers enclosing the value.
    public var count: Int { components.count }

    /// The normalized JSONPath, e.g. `$.results[3].name`.
    public var description: String {
        var text = "$"
        for component in components { text += component.description }
        return text
    }

    /// The RFC 9535 normalized path (§2.7): every step in brackets, names in single quotes,
    /// e.g. `$['results'][3]['name']`. Two equal locations always give the same text.
    public var normalized: String {
        // Built as UTF-8 bytes and made a String once: `yajl extract --paths` asks for one per
        // record, and appending piece by piece to a String cost more than the rest of the line.
        var utf8: [UInt8] = [UInt8(ascii: "$")]
        utf8.reserveCapacity(1 + 12 * components.count)
        for component in components {
            utf8.append(UInt8(ascii: "["))
            switch component {
            case .index(let index): utf8.append(contentsOf: String(index).utf8)
            case .key(let key): JSONPath.appendQuoted(key, to: &utf8)
            }
            utf8.append(UInt8(ascii: "]"))
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The normalized JSONPath, shortened for messages when it has more than `maxComponents`
    /// steps: the first and last steps are kept around `…(N more)…`.
    public func abbreviated(maxComponents: Int = 24) -> String {
        guard components.count > maxComponents, maxComponents >= 2 else { return description }
        let head = maxComponents * 2 / 3
        let tail = maxComponents - head
        let omitted = components.count - head - tail
        var text = "$"
        for component in components[..<head] { text += component.description }
        text += "…(\(omitted) more)…"
        for component in components[(components.count - tail)...] { text += component.description }
        return text
    }

    /// Whether `key` can be written as `.key`: an ASCII letter or `_`, then letters, digits or `_`.
    static func isShorthandName(_ key: String) -> Bool {
        var utf8 = key.utf8.makeIterator()
        guard let first = utf8.next(), first.isASCIILetter || first == UInt8(ascii: "_") else { return false }
        while let byte = utf8.next() {
            guard byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "_") else { return false }
        }
        return true
    }

    /// `key` in single quotes with RFC 9535 normalized-path escapes.
    static func quoted(_ key: String) -> String {
        var utf8: [UInt8] = []
        appendQuoted(key, to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Appends `key` in single quotes with RFC 9535 normalized-path escapes (§2.7) to `utf8`.
    /// Every escaped character is ASCII, and no byte of a multi-byte UTF-8 sequence is, so the
    /// key is escaped byte by byte and every other byte is copied as it is.
    static func appendQuoted(_ key: String, to utf8: inout [UInt8]) {
        utf8.append(UInt8(ascii: "'"))
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\\"): utf8 += [UInt8(ascii: "\\"), byte]
            case 0x08: utf8 += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: utf8 += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: utf8 += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: utf8 += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: utf8 += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20: utf8 += ("\\u00" + String(byte, radix: 16).leftPadded(to: 2)).utf8
            default: utf8.append(byte)
            }
        }
        utf8.append(UInt8(ascii: "'"))
    }
}
