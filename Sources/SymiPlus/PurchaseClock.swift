import Foundation

/// The time the purchase manager checks expiration dates against, and how it waits for the next one; a protocol so
/// the tests can let a subscription run out without waiting for a real month.
public protocol PurchaseClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Returns at `date` or later; throws when the waiting task is cancelled.
    func sleep(until date: Date) async throws
}

/// The system clock.
public struct SystemPurchaseClock: PurchaseClock {
    /// The system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// `Task.sleep` until `date`, in steps of at most a day: a month-long single sleep would be a very long timer,
    /// and the loop re-reads the clock after the device slept or the user changed the time.
    public func sleep(until date: Date) async throws {
        while true {
            let remaining = date.timeIntervalSince(Date())
            if remaining <= 0 { return }
            let seconds = min(remaining, 86_400)
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        }
    }
}
