import Foundation
import YAJL

/// RFC 9535's normalized paths written out independently of `JSONPath.normalized`, for the
/// tests of the library and of `yajl extract --paths`.
package enum NormalizedPath {
    /// RFC 9535 §2.7: names in single quotes, `'` and `\` escaped, the controls with a letter of
    /// their own by it, every other control as `\u00xx` in lowercase hex, the rest as is.
    package static func reference(_ components: [JSONPath.Component]) -> String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index): text += "[" + String(index) + "]"
            case .key(let key):
                text += "['"
                for scalar in key.unicodeScalars {
                    switch scalar.value {
                    case 0x27: text += "\\'"
                    case 0x5C: text += "\\\\"
                    case 0x08: text += "\\b"
                    case 0x0C: text += "\\f"
                    case 0x0A: text += "\\n"
                    case 0x0D: text += "\\r"
                    case 0x09: text += "\\t"
                    case 0..<0x20: text += String(format: "\\u%04x", scalar.value)
                    default: text.unicodeScalars.append(scalar)
                    }
                }
                text += "']"
            }
        }
        return text
    }
}
