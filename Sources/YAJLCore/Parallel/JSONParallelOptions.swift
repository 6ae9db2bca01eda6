#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How NDJSON (and any input of several top-level values, one or more per line) is parsed on
/// several cores: the input is cut into blocks at line boundaries, and each block is parsed by a
/// parser of its own on a worker thread, rebased to the block's byte offset, line and value count,
/// so that every record, event context and error is located exactly as a single parser would
/// locate it. Results are handed to the caller in input order.
///
/// Memory is bounded by ``maxBlocksInFlight`` × ``blockSize`` plus what each block selected.
///
/// A value that spans lines (pretty-printed concatenated JSON) is still parsed correctly: when a
/// block ends inside a value, the parser of that block goes on with the next block on the
/// caller's thread (the next block's own parse is discarded), so the result is always the serial
/// one; such input simply gains nothing from the threads.
public struct JSONParallelOptions: Sendable, Hashable {
    /// Worker threads that parse blocks. Default: the machine's active cores.
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// The size of one block, cut back to its last newline. Default 1 MiB. A line longer than a
    /// block is cut inside the line and carried over to the next block (correct, but serial).
    public var blockSize: Int = 1 << 20
    /// The most blocks read and not yet handed to the caller (being parsed, or parsed and
    /// waiting). `nil` (the default) means twice ``threads``.
    public var maxBlocksInFlight: Int? = nil

    /// Records in input order (the default), or (`false`) each block's records as soon as the
    /// block is parsed, whichever block that is: the caller never waits for a slow block while
    /// later ones are done. Only a parallel ``JSONRecordReader`` reads unordered; it then needs
    /// **strict NDJSON**: every non-blank line one whole value (a line that ends inside its value,
    /// or holds two, is an error at that line), no line longer than ``blockSize``, and
    /// ``JSONRecordOptions/onBadLine`` `.stop`. Lines, byte offsets and value indices stay exact;
    /// the error thrown is still the input's first, after every record before it, but records of
    /// blocks after it may already have been handed out.
    public var ordered = true

    /// The defaults: one thread per core, 1 MiB blocks, two blocks in flight per thread, in order.
    public init() {}

    /// Options with the given thread count, block size, window and order.
    public init(threads: Int, blockSize: Int = 1 << 20, maxBlocksInFlight: Int? = nil, ordered: Bool = true) {
        self.threads = threads
        self.blockSize = blockSize
        self.maxBlocksInFlight = maxBlocksInFlight
        self.ordered = ordered
    }

    /// The allowed ``threads``.
    public static let threadsRange = 1...1024
    /// The allowed ``blockSize``s: 1 KiB to 1 GiB.
    public static let blockSizeRange = 1024...(1 << 30)
    /// The allowed ``maxBlocksInFlight``.
    public static let blocksInFlightRange = 1...65536

    /// Checks every option against its allowed range.
    ///
    /// - Throws: ``JSONOptionError`` naming the first option out of range.
    public func validate() throws(JSONOptionError) {
        func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws(JSONOptionError) {
            guard range.contains(value) else {
                throw JSONOptionError(
                    option: "JSONParallelOptions.\(name)",
                    value: "\(value)",
                    allowed: "from \(range.lowerBound) to \(range.upperBound)"
                )
            }
        }
        try check("threads", threads, Self.threadsRange)
        try check("blockSize", blockSize, Self.blockSizeRange)
        if let maxBlocksInFlight { try check("maxBlocksInFlight", maxBlocksInFlight, Self.blocksInFlightRange) }
    }

    /// The window of blocks in flight.
    var window: Int { maxBlocksInFlight ?? max(2, 2 * threads) }
}

extension JSONParser.Options {
    /// Throws when these parser options cannot be split at line boundaries: parallel parsing
    /// needs several top-level values, and no flag that lets a token span lines or ends the
    /// input early.
    func checkSplittable() throws(JSONOptionError) {
        func refuse(_ name: String, _ value: Bool, _ reason: String) -> JSONOptionError {
            JSONOptionError(option: "JSONParser.Options.\(name)", value: "\(value)", allowed: reason)
        }
        if !allowMultipleValues {
            throw refuse("allowMultipleValues", false, "true to parse in parallel (NDJSON or concatenated values)")
        }
        if allowComments {
            throw refuse("allowComments", true, "false to parse in parallel (a comment may span lines)")
        }
        if allowTrailingGarbage {
            throw refuse("allowTrailingGarbage", true, "false to parse in parallel (it ends the input after one value)")
        }
    }
}
