/// A misuse of ``JSONWriter`` or a value it cannot write, naming the writer's state.
///
/// `a key where a value is expected`, `closing an array inside an object`,
/// `nesting deeper than 127 levels (YAJL's generator limit, YAJL_MAX_DEPTH = 128)`, `a non-finite double (inf) has no JSON form`.
public struct JSONWriterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category. New kinds may be added; switch with a `default`.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A call that does not fit the writer's state (YAJL's `yajl_gen_keys_must_be_strings`,
        /// `yajl_gen_generation_complete`, and the mismatched closes YAJL does not check).
        public static let invalidState = Kind(rawValue: "invalid-state")
        /// Deeper than YAJL's generator allows: 127 levels (`yajl_max_depth_exceeded`).
        public static let depthLimitExceeded = Kind(rawValue: "depth-limit-exceeded")
        /// A non-finite double, or number text that is not a JSON number (`yajl_gen_invalid_number`).
        public static let invalidNumber = Kind(rawValue: "invalid-number")
        /// A string that is not valid UTF-8 while validation is on (`yajl_gen_invalid_string`).
        public static let invalidString = Kind(rawValue: "invalid-string")
        /// The sink failed to take the output. A sink's own `JSONIOError` is thrown as it is
        /// instead. Either way, every later call of the writer (`finish` too) throws the same error
        /// and writes nothing more.
        public static let outputFailed = Kind(rawValue: "output-failed")
    }

    /// What went wrong, for code to switch on.
    public let kind: Kind
    /// What was wrong, naming the writer's state.
    public let message: String

    /// An error of `kind` with `message`.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
