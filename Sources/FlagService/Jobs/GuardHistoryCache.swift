import AppStoreNotifications
import FlagStore

/// The stored notifications of complete past hours, kept by the guards' job between its passes (docs/guards.md, "The
/// job"), so that a pass reads the rows of the hours since its last pass (the open one, most of the time) rather than
/// everything from publication − 7 days or from the retention's start, every minute.
///
/// A pass's history is exactly what one read of the store would give: the kept records are checked by counting the
/// stored rows of their range, which only grows, so a late notification (Apple's retries keep their `signedDate`, an
/// hour already kept) changes the count and the range is read again. The retention deletes rows signed before its
/// start, which is also where a pass's read starts at the latest, so its deletions are outside the kept range once
/// a pass drops the records before its start. Used by one pass at a time (`GuardRunner` serializes them).
struct GuardHistoryCache {
    /// What the last `history` call read from the store: the range and the rows.
    struct Read: Equatable {
        var from: Int64
        var to: Int64
        var rows: Int
    }

    /// The kept records: every App Store environment's, `signedDate` in [`from`, `end`), in the store's order.
    private var records: [NotificationRecord] = []
    private var from: Int64 = 0
    /// An hour boundary: the hours before it were complete when they were kept. Nothing is kept while `end` ≤ `from`.
    private var end: Int64 = 0
    /// The last read, for the tests and the log.
    private(set) var lastRead: Read?

    /// Every stored record with `signedDate` in [`from`, `to`), ordered by `signedDate` then `notificationUUID`, as
    /// `FlagStore.notifications(signedFrom:to:)` gives them; keeps those signed before `complete` (the start of the
    /// hour still running) for the next call.
    mutating func history(from: Int64, to: Int64, complete: Int64, store: FlagStore) throws -> [NotificationRecord] {
        let keepUntil = min(complete, to)
        if self.from <= from, from <= end, end <= keepUntil {
            let first = firstIndex(signedAtOrAfter: from)
            // The kept records of [from, end) against the stored rows of that range: equal counts, the same rows.
            if try store.notificationCount(signedFrom: from, to: end) == records.count - first {
                let fresh = try store.notifications(signedFrom: end, to: to)
                lastRead = Read(from: end, to: to, rows: fresh.count)
                let history = Array(records[first...]) + fresh
                keep(history, from: from, end: keepUntil)
                return history
            }
        }
        let history = try store.notifications(signedFrom: from, to: to)
        lastRead = Read(from: from, to: to, rows: history.count)
        keep(history, from: from, end: keepUntil)
        return history
    }

    /// Forgets what is kept (no guard watches: the memory is not held for nothing).
    mutating func clear() {
        records = []
        from = 0
        end = 0
    }

    private mutating func keep(_ history: [NotificationRecord], from: Int64, end: Int64) {
        self.from = from
        self.end = max(from, end)
        var count = history.count
        while count > 0, history[count - 1].signedDate >= self.end { count -= 1 }
        records = Array(history.prefix(count))
    }

    /// The index of the first kept record signed at or after `time` (binary search: they are in `signedDate` order).
    private func firstIndex(signedAtOrAfter time: Int64) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = low + (high - low) / 2
            if records[middle].signedDate < time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
