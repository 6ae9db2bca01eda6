/// An input or output operation failed: a file could not be opened, a read or a write failed.
///
/// Byte sources and output sinks report their system failures with this one type, which names the
/// operation, what it was done on (a path, `standard output`, `fd 5`) and the OS error:
///
/// ```
/// cannot write to standard output: No space left on device
/// cannot read /data/export.json: Is a directory
/// ```
///
/// I/O errors are not errors in the JSON: the `yajl` tool exits with status 2 for them.
public struct JSONIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: String, Sendable, Hashable {
        /// Opening a file for reading.
        case open
        /// Reading from a source.
        case read
        /// Creating a file for writing.
        case create
        /// Writing to an output.
        case write
    }

    /// What was being done.
    public let operation: Operation
    /// What it was done on: a path, `stdin`, `standard output`, `fd 5`, `input stream`, a URL.
    public let target: String
    /// What failed, e.g. `No space left on device`.
    public let message: String
    /// The C `errno`, when the failure came from a system call.
    public let errno: Int32?

    /// An I/O error of `operation` on `target`.
    public init(operation: Operation, target: String, message: String, errno: Int32? = nil) {
        self.operation = operation
        self.target = target
        self.message = message
        self.errno = errno
    }

    /// A read error on `source` (the spelling of earlier versions, kept for byte sources).
    public init(source: String, message: String, errno: Int32? = nil) {
        self.init(operation: .read, target: source, message: message, errno: errno)
    }

    /// The source or output the error is about (the same as ``target``).
    public var source: String { target }

    /// `cannot write to standard output: No space left on device`
    public var description: String {
        switch operation {
        case .open, .read: return "cannot read \(target): \(message)"
        case .create: return "cannot create \(target): \(message)"
        case .write: return "cannot write to \(target): \(message)"
        }
    }
}

/// The name of ``JSONIOError`` in earlier versions, when only byte sources used it.
public typealias JSONSourceError = JSONIOError
