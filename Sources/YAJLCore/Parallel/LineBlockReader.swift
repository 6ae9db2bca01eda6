/// A block's bytes: one allocation of the block size, reused from block to block, freed when the
/// last block (or worker) holding it lets go.
final class BlockStorage: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(capacity: Int) { bytes = .allocate(byteCount: capacity, alignment: 16) }

    deinit { bytes.deallocate() }
}

/// A run of whole lines of the input (or, when a line is longer than a block, part of one), with
/// where it starts: what a worker needs to parse it as a serial parser would have.
///
/// Handed from the reader to one worker and back under the work queue's lock, never shared.
final class LineBlock: @unchecked Sendable {
    /// 0, 1, 2… in input order.
    let index: Int
    /// The absolute byte offset of the block's first byte.
    let offset: Int
    /// The 1-based line of the block's first byte.
    let line: Int
    /// The block starts inside a line: the previous block was cut because no newline was in it,
    /// so its parser must go on with this block.
    let startsInsideLine: Bool
    let storage: BlockStorage
    let count: Int
    /// For strict NDJSON (unordered reading): the non-blank lines before the block, which are
    /// the values before it.
    let valuesBefore: Int

    init(
        index: Int,
        offset: Int,
        line: Int,
        startsInsideLine: Bool,
        storage: BlockStorage,
        count: Int,
        valuesBefore: Int = 0
    ) {
        self.index = index
        self.offset = offset
        self.line = line
        self.startsInsideLine = startsInsideLine
        self.storage = storage
        self.count = count
        self.valuesBefore = valuesBefore
    }

    /// An empty input's only block.
    static var empty: LineBlock {
        LineBlock(index: 0, offset: 0, line: 1, startsInsideLine: false, storage: BlockStorage(capacity: 0), count: 0)
    }

    /// The block's bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage.bytes[..<count]) }
}

/// Cuts a byte source into blocks that end at a newline: fills a block, keeps what follows its
/// last newline for the next one, and counts the block's newlines so that the next block knows
/// its line. Any source works (files, pipes, HTTP): it is read once, front to back.
struct LineBlockReader {
    private var source: any JSONByteSource
    let blockSize: Int
    /// The bytes after the last newline of the previous read, waiting for the next block.
    private let tail: UnsafeMutableRawBufferPointer
    private var tailCount = 0
    private var nextIndex = 0
    private var offset = 0
    private var line = 1
    private var nextStartsInsideLine = false
    private var ended = false
    /// Strict NDJSON: count the non-blank lines (the values) and refuse a line longer than a block.
    private let strict: Bool
    private var values = 0

    init(source: any JSONByteSource, blockSize: Int, strict: Bool = false) {
        self.source = source
        self.blockSize = blockSize
        self.strict = strict
        tail = .allocate(byteCount: blockSize, alignment: 16)
    }

    func deallocate() { tail.deallocate() }

    /// Blocks handed out so far.
    var blocksRead: Int { nextIndex }

    /// The next block, filled into `storage` (of ``blockSize`` bytes); `nil` at the end of the input.
    mutating func next(into storage: BlockStorage) throws -> LineBlock? {
        let buffer = storage.bytes
        if tailCount > 0 {
            buffer.baseAddress!.copyMemory(from: tail.baseAddress!, byteCount: tailCount)
        }
        var filled = tailCount
        tailCount = 0
        if !ended {
            let read = try source.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            filled += read
            if filled < buffer.count { ended = true }
        }
        guard filled > 0 else { return nil }
        var count = filled
        let startsInsideLine = nextStartsInsideLine
        nextStartsInsideLine = false
        if !ended {
            if let newline = Self.lastNewline(in: UnsafeRawBufferPointer(rebasing: buffer[..<filled])) {
                count = newline + 1
                tailCount = filled - count
                tail.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: tailCount)
            } else if strict {
                throw JSONParseError(
                    kind: .tokenLimitExceeded,
                    message:
                        "line \(line) is longer than a block (\(blockSize) bytes): reading unordered needs every line within one block",
                    limitOption: "JSONParallelOptions.blockSize",
                    byteOffset: offset + filled,
                    line: line,
                    column: filled + 1,
                    path: nil
                )
            } else {
                nextStartsInsideLine = true  // a line longer than a block: cut inside it
            }
        }
        let block = LineBlock(
            index: nextIndex,
            offset: offset,
            line: line,
            startsInsideLine: startsInsideLine,
            storage: storage,
            count: count,
            valuesBefore: values
        )
        nextIndex += 1
        offset += count
        line += TextPosition.countNewlines(block.bytes.bindMemory(to: UInt8.self))
        if strict { values += Self.nonBlankLines(in: block.bytes) }
        return block
    }

    /// The index of the last `\n` in `bytes` (lines are short next to a block: a few steps back).
    private static func lastNewline(in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = bytes.count
        while index > 0 {
            index -= 1
            if bytes[index] == UInt8(ascii: "\n") { return index }
        }
        return nil
    }

    /// How many lines of `bytes` hold something besides JSON white space (the last one may lack
    /// its newline).
    static func nonBlankLines(in bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        var content = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if content { count += 1 }
                content = false
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: content = true
            }
        }
        return content ? count + 1 : count
    }
}
