/// The stack of open containers, kept so that every event knows its path.
///
/// This is the "named stack" of the YAJL/Objective-C pattern, generalized: each open container is a
/// frame; an object frame remembers its current key, an array frame its current index. A key that
/// YAJL hands over in place (inside the chunk being parsed: no escape, not split between reads) is
/// kept as a pointer into the chunk, and copied into one growing byte arena only if its container is
/// still open when the chunk is done (``keepKeysBeyondChunk()``, a few keys per chunk); any other
/// key (in YAJL's own buffers, which live only during the callback) is copied at once. Pushing,
/// popping and naming cost a few stores, and nothing is allocated per event. A ``JSONPath`` is
/// built from the stack only when somebody asks for it.
///
/// The storage is two ``GrowableBuffer``s (`deallocate()` must be called by the owner): it sits on
/// the hot path, where Swift arrays would add uniqueness checks.
struct PathStack {
    struct Frame {
        /// `true` for an array, `false` for an object.
        var isArray: Bool
        /// Arrays: index of the current element, -1 before the first. Objects: unused.
        var index: Int
        /// Objects: where the current key starts in the arena; arrays: where the next frame's key may start.
        var keyStart: Int
        /// Objects: the current key's length in bytes as kept (at most ``PathStack/maxKeyBytes``),
        /// -1 before the first key. Arrays: 0.
        var keyLength: Int
        /// Objects: whether the current key was longer than what is kept.
        var keyIsCut = false
        /// Objects: the current key's bytes inside the chunk being parsed, until
        /// ``PathStack/keepKeysBeyondChunk()`` copies them to `keyStart` in the arena; nil once
        /// they are there.
        var keyInChunk: UnsafeRawPointer? = nil
    }

    /// The most bytes of one key kept in the path: longer keys are kept cut, and rendered with
    /// `…` at the end, so the path stack's memory is bounded by depth × 4 KiB, not by the keys.
    static let maxKeyBytes = 4096

    private(set) var depth = 0
    private var frames: GrowableBuffer<Frame>
    private var arena: GrowableBuffer<UInt8>
    /// When `false`, only the depth and array indices are kept: keys are not copied.
    let keepsKeys: Bool
    /// The chunk being parsed (``chunkStarts(_:)``): a key inside it is kept in place until
    /// ``keepKeysBeyondChunk()``.
    private var chunkStart = Self.noChunk
    private var chunkEnd = Self.noChunk
    /// The bounds of no chunk: an empty range that no key's bytes lie in.
    private static var noChunk: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped }

    init(keepsKeys: Bool) {
        self.keepsKeys = keepsKeys
        frames = GrowableBuffer(capacity: 64)
        arena = GrowableBuffer(capacity: keepsKeys ? 1024 : 1)
    }

    func deallocate() {
        frames.deallocate()
        arena.deallocate()
    }

    /// Whether the innermost open container is an array.
    var innermostIsArray: Bool { depth > 0 && frames[depth - 1].isArray }

    /// Called before every value (scalar or container start): moves an enclosing array to its next
    /// index. Without a branch on the container's kind (an object's index is unused, and adds 0):
    /// where arrays and objects alternate irregularly (GeoJSON, deep nesting) that branch was
    /// mispredicted often enough to be a third of the time of a container's start.
    @inline(__always)
    mutating func willStartValue() {
        if depth > 0 {
            let top = frames.base + (depth &- 1)
            top.pointee.index &+= top.pointee.isArray ? 1 : 0
        }
    }

    @inline(__always)
    mutating func push(isArray: Bool) {
        if _slowPath(depth == frames.capacity) { frames.grow(toAtLeast: depth &+ 1) }
        let start: Int
        if depth == 0 {
            start = 0
        } else {
            // Two fields of the enclosing frame, read in place (not a copy of the whole frame).
            let top = frames.base + (depth &- 1)
            start = top.pointee.keyStart &+ max(top.pointee.keyLength, 0)
        }
        frames[depth] = Frame(
            isArray: isArray,
            index: -1,
            keyStart: start,
            keyLength: isArray ? 0 : -1,
            keyIsCut: false
        )
        depth &+= 1
    }

    @inline(__always)
    mutating func pop() {
        depth &-= 1
    }

    /// Sets the current index of the innermost array (the stack rebuilt after a capture).
    @inline(__always)
    mutating func setIndex(_ index: Int) {
        guard depth > 0 else { return }
        frames[depth - 1].index = index
    }

    /// YAJL is given `chunk` next: keys inside it may be kept in place while it is parsed. The
    /// caller must call ``keepKeysBeyondChunk()`` once YAJL returns, before the chunk's memory
    /// changes; an empty chunk (the end of input) holds no key.
    mutating func chunkStarts(_ chunk: UnsafeRawBufferPointer) {
        if let start = chunk.baseAddress, !chunk.isEmpty {
            chunkStart = start
            chunkEnd = start + chunk.count
        } else {
            chunkStart = Self.noChunk
            chunkEnd = Self.noChunk
        }
    }

    /// Copies the keys still held in place (those of the containers open at the chunk's end) into
    /// the arena: after it, the stack no longer points into the chunk.
    mutating func keepKeysBeyondChunk() {
        for level in 0..<depth {
            let frame = frames.base + level
            guard let bytes = frame.pointee.keyInChunk else { continue }
            let length = frame.pointee.keyLength
            copyToArena(UnsafeRawBufferPointer(start: bytes, count: length), kept: length, at: frame.pointee.keyStart)
            frame.pointee.keyInChunk = nil
        }
        chunkStarts(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Names the current member of the innermost object.
    @inline(__always)
    mutating func setKey(_ key: UnsafeRawBufferPointer) {
        guard depth > 0 else { return }
        let top = frames.base + (depth &- 1)
        guard keepsKeys else {
            top.pointee.keyLength = 0
            return
        }
        let kept = min(key.count, Self.maxKeyBytes)
        top.pointee.keyLength = kept
        top.pointee.keyIsCut = kept < key.count
        if let base = key.baseAddress, base >= chunkStart, base + kept <= chunkEnd {
            top.pointee.keyInChunk = base
            return
        }
        top.pointee.keyInChunk = nil
        copyToArena(key, kept: kept, at: top.pointee.keyStart)
    }

    /// Copies `kept` bytes of `key` into the arena at `start`: a key that is not in the chunk
    /// (YAJL's buffer: escaped, or split between reads; or the stack rebuilt after a capture) at
    /// once, one kept in place when its chunk is done.
    @inline(never)
    private mutating func copyToArena(_ key: UnsafeRawBufferPointer, kept: Int, at start: Int) {
        let end = start + kept
        if end > arena.capacity { arena.grow(toAtLeast: end) }
        if let base = key.baseAddress { copyBytes(to: arena.base + start, from: base, count: kept) }
    }

    /// The path of the current position, materialized.
    ///
    /// An object frame with a key names that key, an array frame with an index names that index,
    /// and a frame still before its first member ends the path there (the position is the
    /// container itself, e.g. at `{` or at an error right after it).
    ///
    /// With `atNextValue`, the innermost container is located where its next element would be:
    /// an array at the index after the current one, an object at itself (before its next key).
    func materialize(atNextValue: Bool = false) -> JSONPath {
        var components: [JSONPath.Component] = []
        components.reserveCapacity(depth)
        for level in 0..<depth {
            let frame = frames[level]
            let innermost = level == depth - 1
            if innermost && atNextValue {
                if frame.isArray { components.append(.index(frame.index + 1)) }
                break
            }
            if frame.isArray {
                if frame.index >= 0 { components.append(.index(frame.index)) } else { break }
            } else {
                if frame.keyLength < 0 { break }
                let start = frame.keyInChunk ?? UnsafeRawPointer(arena.base + frame.keyStart)
                let key = makeString(UnsafeRawBufferPointer(start: start, count: frame.keyLength))
                components.append(.key(frame.keyIsCut ? key + "…" : key))
            }
        }
        return JSONPath(components)
    }
}
