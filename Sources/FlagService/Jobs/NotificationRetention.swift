import FlagStore
import Synchronization

/// Deletes the App Store notifications signed before the retention (`--appstore-retention-days`), at most once an
/// hour, from the scheduler's passes on the node that runs the jobs (one node of several: the lease holder). The
/// deletion goes to the store directly, not through the writer: it changes no document, and records past the
/// retention are read by nothing.
final class NotificationRetention: Sendable {
    let store: FlagStore
    let options: FlagService.AppStoreOptions
    let logger: ServiceLogger
    /// How often a deletion runs.
    static let interval: Int64 = 3_600_000
    /// How soon a failed deletion is tried again.
    static let retryAfterFailure: Int64 = 60_000
    /// When the next deletion is due (ms since 1970 UTC); 0: at the first pass.
    private let nextRun = Atomic<Int64>(0)

    init(store: FlagStore, options: FlagService.AppStoreOptions, logger: ServiceLogger) {
        self.store = store
        self.options = options
        self.logger = logger
    }

    /// Deletes what is past the retention at `now` when an hour has passed since the last deletion; returns how many
    /// records it deleted (nil when it was not due or failed).
    @discardableResult
    func runIfDue(now: Int64) -> Int? {
        guard now >= nextRun.load(ordering: .relaxed) else { return nil }
        let before = options.retentionStart(now: now)
        do {
            let deleted = try store.deleteNotifications(signedBefore: before)
            nextRun.store(now + Self.interval, ordering: .relaxed)
            if deleted > 0 {
                logger.log(.info, "appstore_retention", ["deleted": "\(deleted)", "signed_before": "\(before)",
                                                         "days": "\(options.retentionDays)"])
            }
            return deleted
        } catch {
            nextRun.store(now + Self.retryAfterFailure, ordering: .relaxed)
            logger.log(.error, "appstore_retention_failed", ["error": "\(error)"])
            return nil
        }
    }
}
