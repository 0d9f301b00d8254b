import Foundation

/// The one access decision of Symi Plus: a pure function from verified facts to ``AccessDecision``, tested as a table.
///
/// - Subscribed (or a verified transaction the store lists): entitled.
/// - Billing grace period: entitled until the grace period ends.
/// - Billing retry: entitled until `billingRetryAccessDays` after the paid period ended, with the billing notice.
/// - Expired or revoked: not entitled.
/// - The store failing: what was decided earlier in this run stays; a failure never takes access away.
///
/// A status is the most specific fact about its subscription: it decides over a listed transaction of the same
/// subscription unless that transaction is newer (a renewal that arrived after the status was read).
public enum SymiPlusAccess {
    /// Seconds in the courtesy window's unit.
    static let day: TimeInterval = 86_400

    /// The decision for `input`.
    public static func decide(_ input: AccessInput) -> AccessDecision {
        let fresh = decideFromFacts(input)
        guard input.storeFailed, let earlier = input.earlier, earlier.isEntitled, !fresh.isEntitled else { return fresh }
        var kept = earlier
        kept.keptAfterStoreFailure = true
        return kept
    }

    /// One way of being entitled, found in the facts.
    struct Grant {
        var basis: AccessDecision.Basis
        var until: Date?
        var transaction: StoreEntitlement
        var status: SubscriptionStatus?

        /// Subscribed beats grace beats courtesy; then the later end.
        func isBetter(than other: Grant) -> Bool {
            if rank != other.rank { return rank > other.rank }
            return (until ?? .distantFuture) > (other.until ?? .distantFuture)
        }

        var rank: Int {
            switch basis {
            case .subscribed: 3
            case .gracePeriod: 2
            case .billingRetryCourtesy: 1
            case .none: 0
            }
        }
    }

    static func decideFromFacts(_ input: AccessInput) -> AccessDecision {
        let statuses = input.statuses.filter { input.productIds.contains($0.transaction.productId) }
        var grants: [Grant] = []
        var issue: AccessDecision.BillingIssue?
        var reviewDates: [Date] = []
        for status in statuses {
            let transaction = status.transaction
            switch status.state {
            case .subscribed:
                grants.append(Grant(basis: .subscribed, until: transaction.expirationDate, transaction: transaction, status: status))
                reviewDates += [transaction.expirationDate].compactMap { $0 }
            case .inGracePeriod, .inBillingRetryPeriod:
                let graceEnd = status.renewal.gracePeriodExpirationDate
                let paidEnd = transaction.expirationDate ?? input.now
                let courtesyEnd = input.billingRetryAccessDays > 0
                    ? paidEnd.addingTimeInterval(Double(input.billingRetryAccessDays) * day) : nil
                let grant: Grant?
                if status.state == .inGracePeriod, graceEnd == nil {
                    // StoreKit says "grace" without a date: entitled while it says so (Apple: full service in grace).
                    grant = Grant(basis: .gracePeriod, until: nil, transaction: transaction, status: status)
                } else if let end = [graceEnd, courtesyEnd].compactMap({ $0 }).max(), input.now < end {
                    let inGrace = graceEnd.map { input.now < $0 } ?? false
                    grant = Grant(basis: inGrace ? .gracePeriod : .billingRetryCourtesy, until: end, transaction: transaction,
                                  status: status)
                    reviewDates += [graceEnd, end].compactMap { $0 }
                } else {
                    grant = nil
                }
                if let grant {
                    grants.append(grant)
                    issue = AccessDecision.BillingIssue(inGracePeriod: grant.basis == .gracePeriod, accessUntil: grant.until)
                } else if issue == nil {
                    issue = AccessDecision.BillingIssue(inGracePeriod: false, accessUntil: nil)
                }
            case .expired, .revoked:
                break
            }
        }
        for entitlement in input.entitlements where input.productIds.contains(entitlement.productId) && entitlement.revocationDate == nil {
            // A status of the same subscription at least as new as this transaction already decided.
            let described = statuses.contains { status in
                status.transaction.originalTransactionId == entitlement.originalTransactionId
                    && status.transaction.purchaseDate >= entitlement.purchaseDate
            }
            if described { continue }
            grants.append(Grant(basis: .subscribed, until: entitlement.expirationDate, transaction: entitlement, status: nil))
            // Listed past its date without a status (a grace period StoreKit did not describe): ask again daily.
            reviewDates += [entitlement.expirationDate.map { $0 > input.now ? $0 : input.now.addingTimeInterval(day) }]
                .compactMap { $0 }
        }
        let reviewAt = reviewDates.filter { $0 > input.now }.min()
        guard let best = grants.dropFirst().reduce(grants.first, { best, grant in
            guard let best else { return grant }
            return grant.isBetter(than: best) ? grant : best
        }) else {
            return AccessDecision(isEntitled: false, basis: .none, reviewAt: reviewAt, billingIssue: issue)
        }
        let renewal = best.status?.renewal
        // Dates already past (a grace period StoreKit lists without a status) are not shown as "renews on".
        let upcomingEnd = best.transaction.expirationDate.flatMap { $0 > input.now ? $0 : nil }
        let paidUp = best.basis == .subscribed
        let cancelled = paidUp && renewal.map { !$0.willAutoRenew } == true
        let switchTarget = renewal.flatMap { info in
            info.willAutoRenew && info.autoRenewProductId != nil && info.autoRenewProductId != info.currentProductId
                ? info.autoRenewProductId : nil
        }
        return AccessDecision(
            isEntitled: true, basis: best.basis, productId: best.transaction.productId, transactionId: best.transaction.transactionId,
            reviewAt: reviewAt, billingIssue: paidUp ? nil : issue,
            priceIncreasePending: paidUp && renewal?.willAutoRenew == true && renewal?.priceIncreaseStatus == .pending,
            endsAt: cancelled ? upcomingEnd : nil,
            switchesTo: paidUp ? switchTarget : nil,
            periodEnd: upcomingEnd)
    }
}
