#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Syscalls {
    /// An error's text for the user: a file-system error's OS message (`Permission denied`) where
    /// `FileManager` wrapped one (its `CocoaError` describes itself as a dump of its fields when
    /// Foundation's bridging is not linked in), else the error's description.
    package static func describe(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return message(forErrno: posix.code.rawValue)
        }
        if let posix = error as? POSIXError { return message(forErrno: posix.code.rawValue) }
        return String(describing: error)
    }
}
