// Errors/: the public errors, each saying what went wrong, where, and which option to change; calls
// nothing.

/// Why a document was rejected, and exactly where.
///
/// Carries the kind, YAJL's own message (e.g. `premature EOF`, `invalid char in json text`),
/// the absolute position (0-based byte offset; 1-based line and column, the column counted in
/// bytes), the JSON path at the failure, and a short excerpt of the input around it that is safe to
/// print even when the input is not valid UTF-8.
///
/// ```
/// premature EOF at line 3, column 17 (byte 52) in $.results[2].name
/// ```
///
/// Errors thrown by your ``JSONEventHandler`` are not wrapped in this type: the parser rethrows
/// them unchanged. I/O failures of a byte source are ``JSONIOError``s.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a parse error. New kinds may be added; switch with a `default`.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A token where the grammar does not allow one, e.g. `[1 2]` or `{"a" 1}`
        /// (YAJL's `yajl_state_parse_error`).
        public static let unexpectedToken = Kind(rawValue: "unexpected-token")
        /// A byte that cannot start a token, or a raw control character inside a string
        /// (`yajl_lex_invalid_char`, `yajl_lex_string_invalid_json_char`, `yajl_lex_invalid_string`).
        public static let invalidCharacter = Kind(rawValue: "invalid-character")
        /// A bad escape sequence: `\x`, or `\u` without four hex digits
        /// (`yajl_lex_string_invalid_escaped_char`, `yajl_lex_string_invalid_hex_char`).
        public static let invalidEscape = Kind(rawValue: "invalid-escape")
        /// A malformed number such as `1.`, `1e` or `-` (`yajl_lex_missing_integer_after_*`).
        public static let invalidNumber = Kind(rawValue: "invalid-number")
        /// Bytes in a string that are not valid UTF-8 (`yajl_lex_string_invalid_utf8`).
        public static let invalidUTF8 = Kind(rawValue: "invalid-utf8")
        /// A comment while ``JSONParser/Options/allowComments`` is off (`yajl_lex_unallowed_comment`).
        public static let commentNotAllowed = Kind(rawValue: "comment-not-allowed")
        /// The input ended inside a value: any error `yajl_complete_parse` reports at the end of the
        /// input. The message is YAJL's `premature EOF`, or, where YAJL names the cut token instead
        /// (`tru`, `1.`, half a UTF-8 character), `premature EOF (yajl: <its message>)`.
        public static let prematureEndOfInput = Kind(rawValue: "premature-end-of-input")
        /// More input after the first complete value, without
        /// ``JSONParser/Options/allowTrailingGarbage`` or ``JSONParser/Options/allowMultipleValues``.
        public static let trailingGarbage = Kind(rawValue: "trailing-garbage")
        /// Deeper nesting than ``JSONParser/Options/maxDepth``.
        public static let depthLimitExceeded = Kind(rawValue: "depth-limit-exceeded")
        /// One token buffered across chunks grew past ``JSONParser/Options/maxTokenBytes``.
        public static let tokenLimitExceeded = Kind(rawValue: "token-limit-exceeded")
        /// The document grew past ``JSONParser/Options/maxDocumentBytes``.
        public static let documentLimitExceeded = Kind(rawValue: "document-limit-exceeded")
        /// Any other error YAJL reports.
        public static let other = Kind(rawValue: "other")
    }

    /// The category.
    public let kind: Kind
    /// What went wrong: YAJL's own message, or the limit that was hit and the option that raises it.
    public let message: String
    /// The name of the ``JSONParser/Options`` property that raises the limit, for limit errors.
    public let limitOption: String?
    /// Absolute, 0-based offset of the offending byte in the whole input (not in one chunk).
    public let byteOffset: Int
    /// 1-based line of ``byteOffset`` (lines end at `\n`).
    public let line: Int
    /// 1-based column of ``byteOffset`` within its line, in bytes.
    public let column: Int
    /// The JSON path at the failure, or `nil` when ``JSONParser/Options/tracksPath`` is off.
    public let path: JSONPath?
    /// Up to a few dozen bytes of input around the error, made printable (invalid UTF-8 replaced,
    /// control characters escaped). Empty when no input was seen.
    public let excerpt: String
    /// Where ``byteOffset`` falls in ``excerpt``, in `Character`s.
    public let excerptMarker: Int

    /// An error with every field given (for handlers and tests that build their own).
    public init(
        kind: Kind,
        message: String,
        limitOption: String? = nil,
        byteOffset: Int,
        line: Int,
        column: Int,
        path: JSONPath?,
        excerpt: String = "",
        excerptMarker: Int = 0
    ) {
        self.kind = kind
        self.message = message
        self.limitOption = limitOption
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
        self.path = path
        self.excerpt = excerpt
        self.excerptMarker = excerptMarker
    }

    /// `premature EOF at line 3, column 17 (byte 52) in $.results[2].name`
    ///
    /// A path deeper than 24 steps is abbreviated here; ``path`` always holds all of it.
    public var description: String {
        var text = "\(message) at line \(line), column \(column) (byte \(byteOffset))"
        if let path { text += " in \(path.abbreviated())" }
        return text
    }

    /// ``description`` followed by the excerpt and a caret under the offending byte.
    public var detailedDescription: String {
        guard !excerpt.isEmpty else { return description }
        let caret = String(repeating: " ", count: excerptMarker) + "^"
        return "\(description)\n    \(excerpt)\n    \(caret)"
    }
}
