extension JSONParser {
    /// How a ``JSONParser`` reads: YAJL's flags, the limits that keep hostile input cheap, and the
    /// read size of the byte-source feeders.
    ///
    /// The defaults accept strict RFC 8259 JSON (one value, UTF-8 checked) and bound the work any
    /// input can cause: nesting is limited to ``maxDepth`` levels and a single buffered token to
    /// ``maxTokenBytes``. A document itself may be of any size unless ``maxDocumentBytes`` is set.
    public struct Options: Sendable, Hashable {
        /// Accept `/* */` and `//` comments (YAJL's `yajl_allow_comments`). Default `false`.
        public var allowComments = false
        /// Ignore anything after the first complete value (`yajl_allow_trailing_garbage`). Default `false`.
        public var allowTrailingGarbage = false
        /// Accept several top-level values, separated by white space: NDJSON and concatenated JSON
        /// (`yajl_allow_multiple_values`). Default `false`.
        public var allowMultipleValues = false
        /// Let ``JSONParser/finish()`` succeed although the input ended inside a value
        /// (`yajl_allow_partial_values`). Default `false`.
        public var allowPartialValues = false
        /// Reject strings and keys that are not valid UTF-8. Default `true`.
        /// (YAJL's flag is the inverse, `yajl_dont_validate_strings`.)
        public var validatesUTF8 = true
        /// Keep object keys so that every event's ``JSONEventContext/path`` and every error's
        /// ``JSONParseError/path`` is known. Default `true`; turning it off saves one small copy per key.
        public var tracksPath = true

        /// The deepest nesting of objects and arrays accepted. Default 1,000 (Foundation stops at
        /// 512; YAJL has no limit of its own).
        public var maxDepth = 1_000
        /// The most bytes of one string, key or number that YAJL may buffer while it spans chunks
        /// (and so the most input that may pass without producing an event). Default 16 MiB.
        /// Memory used for one token is bounded by about twice this.
        public var maxTokenBytes = 16 << 20
        /// The most bytes of input accepted in total, or `nil` for no limit (the default).
        public var maxDocumentBytes: Int? = nil
        /// How many bytes the byte-source feeders read at a time. Default 64 KiB; below 4 KiB YAJL
        /// slows down sharply. While a long token spans reads, the feeders double the read size
        /// (up to ``maxTokenBytes``) and return to this size once events flow again.
        public var chunkSize = 64 << 10

        /// The defaults: strict JSON, UTF-8 checked, paths tracked, 64 KiB reads.
        public init() {}

        /// Options with the flags set as given and every other property at its default.
        public init(
            allowComments: Bool = false,
            allowTrailingGarbage: Bool = false,
            allowMultipleValues: Bool = false,
            allowPartialValues: Bool = false,
            validatesUTF8: Bool = true,
            tracksPath: Bool = true,
            maxDepth: Int = 1_000,
            maxTokenBytes: Int = 16 << 20,
            maxDocumentBytes: Int? = nil,
            chunkSize: Int = 64 << 10
        ) {
            self.allowComments = allowComments
            self.allowTrailingGarbage = allowTrailingGarbage
            self.allowMultipleValues = allowMultipleValues
            self.allowPartialValues = allowPartialValues
            self.validatesUTF8 = validatesUTF8
            self.tracksPath = tracksPath
            self.maxDepth = maxDepth
            self.maxTokenBytes = maxTokenBytes
            self.maxDocumentBytes = maxDocumentBytes
            self.chunkSize = chunkSize
        }

        /// The allowed ``maxDepth``s.
        public static let maxDepthRange = 1...1_000_000
        /// The allowed ``maxTokenBytes``: 1 byte to 1 TiB.
        public static let maxTokenBytesRange = 1...(1 << 40)
        /// The allowed ``chunkSize``s: 1 byte to 1 GiB.
        public static let chunkSizeRange = 1...(1 << 30)

        /// Checks every option against its allowed range.
        ///
        /// - Throws: ``JSONOptionError`` naming the first option out of range.
        public func validate() throws(JSONOptionError) {
            func check(
                _ name: String,
                _ value: Int,
                _ range: ClosedRange<Int>,
                _ unit: String = ""
            ) throws(JSONOptionError) {
                guard range.contains(value) else {
                    throw JSONOptionError(
                        option: "JSONParser.Options.\(name)",
                        value: "\(value)",
                        allowed: "from \(range.lowerBound) to \(range.upperBound)\(unit)"
                    )
                }
            }
            try check("maxDepth", maxDepth, Self.maxDepthRange)
            try check("maxTokenBytes", maxTokenBytes, Self.maxTokenBytesRange, " (1 TiB)")
            try check("chunkSize", chunkSize, Self.chunkSizeRange, " (1 GiB)")
            if let maxDocumentBytes, maxDocumentBytes < 0 {
                throw JSONOptionError(
                    option: "JSONParser.Options.maxDocumentBytes",
                    value: "\(maxDocumentBytes)",
                    allowed: "0 or more (or nil for no limit)"
                )
            }
        }

        /// ``chunkSize`` within its allowed range.
        var effectiveChunkSize: Int { min(max(1, chunkSize), Self.chunkSizeRange.upperBound) }
        /// The largest read the feeders grow to while a token spans reads (at most 1 GiB).
        var maxReadSize: Int { min(max(effectiveChunkSize, maxTokenBytes), Self.chunkSizeRange.upperBound) }
    }
}
