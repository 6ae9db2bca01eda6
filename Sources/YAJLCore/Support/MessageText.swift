/// Text for messages: the one place that shows arbitrary text safely in an error or an excerpt.
/// (JSON strings are escaped by `yajl_gen` alone, through ``JSONWriter`` and ``MinifiedText``.)
package enum MessageText {
    /// `text` with control characters shown as escapes (`\n`, `\u{1b}`), cut after `limit`
    /// scalars (marked `…`), for error messages and excerpts: a message never prints a raw
    /// control character.
    package static func printable(_ text: String, limit: Int = .max) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? result + "…" : result
    }
}
