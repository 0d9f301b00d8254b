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
