import Foundation
import YAJLCore

/// Writes to a Foundation `OutputStream`: one in memory (`OutputStream(toMemory:)`), a file
/// (`OutputStream(toFileAtPath:append:)`), a fixed buffer, or a socket's output stream. Opens it
/// when the sink is made, if it is not open yet; never closes it (the stream is yours, as in
/// Cocoa).
///
/// Every write loops until the stream has taken all the bytes (a socket takes part of them at a
/// time). A stream that fails throws a ``JSONIOError`` with its `streamError`; one that takes no
/// more bytes (a full fixed-size buffer, a closed stream) throws one that says so, so output is
/// never silently cut short.
///
/// ```swift
/// let stream = OutputStream(toMemory: ())
/// try JSONRecordWriter<User>.write(to: .outputStream(stream)) { try $0.write(contentsOf: users) }
/// let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as! Data
/// ```
///
/// Writes block: write from the thread that produces the output, not from a `StreamDelegate`
/// callback on a run loop (see <doc:WritingJSON> for how the Cocoa stream pattern maps here).
public struct OutputStreamSink: JSONOutputSink {
    /// The stream written to.
    public let stream: OutputStream
    private let name: String

    /// A sink over `stream`, opened here if it is not open yet (so that a file stream creates
    /// its file even when nothing is written); `name` appears in errors (default `output stream`).
    public init(_ stream: OutputStream, name: String = "output stream") {
        if stream.streamStatus == .notOpen { stream.open() }
        self.stream = stream
        self.name = name
    }

    /// Writes all of `bytes`, looping over partial writes.
    /// - Throws: ``JSONIOError`` when the stream fails or takes no more bytes.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var next = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var left = bytes.count
        while left > 0 {
            let written = stream.write(next, maxLength: left)
            if stream.streamStatus == .error {
                // `streamError` is read only in this state: swift-corelibs-foundation traps
                // reading it from a stream that is merely closed.
                let reason = stream.streamError.map { String(describing: $0) } ?? "the stream failed"
                throw JSONIOError(operation: .write, target: name, message: reason)
            }
            if written <= 0 {
                throw JSONIOError(
                    operation: .write,
                    target: name,
                    message:
                        "the stream takes no more bytes (\(left) of \(bytes.count) left; status \(stream.streamStatus.rawValue): full, closed or at its end)"
                )
            }
            next += written
            left -= written
        }
    }
}

extension JSONOutputSink where Self == OutputStreamSink {
    /// A Foundation `OutputStream`, opened if it is not yet (and never closed by the writer).
    public static func outputStream(_ stream: OutputStream) -> OutputStreamSink { OutputStreamSink(stream) }
}
