/// A YAJL error made typed: its kind, its text, and where it is, with YAJL's quirks corrected.
///
/// YAJL exposes no error codes for lexical errors, only English messages; this is the only place
/// that reads them. It also corrects where YAJL stops: past the offending byte for an invalid
/// character, after a key or value split across chunks, and on a lexical error at the end of the
/// input (YAJL ends the input with a space, so a token cut short reads as an invalid one).
struct YAJLError {
    let kind: JSONParseError.Kind
    let message: String
    /// The absolute offset of the offending byte.
    let offset: Int
    /// Whether the error is about a token where a value or key was expected, so that it may start
    /// the next element (its path is then that element's when it follows `[`, `{` or `,`).
    let mayStartNextValue: Bool
    /// Whether the error is inside a string (whose event has not come yet).
    let isInsideString: Bool

    /// YAJL's `message` for an error at `consumed` bytes into `chunk` (at absolute offset `base`);
    /// `atEndOfInput` for `yajl_complete_parse`, where `end` is the input's length.
    init(
        message: String,
        consumed: Int,
        chunk: UnsafeRawBufferPointer,
        base: Int,
        atEndOfInput: Bool,
        end: Int,
        position: TextPosition
    ) {
        let kind = Self.kind(of: message)
        let lexical: Set<JSONParseError.Kind> = [.invalidCharacter, .invalidNumber, .invalidUTF8, .invalidEscape]
        if atEndOfInput && (kind == .prematureEndOfInput || lexical.contains(kind)) {
            self.kind = .prematureEndOfInput
            self.message = message == "premature EOF" ? message : "premature EOF (yajl: \(message))"
            offset = end
            mayStartNextValue = false
            isInsideString = false
            return
        }
        var offset = base + min(consumed, chunk.count)
        if consumed > 0 && consumed <= chunk.count {
            // YAJL has consumed the offending byte: point at it, not after it.
            let last = chunk[consumed - 1]
            if message == "invalid char in json text"
                || (message == "unallowed token at this point in JSON text" && Self.isStructural(last))
            {
                offset -= 1
            }
        }
        if consumed == 0 && message.hasPrefix("after key and value") {
            offset -= position.lengthOfSplitToken(continuingInto: chunk)
        }
        self.kind = kind
        self.message = message
        self.offset = offset
        mayStartNextValue = Self.mayStartNextValue(kind, message)
        isInsideString = kind == .invalidUTF8 || kind == .invalidEscape || message == "invalid character inside string"
    }

    /// `]`, `}`, `,` and `:`: one-byte tokens.
    private static func isStructural(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":")
    }

    /// Not YAJL's `after …` and `object key and value …` errors: they come where a separator was
    /// expected, after a complete value, and stay located at that value (their offset may move
    /// within a string token with the chunking; their path must not).
    private static func mayStartNextValue(_ kind: JSONParseError.Kind, _ message: String) -> Bool {
        switch kind {
        case .invalidCharacter, .invalidNumber: return true
        case .unexpectedToken: return !message.hasPrefix("after ") && !message.hasPrefix("object key and value")
        default: return false
        }
    }

    /// Classifies YAJL's message.
    static func kind(of message: String) -> JSONParseError.Kind {
        switch message {
        case "premature EOF": return .prematureEndOfInput
        case "trailing garbage": return .trailingGarbage
        case "invalid bytes in UTF8 string": return .invalidUTF8
        case "probable comment found in input text, comments are not enabled": return .commentNotAllowed
        case "invalid char in json text", "invalid character inside string", "invalid string in json text":
            return .invalidCharacter
        case _ where message.hasPrefix("malformed number"): return .invalidNumber
        case _ where message.hasPrefix("inside a string, '\\'") || message.hasPrefix("invalid (non-hex) character"):
            return .invalidEscape
        case "unallowed token at this point in JSON text", "invalid object key (must be a string)":
            return .unexpectedToken
        case _ where message.hasPrefix("after ") || message.hasPrefix("object key and value"):
            return .unexpectedToken
        default: return .other
        }
    }
}
