import Foundation

/// A value shared between threads behind a lock, for tests that hand results across threads they
/// start themselves.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func get() -> Value { lock.withLock { value } }

    package func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
