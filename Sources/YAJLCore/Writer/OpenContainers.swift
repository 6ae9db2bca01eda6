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

    private var arrays: (low: UInt64, high: UInt64) = (0, 0)
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

    @inline(__always)
    private func isArray(at level: Int) -> Bool {
        level < 64 ? arrays.low >> UInt64(level) & 1 == 1 : arrays.high >> UInt64(level - 64) & 1 == 1
    }

    /// Opens a container (the caller has checked the depth); a new object waits for a key.
    @inline(__always)
    mutating func push(isArray: Bool) {
        precondition(count < 128, "deeper than the writer's limit")
        let bit: UInt64 = isArray ? 1 : 0
        if count < 64 {
            arrays.low = arrays.low & ~(1 << UInt64(count)) | bit << UInt64(count)
        } else {
            arrays.high = arrays.high & ~(1 << UInt64(count - 64)) | bit << UInt64(count - 64)
        }
        count += 1
        expectingKey = !isArray
        innermostIsArray = isArray
    }

    /// Closes the innermost container.
    @inline(__always)
    mutating func pop() {
        count -= 1
        innermostIsArray = count > 0 && isArray(at: count - 1)
    }
}
