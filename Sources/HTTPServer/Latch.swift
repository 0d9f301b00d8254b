import ServerLock

/// A one-way gate: `wait()` blocks until `open()` has been called, and returns at once ever after.
/// A `PThreadCondition` (not a poll loop: see there why).
final class Latch: Sendable {
    private let isOpen = PThreadCondition(false)

    init() {}

    /// Opens the gate and wakes every waiter.
    func open() {
        isOpen.withLock { $0 = true }
        isOpen.broadcast()
    }

    /// Blocks until the gate is open.
    func wait() {
        isOpen.wait(until: { $0 }) { _ in }
    }

    /// Whether `open()` has been called.
    var opened: Bool { isOpen.withLock { $0 } }
}
