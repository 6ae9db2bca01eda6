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

/// A record reader's queries selected no value in the whole input, with
/// ``JSONRecordOptions/requireMatch`` on: most often a misspelt key, as
/// `$.result[*]` for `$.results[*]`, which would otherwise import nothing without a word.
///
/// ```
/// no value matched $.result[*] in 209715432 bytes of input: check the query's keys and indices, or set JSONRecordOptions.requireMatch = false where no record is a valid outcome
/// ```
public struct JSONNoMatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The queries, as written.
    public let queries: [String]
    /// The bytes of input read before it ended (or before the reader stopped early because no
    /// query could match any more).
    public let bytesRead: Int

    /// Makes the error for `queries` after `bytesRead` bytes.
    public init(queries: [String], bytesRead: Int) {
        self.queries = queries
        self.bytesRead = bytesRead
    }

    /// `no value matched $.result[*] in 1024 bytes of input: …` with the option that accepts it.
    public var description: String {
        "no value matched \(queries.joined(separator: ", ")) in \(bytesRead) bytes of input: check the query's keys and indices, or set JSONRecordOptions.requireMatch = false where no record is a valid outcome"
    }
}
