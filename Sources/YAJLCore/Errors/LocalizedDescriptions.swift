#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Every public error is a `LocalizedError` whose `errorDescription` is its one-line
// `description`, so that `error.localizedDescription` (what apps and loggers print) says what went
// wrong and where, instead of "The operation could not be completed".

extension JSONParseError: LocalizedError {
    /// The same as ``description``: what went wrong, where, and which option to change.
    public var errorDescription: String? { description }
}

extension JSONIOError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONRecordDecodingError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONPathSyntaxError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONPathBufferError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONPathPatternError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONOptionError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONParserUsageError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONReaderUsageError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONWriterError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension JSONNoMatchError: LocalizedError {
    /// The same as ``description``.
    public var errorDescription: String? { description }
}
