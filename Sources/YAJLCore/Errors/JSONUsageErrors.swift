/// An option out of its allowed range: which option, the value given, and what is allowed.
///
/// `Options.chunkSize is 0; it must be from 1 to 1073741824 (1 GiB)`
///
/// Options are checked where they are used: a parser reports its options from its first call, a
/// writer from its first call, and the `yajl` tool when it reads its command line (exit 2).
public struct JSONOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option, as spelled in the library (`maxTokenBytes`, `JSONWriter.Options.indent`).
    public let option: String
    /// The value given, as text.
    public let value: String
    /// What is allowed, in words.
    public let allowed: String

    /// An error for `option` set to `value`.
    public init(option: String, value: String, allowed: String) {
        self.option = option
        self.value = value
        self.allowed = allowed
    }

    /// `Options.chunkSize is 0; it must be from 1 to 1073741824 (1 GiB)`
    public var description: String { "\(option) is \(value); it must be \(allowed)" }
}

/// A ``JSONParser`` used in a way it cannot honour: fed after ``JSONParser/finish()``, or called
/// again from inside its own handler (libyajl would abort the process on that).
public struct JSONParserUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was done wrong.
    public let message: String

    /// A usage error saying `message`.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
