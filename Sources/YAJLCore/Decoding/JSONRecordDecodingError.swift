#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record that could not be decoded: the record's JSON path, the coding path inside it, why,
/// and where the failing value is in the input.
///
/// `$.results[41].address.zip: expected String, found number at line 44, column 17 (byte 2301)`
public struct JSONRecordDecodingError: Error, Sendable, CustomStringConvertible {
    /// The selected value's path in the document.
    public let recordPath: JSONPath
    /// The full path of the failing value: the record's path followed by the coding path.
    public let path: JSONPath
    /// What was wrong, e.g. `expected String, found number` or `missing key 'zip'`.
    public let message: String
    /// The 1-based line where the failing value starts (for a missing key, its object).
    public let line: Int
    /// The 1-based column, in bytes, where the failing value starts.
    public let column: Int
    /// The absolute byte offset where the failing value starts (its first byte: a quote, a digit
    /// or `-`, a bracket, or a literal's first letter).
    public let byteOffset: Int
    /// The 1-based line where the record starts.
    public let recordLine: Int
    /// The `DecodingError` your type or the decoder raised, when there was one.
    public let underlying: DecodingError?
    /// The error as it was thrown: a `DecodingError`, or the error your `init(from:)` threw.
    ///
    /// A reader that throws on a failing record (the default ``JSONRecordOptions/DecodingFailurePolicy/stop``)
    /// throws an error of your own type unchanged, not wrapped in this type; with
    /// ``JSONRecordOptions/DecodingFailurePolicy/skip`` it is kept here, in the report's
    /// ``JSONRecordReport/failures``.
    public let underlyingError: (any Error)?

    /// A located error; `underlyingError` defaults to `underlying`.
    package init(
        recordPath: JSONPath,
        path: JSONPath,
        message: String,
        line: Int,
        column: Int,
        byteOffset: Int,
        recordLine: Int,
        underlying: DecodingError?,
        underlyingError: (any Error)? = nil
    ) {
        self.recordPath = recordPath
        self.path = path
        self.message = message
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.recordLine = recordLine
        self.underlying = underlying
        self.underlyingError = underlyingError ?? underlying
    }

    /// What a reader throws for this failure: the error your code threw, unchanged, or this
    /// located error for a `DecodingError`.
    var asThrown: any Error {
        if let underlyingError, !(underlyingError is DecodingError) { return underlyingError }
        return self
    }

    /// `$.results[41].address.zip: expected String, found number at line 44, column 17 (byte 2301)`
    public var description: String { "\(path): \(message) at line \(line), column \(column) (byte \(byteOffset))" }
}
