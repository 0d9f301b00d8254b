import Foundation
import SymiPlus

/// A clock the test moves by hand; `sleep(until:)` returns once the test has advanced past the date.
final class ManualClock: PurchaseClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var waiters: [(date: Date, continuation: CheckedContinuation<Void, Never>)] = []

    init(_ start: Date = Fixtures.now) { current = start }

    func now() -> Date { lock.withLock { current } }

    /// How many sleeps are waiting (the purchase manager's expiry check, once scheduled).
    var sleeperCount: Int { lock.withLock { waiters.count } }

    func sleep(until date: Date) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let due: Bool = lock.withLock {
                if date <= current { return true }
                waiters.append((date, continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    /// Moves the time to `date` and wakes every sleep that is due.
    func advance(to date: Date) {
        let due: [CheckedContinuation<Void, Never>] = lock.withLock {
            current = date
            let ready = waiters.filter { $0.date <= date }.map(\.continuation)
            waiters.removeAll { $0.date <= date }
            return ready
        }
        for continuation in due { continuation.resume() }
    }
}
