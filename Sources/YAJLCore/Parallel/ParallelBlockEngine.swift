// Parallel/: NDJSON cut into line blocks and parsed on worker threads, results in input order;
// calls Parser/, Readers/.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One block's parse: made and run by a worker, then handed to the caller, who may make it go on
/// with the next block (a value spanning the cut) and finally finish the input with it.
protocol ParallelBlockTask: AnyObject {
    /// Parses more input: the task's own block (on a worker), or the next block (on the caller's
    /// thread, when this parse ended inside a value).
    func parse(_ bytes: UnsafeRawBufferPointer)
    /// Ends the input (on the caller's thread, with the task that parsed its last bytes).
    func finish()
    /// The parse stands between two top-level values: the next block may be parsed on its own.
    var isBetweenValues: Bool { get }
    /// The parse failed or was stopped: nothing after it is to be parsed or delivered.
    var hasEnded: Bool { get }
    /// The parse failed (its error ends the input).
    var hasFailed: Bool { get }
}

/// What ``ParallelBlockEngine/next()`` hands to the caller.
enum ParallelStep<Task> {
    /// A block was parsed by `task`: its own block (`continued` false), or the next block that it
    /// went on with (`continued` true, the same task as the step before).
    case parsed(Task, continued: Bool)
    /// The input has ended: `task` (the one that parsed the last bytes) has been finished.
    case finished(Task)
}

/// The blocks waiting for a worker and the parsed ones waiting for the caller, shared with the
/// worker threads under one condition.
private final class BlockWorkQueue<Task: ParallelBlockTask>: @unchecked Sendable {
    // All guarded by `condition`.
    private let condition = ConditionLock()
    private var waiting: [LineBlock] = []
    private var waitingHead = 0
    private var parsed: [Int: (task: Task, block: LineBlock)] = [:]
    private var cancelled = false

    /// A worker: the next block to parse; `nil` once cancelled.
    func nextBlock() -> LineBlock? {
        condition.withLock {
            while !cancelled && waitingHead == waiting.count { condition.wait() }
            if cancelled { return nil }
            let block = waiting[waitingHead]
            waitingHead += 1
            if waitingHead > 64 && waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            return block
        }
    }

    /// A worker: block `index` is parsed.
    func finished(_ block: LineBlock, _ task: Task) {
        condition.withLock {
            parsed[block.index] = (task, block)
            condition.broadcast()
        }
    }

    /// The caller: a block for the workers.
    func submit(_ block: LineBlock) {
        condition.withLock {
            waiting.append(block)
            condition.signal()
        }
    }

    /// The caller: waits for block `index` to be parsed.
    func take(_ index: Int) -> (task: Task, block: LineBlock) {
        condition.withLock {
            while parsed[index] == nil { condition.wait() }
            return parsed.removeValue(forKey: index)!
        }
    }

    /// The caller, reading unordered: the parsed block with the lowest index, waiting for one.
    func takeAny() -> (task: Task, block: LineBlock) {
        condition.withLock {
            while parsed.isEmpty { condition.wait() }
            return parsed.removeValue(forKey: parsed.keys.min()!)!
        }
    }

    /// Either side: stop; the workers end after their current block.
    func cancel() {
        condition.withLock {
            cancelled = true
            waiting.removeAll()
            waitingHead = 0
            condition.broadcast()
        }
    }
}

/// The engine of parallel NDJSON: the caller's thread reads line-aligned blocks into a bounded
/// window, worker threads parse them (each with a task made by `makeTask`), and the caller gets
/// the parsed blocks back in input order. When a block's parse ended inside a value (or the next
/// block starts inside a line), the next block is parsed by that same task instead, on the
/// caller's thread, and the next block's own parse is discarded: the result is always what one
/// parser over the whole input gives.
///
/// Dropping the engine stops the workers after their current block.
final class ParallelBlockEngine<Task: ParallelBlockTask> {
    private let queue = BlockWorkQueue<Task>()
    private var reader: LineBlockReader
    private let makeTask: @Sendable (LineBlock) -> Task
    private let window: Int
    private var spare: [BlockStorage] = []
    /// Blocks read and not yet handed to the caller.
    private var inFlight = 0
    private var nextIndex = 0
    /// The input has been read to its end (or failed to read).
    private var readingDone = false
    /// A read error, raised once the blocks before it have been handed out.
    private var readFailure: (any Error)?
    /// The task whose parse has reached the end of the last block handed out.
    private var current: Task?
    private var done = false
    /// Worker threads running; 0 when none could start (blocks are then parsed by the caller).
    private let workers: Int
    /// Blocks handed out as soon as they are parsed (strict NDJSON: every block stands alone).
    private let unordered: Bool
    /// Unordered: the blocks read and not yet handed out or discarded.
    private var pending = Set<Int>()
    /// Unordered: the first block known to have failed, handed out once every block before it is.
    private var heldFailure: (task: Task, index: Int)?

    init(
        source: any JSONByteSource,
        options: JSONParallelOptions,
        makeTask: @escaping @Sendable (LineBlock) -> Task
    ) {
        unordered = !options.ordered
        reader = LineBlockReader(source: source, blockSize: options.blockSize, strict: !options.ordered)
        self.makeTask = makeTask
        window = options.window
        var started = 0
        let queue = self.queue
        for _ in 0..<options.threads {
            let ok = Syscalls.startDetachedThread(stackSize: 8 << 20) {
                while let block = queue.nextBlock() { queue.finished(block, makeTask(block)) }
            }
            if ok { started += 1 }
        }
        workers = started
    }

    deinit {
        queue.cancel()
        reader.deallocate()
    }

    /// The next parsed block, in input order; `nil` after ``ParallelStep/finished(_:)`` or after
    /// a task that has ended (failed or stopped).
    func next() throws -> ParallelStep<Task>? {
        if done { return nil }
        if unordered { return try nextUnordered() }
        if let current, current.hasEnded {
            done = true
            queue.cancel()
            return nil
        }
        fill()
        if readingDone && nextIndex == reader.blocksRead {
            done = true
            queue.cancel()
            if let readFailure { throw readFailure }
            let last = current ?? makeTask(LineBlock.empty)
            last.finish()
            return .finished(last)
        }
        let (task, block) = queue.take(nextIndex)
        nextIndex += 1
        inFlight -= 1
        defer { spare.append(block.storage) }
        if let current, !current.isBetweenValues || block.startsInsideLine {
            current.parse(block.bytes)  // a value goes on across the cut: that task parses this block
            return .parsed(current, continued: true)
        }
        current = task
        return .parsed(task, continued: false)
    }

    /// Unordered (strict NDJSON, each block finished by its worker): the next parsed block,
    /// whichever it is; a failed block waits until every block before it has been handed out,
    /// and ends the input (blocks after it that are not out yet are dropped).
    private func nextUnordered() throws -> ParallelStep<Task>? {
        while true {
            if let held = heldFailure, pending.min() == held.index {
                done = true
                queue.cancel()
                return .parsed(held.task, continued: false)
            }
            if heldFailure == nil { fill() }
            if readingDone && pending.isEmpty {
                done = true
                queue.cancel()
                if let readFailure { throw readFailure }
                return nil
            }
            let (task, block) = queue.takeAny()
            inFlight -= 1
            spare.append(block.storage)
            if let held = heldFailure, block.index > held.index {
                pending.remove(block.index)  // after the first error: never handed out
                continue
            }
            if task.hasFailed {
                heldFailure = (task, block.index)
                readingDone = true
                readFailure = nil  // a read error after this block is not the first
                pending = pending.filter { $0 <= block.index }
                continue
            }
            pending.remove(block.index)
            return .parsed(task, continued: false)
        }
    }

    /// Reads blocks until the window is full or the input has ended.
    private func fill() {
        while !readingDone && inFlight < window {
            let storage = spare.popLast() ?? BlockStorage(capacity: reader.blockSize)
            do {
                guard let block = try reader.next(into: storage) else {
                    readingDone = true
                    return
                }
                inFlight += 1
                if unordered { pending.insert(block.index) }
                if workers > 0 {
                    queue.submit(block)
                } else {
                    queue.finished(block, makeTask(block))
                }
            } catch {
                readFailure = error
                readingDone = true
            }
        }
    }
}
