import Synchronization

/// Set by the reader that owns a source when it is dropped or cancelled, so that its parsing
/// thread does not stay blocked in a read: a read on a pipe, a socket, a FIFO or the network then
/// ends within a tenth of a second with `CancellationError`, and the thread releases the source.
package final class ReadInterruption: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Whether the reads should stop.
    package var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Stops the reads.
    package func set() { flag.store(true, ordering: .relaxed) }
}

/// A source whose blocking reads can be interrupted: the built-in descriptor and HTTP sources.
/// (A source of your own is read until it returns; make its reads return when it should stop.)
package protocol InterruptibleByteSource: JSONByteSource {
    /// Checked while a read waits; set once, never cleared.
    var interruption: ReadInterruption? { get set }
}
