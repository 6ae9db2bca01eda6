/// The writer's open containers, at most ``JSONWriter/maxDepth`` (127): one bit per level (array or
/// object) and whether the innermost object waits for a key (an outer object always does once its
/// inner container closes). No allocation and no array checks on the per-token path.
struct OpenContainers {
    /// What the innermost container is.
    enum Innermost {
        case none
        case array
        case object(expectingKey: Bool)
    }

    /// The open containers' kinds as a stack of bits, the innermost in bit 0: a push shifts a
    /// bit in, a pop shifts it out (zeros come in from the top, so with none open bit 0 is clear).
    /// At most 127 are open, so no bit is ever shifted out at the top. A shift by one is two
    /// instructions, where setting or reading the bit of level `count` took a variable 128-bit shift.
    private var arrays: UInt128 = 0
    /// How many containers are open.
    private(set) var count = 0
    /// Whether the innermost object waits for a key (meaningless inside an array).
    var expectingKey = false
    /// Whether the innermost container is an array (`false` when none is open).
    @inline(__always)
    var innermostIsArray: Bool { arrays & 1 != 0 }

    var isEmpty: Bool { count == 0 }

    /// Whether the innermost container is an object that waits for a key (so no value may come).
    @inline(__always)
    var expectsKey: Bool { count > 0 && !innermostIsArray && expectingKey }

    @inline(__always)
    var innermost: Innermost {
        guard count > 0 else { return .none }
        return innermostIsArray ? .array : .object(expectingKey: expectingKey)
    }

    /// Opens a container (the caller has checked the depth); a new object waits for a key.
    @inline(__always)
    mutating func push(isArray: Bool) {
        precondition(count < 128, "deeper than the writer's limit")
        arrays = arrays &<< 1 | (isArray ? 1 : 0)
        count &+= 1
        expectingKey = !isArray
    }

    /// Closes the innermost container.
    @inline(__always)
    mutating func pop() {
        count &-= 1
        arrays &>>= 1
    }
}
