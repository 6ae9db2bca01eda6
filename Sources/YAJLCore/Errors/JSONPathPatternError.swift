/// A `match()` or `search()` pattern read from the document that is too large to match
/// in bounded time.
///
/// A pattern written in the query is checked when the query is parsed (a
/// ``JSONPathSyntaxError``); one taken from the document (`match(@.name, @.pattern)`) can only
/// be checked when it is met. Rather than evaluating the filter to false because of a limit,
/// the read stops with this error.
public struct JSONPathPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The query whose filter read the pattern.
    public let query: String
    /// Where the value being filtered starts.
    public let path: JSONPath
    /// The pattern, as read from the document.
    public let pattern: String
    /// Why it is refused, with the limit.
    public let reason: String

    init(query: String, path: JSONPath, pattern: String, reason: String) {
        self.query = query
        self.path = path
        self.pattern = pattern
        self.reason = reason
    }

    /// The whole message.
    public var description: String {
        let shown = pattern.count > 80 ? String(pattern.prefix(80)) + "…" : pattern
        return "\(query): the pattern \(shown.debugDescription) read from the document at "
            + "\(path.abbreviated()) cannot be matched: \(reason)"
    }
}
