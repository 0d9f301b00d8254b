import AppStoreNotifications
import FlagStore

/// Storing App Store notifications: a group commit of its own, like the publishes'. Apple retries anything but a
/// 200 and every notification costs the receiver a verification, so the answer waits for the durable commit, and
/// the notifications that arrived together share one transaction (one fsync) instead of one each.
extension WriteQueue {
    /// Stores the records of `jobs` (all `.notification`) in one `storeNotifications` call, then answers each:
    /// `.notificationStored(true)` for a record stored now, `false` for one whose `notificationUUID` was there
    /// already (from an earlier delivery, another node, or an earlier job of the same batch), or the store's
    /// failure for all (503: nothing was kept, Apple sends it again).
    func storeNotifications(_ jobs: [WriteJob]) {
        let records = jobs.compactMap { job -> NotificationRecord? in
            if case .notification(let record) = job.kind { return record }
            return nil
        }
        guard records.count == jobs.count else {
            for job in jobs { job.completion(.failed(ServiceError(.internalServerError, code: "internal", message: "internal error"))) }
            return
        }
        let stored: [Bool]
        do {
            stored = try store.storeNotifications(records)
            guard stored.count == records.count else {
                throw FlagStoreError.invalidArgument(name: "records", reason: "the store answered \(stored.count) of \(records.count)")
            }
        } catch {
            health.recordFailure(error)
            logger.log(.error, "appstore_store_failed", ["notifications": "\(records.count)", "error": "\(error)"])
            let refusal = Self.notificationStoreFailure(error)
            for job in jobs { job.completion(.failed(refusal)) }
            return
        }
        health.recordSuccess()
        metrics.batches.add(1, ordering: .relaxed)
        for (record, new) in zip(records, stored) {
            if new {
                metrics.appStore.recordStored(record)
                logger.log(.info, "appstore_notification", [
                    "uuid": record.notificationUUID, "type": record.notificationType, "subtype": record.subtype ?? "-",
                    "environment": record.environment, "product": record.productID ?? "-", "batch": "\(records.count)",
                ])
            } else {
                metrics.appStore.recordDuplicate()
                logger.log(.info, "appstore_duplicate", ["uuid": record.notificationUUID, "type": record.notificationType])
            }
        }
        for (job, new) in zip(jobs, stored) { job.completion(.notificationStored(new)) }
    }

    /// The answer when the notifications could not be stored: 503 with `Retry-After` whatever the cause (Apple retries
    /// on its own schedule; any non-200 makes it), the database's own code where it has one.
    static func notificationStoreFailure(_ error: any Error) -> ServiceError {
        let mapped = ServiceError.store(error)
        if mapped.status == .serviceUnavailable { return mapped }
        return ServiceError(.serviceUnavailable, code: "storage_failed",
                            message: "the notification could not be stored; nothing was kept, send it again",
                            headers: [.retryAfter: "1"])
    }
}
