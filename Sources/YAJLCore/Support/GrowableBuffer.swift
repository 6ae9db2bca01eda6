/// Manually managed storage for the hot paths (the path stack, the tape): a pointer and a
/// capacity, without the uniqueness and exclusivity checks of an `Array`.
///
/// The invariant, for every user: elements are bitwise-copyable, the owner knows how many of the
/// `capacity` slots hold values (the buffer does not), growing keeps every slot's bytes (by
/// `realloc`, which remaps a large block rather than copying it, so growing never holds two
/// copies), and the owner calls ``deallocate()`` exactly once. Pointers into the buffer are
/// invalidated by ``grow(toAtLeast:)``.
struct GrowableBuffer<Element: BitwiseCopyable> {
    /// The first slot.
    private(set) var base: UnsafeMutablePointer<Element>
    /// How many slots there are.
    private(set) var capacity: Int

    /// A buffer of `capacity` slots (at least one), uninitialized.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = Syscalls.reallocate(nil, byteCount: self.capacity * MemoryLayout<Element>.stride)
            .bindMemory(to: Element.self, capacity: self.capacity)
    }

    /// Grows to at least `needed` slots, doubling, keeping the contents. Out of line: callers test
    /// for room on their per-event paths, and the growth is rare.
    @inline(never)
    mutating func grow(toAtLeast needed: Int) {
        guard needed > capacity else { return }
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        base = Syscalls.reallocate(UnsafeMutableRawPointer(base), byteCount: grown * MemoryLayout<Element>.stride)
            .bindMemory(to: Element.self, capacity: grown)
        capacity = grown
    }

    /// Frees the storage.
    func deallocate() { Syscalls.free(UnsafeMutableRawPointer(base)) }

    /// The slot at `index` (unchecked), read and written in place.
    @inline(__always)
    subscript(index: Int) -> Element {
        unsafeAddress { UnsafePointer(base + index) }
        nonmutating unsafeMutableAddress { base + index }
    }
}
