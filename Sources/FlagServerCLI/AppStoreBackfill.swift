import AppStoreNotifications
import ClientHTTP
import FlagStore
import Foundation

/// The work of `flagserver appstore backfill`: every page of Apple's notification history for a span, each
/// `signedPayload` verified as the receiver verifies it (`SignedPayloadVerifier.verifyNotification(signedPayload:)`),
/// mapped with the store's subscription hash key and stored once per `notificationUUID` (`storeNotifications`), page
/// by page, so what was stored stays stored when a later page fails and a second run stores nothing twice.
struct AppStoreBackfill: Sendable {
    /// Reads the history.
    let client: NotificationHistoryClient
    /// Verifies each notification (the receiver's configuration).
    let verifier: SignedPayloadVerifier
    /// Where the notifications go.
    let store: FlagStore

    /// Reads [`since`, `until`) (milliseconds since 1970). Returns what was done, and the error that ended the read
    /// early, if one did.
    func run(since: Int64, until: Int64) async -> (report: AppStoreBackfillReport, error: NotificationHistoryError?) {
        var report = AppStoreBackfillReport()
        let key: [UInt8]
        do {
            key = try store.subscriptionHashKey()
        } catch {
            return (report, .store(error))
        }
        do throws(NotificationHistoryError) {
            _ = try await client.readAll(NotificationHistoryRequest(startDate: since, endDate: until)) {
                page, items throws(NotificationHistoryError) in
                report.pages = page
                report.fetched += items.count
                let receivedAt = Int64(Date().timeIntervalSince1970 * 1000)
                var records: [NotificationRecord] = []
                for (index, item) in items.enumerated() {
                    do throws(AppStoreVerificationError) {
                        let verified = try verifier.verifyNotification(signedPayload: item.signedPayload)
                        records.append(NotificationRecord(verified: verified, subscriptionKey: key, receivedAt: receivedAt))
                    } catch {
                        report.refused[error.reason.rawValue, default: 0] += 1
                        report.refusals.append("refused notification \(index + 1) of page \(page): \(error)")
                    }
                }
                guard !records.isEmpty else { return }
                let stored: [Bool]
                do {
                    stored = try store.storeNotifications(records)
                } catch {
                    throw .store(error)
                }
                let new = stored.count { $0 }
                report.stored += new
                report.alreadyStored += stored.count - new
            }
        } catch {
            return (report, error)
        }
        return (report, nil)
    }

    /// Runs `operation` to completion on the calling thread. The task runs on a serial queue of its own, never on
    /// the concurrency pool: a caller on a pool thread (a test calling the command in process) must not block a
    /// thread the task may need.
    static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let box = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let body: @Sendable () async -> Void = {
            let value = await operation()
            box.withLock { $0 = value }
            done.signal()
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            Task(executorPreference: BackfillExecutor.shared) { await body() }
        } else {
            // Task executors (SE-0417) came with macOS 15; before, the task runs on the pool, which is safe for
            // flagserver itself: its main thread is not a pool thread.
            Task { await body() }
        }
        done.wait()
        // The task stored before signalling; the loop only satisfies the type checker without a force unwrap.
        while true {
            if let value = box.withLock({ $0 }) { return value }
            done.wait()
        }
    }
}

/// What a backfill did: `fetched N, stored M new, K already stored, R refused (reason n, ...)`.
struct AppStoreBackfillReport: Sendable, Equatable {
    /// Pages read.
    var pages = 0
    /// Notifications in those pages.
    var fetched = 0
    /// Stored now.
    var stored = 0
    /// Verified, but their `notificationUUID` was stored already.
    var alreadyStored = 0
    /// Refused by the verifier, by reason code (`invalid_signature`, ...); none of them stored.
    var refused: [String: Int] = [:]
    /// One line for each refused notification: where it was and why.
    var refusals: [String] = []

    /// How many were refused.
    var refusedCount: Int { refused.values.reduce(0, +) }

    /// The line the command prints.
    var summary: String {
        let reasons = refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "fetched \(fetched), stored \(stored) new, \(alreadyStored) already stored, \(refusedCount) refused"
            + (reasons.isEmpty ? "" : " (\(reasons))") + " (\(pages) page\(pages == 1 ? "" : "s"))"
    }
}

/// Where `AppStoreBackfill.blocking` runs its tasks: one serial dispatch queue (SE-0417 task executor preference).
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class BackfillExecutor: TaskExecutor {
    /// The one executor.
    static let shared = BackfillExecutor()

    private let queue = DispatchQueue(label: "flagserver.appstore-backfill")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
