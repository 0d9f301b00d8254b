import Foundation

/// How long ``PurchaseManager`` waits before asking the store again after a read failed: 30 seconds, doubling with
/// each failure in a row up to 15 minutes, back to 30 seconds after the store answers.
///
/// Why retry at all: a failed read keeps the earlier decision (a failure never takes access away), and without another
/// read that kept decision would last until the next transaction update or launch, possibly a whole session after the
/// store's own answer changed (a grace period that ended while the store could not be asked). Why back off: a device
/// offline for an afternoon should not wake up every 30 seconds; 15 minutes keeps the lag of a kept decision short
/// against periods of days and months, at four reads an hour.
public enum StoreRetryBackoff {
    /// The first wait after a read that followed an answer.
    public static let first: TimeInterval = 30
    /// The longest wait.
    public static let cap: TimeInterval = 15 * 60

    /// The wait after a failed read, given the wait before it (`nil`: the read before answered).
    public static func delay(after previous: TimeInterval?) -> TimeInterval {
        guard let previous else { return first }
        return min(previous * 2, cap)
    }
}
