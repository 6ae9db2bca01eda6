/// Where the lean validation pass gets its reads, checked (``LeanValidation/Reads``): on the
/// caller's thread for the first ``readAheadAfter`` bytes, then, if a read still fills the buffer
/// (more is likely to come), from a ``LeanReadAhead`` thread that reads and checks the next ones
/// while YAJL parses this one. A long input then costs about YAJL's own time, not YAJL's plus the
/// copy out of the kernel and the UTF-8 check; a short one never pays for starting a thread.
struct LeanChunks<Source: JSONByteSource> {
    /// The source and the checks, until they move to the read-ahead thread.
    private var source: Source?
    private var reads: LeanValidation.Reads
    /// The caller's reads, and the size of every read (grown while a token spans reads).
    private var feeder: ChunkFeeder
    private var ahead: LeanReadAhead<Source>?
    /// Whether any input was read (a byte order mark alone counts).
    private(set) var hasInput = false
    /// Bytes read on the caller's thread before reads move to a thread of their own.
    private let readAheadAfter: Int

    init(source: Source, options: JSONParser.Options, maxReadSize: Int, readAheadAfter: Int) {
        self.source = source
        self.readAheadAfter = readAheadAfter
        reads = LeanValidation.Reads(options: options)
        feeder = ChunkFeeder(options: options, maxReadSize: maxReadSize)
    }

    /// The next read, checked; its bytes stay valid until the next call or ``finish()``.
    mutating func next() throws -> LeanValidation.Reads.Next {
        let next: LeanValidation.Reads.Next
        if let ahead {
            next = try ahead.next()
        } else {
            let read = try feeder.read(from: &source!)
            next = reads.check(read)
            if case .chunk = next, reads.total >= readAheadAfter, read.count == feeder.readSize { startReadingAhead() }
        }
        if case .chunk = next { hasInput = true }
        return next
    }

    /// Sizes the reads after YAJL parsed a chunk (``ChunkFeeder/adapt(producedEvents:)``).
    mutating func adapt(producedEvents: Bool) {
        feeder.adapt(producedEvents: producedEvents)
        ahead?.request(readSize: feeder.readSize)
    }

    /// Stops the read-ahead thread (it releases the source) and frees the buffers.
    mutating func finish() {
        ahead?.stop()
        ahead = nil
        source = nil
        feeder.deallocate()
    }

    /// Moves the source and the checks to a read-ahead thread; when no thread can be started,
    /// the reads stay on this one.
    private mutating func startReadingAhead() {
        let ahead = LeanReadAhead(source: source!, reads: reads, readSize: feeder.readSize, baseSize: feeder.baseSize)
        guard ahead.start() else { return }
        self.ahead = ahead
        source = nil
    }
}

/// Reads and checks (``LeanValidation/Reads``) a source on a thread of its own, into a ring of
/// ``slotCount`` buffers, ahead of the caller, which parses them in order.
///
/// Who owns what: the source and the checks belong to the thread once it has started. A slot
/// belongs to the thread until it is filled, then to the caller until the caller asks for the
/// next read; the counters that say which is which are read and written under `lock` only. The
/// thread stops after the read that ends the input (its end, an undecided check or an error), or
/// when ``stop()`` asks, and releases the source before ``stop()`` returns.
final class LeanReadAhead<Source: JSONByteSource>: @unchecked Sendable {
    /// Buffers in the ring: enough to keep reading while YAJL parses a few reads, little memory.
    static var slotCount: Int { 8 }
    /// A waiting thread is woken only once this many slots are free, so that it reads several
    /// in a row: a wake-up costs a system call, and the other core's, per read.
    static var refill: Int { slotCount / 2 }
    /// Bytes the filled slots may hold together: reads grown for a long token (up to 1 MiB each)
    /// then fill fewer slots ahead, so that memory stays what reading in place would use, plus
    /// this.
    static var byteBudget: Int { 2 << 20 }

    private let lock = ConditionLock()
    private let baseSize: Int

    // The thread's.
    private var source: Source?
    private var reads: LeanValidation.Reads
    private let buffers: UnsafeMutablePointer<UnsafeMutableRawBufferPointer>

    // Under `lock`.
    private var results: [Result<LeanValidation.Reads.Next, any Error>]
    /// Slots filled and not yet given back by the caller (the one it holds included).
    private var filled = 0
    /// The sizes of their buffers, together.
    private var filledBytes = 0
    /// The most the filled slots and the read in progress held together.
    private var peakBytes = 0
    private var readSize: Int
    private var stopping = false
    private var threadDone = false
    private var threadWaits = false
    private var callerWaits = false

    // The caller's.
    private var head = 0
    private var holdsHead = false

    init(source: Source, reads: LeanValidation.Reads, readSize: Int, baseSize: Int) {
        self.source = source
        self.reads = reads
        self.readSize = readSize
        self.baseSize = baseSize
        results = Array(repeating: .success(.end), count: Self.slotCount)
        buffers = .allocate(capacity: Self.slotCount)
        buffers.initialize(repeating: UnsafeMutableRawBufferPointer(start: nil, count: 0), count: Self.slotCount)
    }

    deinit {
        for index in 0..<Self.slotCount { buffers[index].deallocate() }
        buffers.deallocate()
    }

    /// Starts the thread; `false` if none could be created (nothing was read).
    func start() -> Bool {
        // The thread calls no user code and never recurses: a small stack is plenty.
        Syscalls.startDetachedThread(stackSize: 512 << 10) { [self] in readAhead() }
    }

    /// The next read, checked, in order; it stays valid until the next call or ``stop()``.
    func next() throws -> LeanValidation.Reads.Next {
        let result = lock.withLock { () -> Result<LeanValidation.Reads.Next, any Error> in
            if holdsHead {
                holdsHead = false
                filledBytes -= buffers[head].count
                // A read grown for a long token is not kept for later reads of the normal size.
                if buffers[head].count > baseSize {
                    buffers[head].deallocate()
                    buffers[head] = UnsafeMutableRawBufferPointer(start: nil, count: 0)
                }
                head = (head + 1) % Self.slotCount
                filled -= 1
                if threadWaits, Self.slotCount - filled >= Self.refill { lock.signal() }
            }
            while filled == 0 {
                // The thread always ends on a filled slot, which the caller reads last.
                guard !threadDone else { return .success(.end) }
                callerWaits = true
                lock.wait()
                callerWaits = false
            }
            holdsHead = true
            return results[head]
        }
        return try result.get()
    }

    /// The size of the reads from now on (reads already made keep theirs).
    func request(readSize size: Int) {
        lock.withLock { readSize = size }
    }

    /// The most bytes the filled slots and the read in progress held together (for tests).
    package var peakBytesHeld: Int { lock.withLock { peakBytes } }

    /// Asks the thread to stop after its current read and waits until it has released the source.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
            while !threadDone { lock.wait() }
        }
    }

    /// The thread: reads and checks into free slots, in order, until the input ends or the
    /// caller stops it.
    private func readAhead() {
        var tail = 0
        while true {
            let size = lock.withLock { () -> Int? in
                // Full (in slots or bytes): wait until `refill` slots are free, and the next read
                // fits the budget (or the caller stops).
                var waited = false
                while !stopping,
                    filled == Self.slotCount || (filled > 0 && filledBytes + readSize > Self.byteBudget)
                        || (waited && Self.slotCount - filled < Self.refill)
                {
                    threadWaits = true
                    lock.wait()
                    threadWaits = false
                    waited = true
                }
                if !stopping { peakBytes = max(peakBytes, filledBytes + readSize) }
                return stopping ? nil : readSize
            }
            guard let size else { break }
            if buffers[tail].count != size {
                buffers[tail].deallocate()
                buffers[tail] = .allocate(byteCount: size, alignment: 16)
            }
            let buffer = buffers[tail]
            let result = Result { () throws -> LeanValidation.Reads.Next in
                let count = try ChunkFeeder.read(into: buffer, filling: size > baseSize, from: &source!)
                return reads.check(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            lock.withLock {
                results[tail] = result
                filled += 1
                filledBytes += buffer.count
                if callerWaits { lock.signal() }
            }
            tail = (tail + 1) % Self.slotCount
            guard case .success(.chunk) = result else { break }
        }
        source = nil
        lock.withLock {
            threadDone = true
            lock.broadcast()
        }
    }
}
