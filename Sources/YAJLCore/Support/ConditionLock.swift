#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with one condition variable, as Foundation's `NSCondition` (which the core does not
/// import): the parsing thread and its consumers wait on it. Calls libc through ``Syscalls``.
package final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// An unlocked mutex and its condition.
    package init() { (mutex, condition) = Syscalls.makeCondition() }

    deinit { Syscalls.destroyCondition(mutex, condition) }

    /// Runs `body` holding the lock.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        Syscalls.lock(mutex)
        defer { Syscalls.unlock(mutex) }
        return try body()
    }

    /// Waits until signalled, releasing the lock meanwhile; call it holding the lock, in a loop
    /// over the condition waited for (wake-ups may be spurious).
    package func wait() { Syscalls.wait(condition, mutex) }

    /// Waits until signalled or `seconds` have passed, releasing the lock meanwhile.
    package func wait(seconds: Double) { Syscalls.wait(condition, mutex, seconds: seconds) }

    /// Wakes one waiter; call it holding the lock.
    package func signal() { Syscalls.signal(condition) }

    /// Wakes every waiter; call it holding the lock.
    package func broadcast() { Syscalls.broadcast(condition) }
}
