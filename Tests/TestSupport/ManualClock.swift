import Foundation

/// A clock the test moves by hand. As a wall clock (`now()`, `sleep(until:)`, SymiPlus's `PurchaseClock`):
/// `sleep(until:)` returns once the test has advanced past the date, and throws `CancellationError` when its task is
/// cancelled (as the system clock does), so that only live waits are pending. As a monotonic clock
/// (``nanoseconds``, OFREP's rate limiter): the same time in nanoseconds since 1970.
package final class ManualClock: @unchecked Sendable {
    private struct Waiter {
        let id: UUID
        let date: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: Date
    private var waiters: [Waiter] = []

    /// A clock showing `start`.
    package init(_ start: Date) { current = start }

    /// The current time.
    package func now() -> Date { lock.withLock { current } }

    /// The current time in nanoseconds since 1970, as a monotonic clock's reading.
    package var nanoseconds: @Sendable () -> UInt64 { { UInt64((self.now().timeIntervalSince1970 * 1e9).rounded()) } }

    /// How many sleeps are waiting (the purchase manager's expiry check, once scheduled).
    package var sleeperCount: Int { lock.withLock { waiters.count } }

    /// The dates the waiting sleeps wake at, earliest first: when the purchase manager will ask the store next.
    package var pendingWakes: [Date] { lock.withLock { waiters.map(\.date).sorted() } }

    /// Returns at `date` or later, once the test advanced the clock there.
    package func sleep(until date: Date) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = lock.withLock {
                    // Checked under the lock: a cancellation either came before (throw now) or finds the waiter.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if date <= current { return .success(()) }
                    waiters.append(Waiter(id: id, date: date, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let cancelled: Waiter? = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time to `date` and wakes every sleep that is due.
    package func advance(to date: Date) {
        let due: [Waiter] = lock.withLock {
            current = date
            let ready = waiters.filter { $0.date <= date }
            waiters.removeAll { $0.date <= date }
            return ready
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Moves the time on by `seconds` and wakes every sleep that is due.
    package func advance(seconds: Double) { advance(to: now().addingTimeInterval(seconds)) }
}
