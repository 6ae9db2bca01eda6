/// The stack of open containers, kept so that every event knows its path.
///
/// This is the "named stack" of the YAJL/Objective-C pattern, generalized: each open container is a
/// frame; an object frame remembers its current key, an array frame its current index. Keys are
/// copied once into one growing byte arena (the bytes YAJL hands over live only during the
/// callback), so pushing, popping and naming cost a few stores and one `memcpy` per key, and nothing
/// is allocated per event. A ``JSONPath`` is built from the stack only when somebody asks for it.
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
    }

    /// The most bytes of one key kept in the path: longer keys are kept cut, and rendered with
    /// `…` at the end, so the path stack's memory is bounded by depth × 4 KiB, not by the keys.
    static let maxKeyBytes = 4096

    private(set) var depth = 0
    private var frames: GrowableBuffer<Frame>
    private var arena: GrowableBuffer<UInt8>
    /// When `false`, only the depth and array indices are kept: keys are not copied.
    let keepsKeys: Bool

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
        if depth == frames.capacity { frames.grow(toAtLeast: depth + 1) }
        let start: Int
        if depth == 0 {
            start = 0
        } else {
            let top = frames[depth - 1]
            start = top.keyStart + max(top.keyLength, 0)
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

    /// Names the current member of the innermost object.
    @inline(__always)
    mutating func setKey(_ key: UnsafeRawBufferPointer) {
        guard depth > 0 else { return }
        let top = depth - 1
        guard keepsKeys else {
            frames[top].keyLength = 0
            return
        }
        let start = frames[top].keyStart
        let kept = min(key.count, Self.maxKeyBytes)
        let end = start + kept
        if end > arena.capacity { arena.grow(toAtLeast: end) }
        if let base = key.baseAddress { copyBytes(to: arena.base + start, from: base, count: kept) }
        frames[top].keyLength = kept
        frames[top].keyIsCut = kept < key.count
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
                let bytes = UnsafeBufferPointer(start: arena.base + frame.keyStart, count: frame.keyLength)
                let key = makeString(UnsafeRawBufferPointer(bytes))
                components.append(.key(frame.keyIsCut ? key + "…" : key))
            }
        }
        return JSONPath(components)
    }
}
