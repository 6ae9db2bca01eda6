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

    /// Bit `level` is set when the container at `level` (0 outermost) is an array.
    private var arrays: UInt128 = 0
    /// How many containers are open.
    private(set) var count = 0
    /// Whether the innermost object waits for a key (meaningless inside an array).
    var expectingKey = false
    /// Whether the innermost container is an array (`false` when none is open): the bit of level
    /// `count - 1`, kept apart so that the per-token checks read one flag.
    private(set) var innermostIsArray = false

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
        let bit = UInt128(1) &<< UInt128(truncatingIfNeeded: count)  // count < 128: no overshift
        arrays = isArray ? arrays | bit : arrays & ~bit
        count &+= 1
        expectingKey = !isArray
        innermostIsArray = isArray
    }

    /// Closes the innermost container.
    @inline(__always)
    mutating func pop() {
        count &-= 1
        innermostIsArray = count > 0 && (arrays &>> UInt128(truncatingIfNeeded: count &- 1)) & 1 == 1
    }
}
