import Foundation
import SymiCatalog
import SymiPlus

/// What the App Store would report for a synthetic install on a given day: the verified entitlements StoreKit lists
/// and the subscription group's statuses, built from its ``SyntheticInstall/Standing`` as ``StoreKitPurchaseStore``
/// would convert them. Nothing here decides access: ``SymiPlusAccess`` does, as in the app.
public enum StoreFacts {
    static let day: TimeInterval = 86_400

    /// The access input for `install` at `now` (`billingRetryAccessDays` from its flags).
    public static func input(for install: SyntheticInstall, at now: Date, billingRetryAccessDays: Int, number: Int) -> AccessInput {
        let (entitlements, statuses) = facts(install.standing, at: now, number: UInt64(number))
        return AccessInput(entitlements: entitlements, statuses: statuses, billingRetryAccessDays: billingRetryAccessDays, now: now)
    }

    /// Listed entitlements and statuses for `standing` at `now`; `number` makes the transaction ids unique.
    static func facts(_ standing: SyntheticInstall.Standing, at now: Date, number: UInt64)
        -> (entitlements: [StoreEntitlement], statuses: [SubscriptionStatus]) {
        let product = number % 3 == 0 ? SymiCatalog.yearly.id : SymiCatalog.monthly.id
        func transaction(expires offset: Double, revoked: Bool = false) -> StoreEntitlement {
            StoreEntitlement(productId: product, transactionId: number * 10 + 1, originalTransactionId: number * 10,
                             purchaseDate: now.addingTimeInterval((offset - 30) * day),
                             expirationDate: now.addingTimeInterval(offset * day),
                             revocationDate: revoked ? now.addingTimeInterval(-2 * day) : nil)
        }
        func status(_ state: SubscriptionStatus.RenewalState, _ transaction: StoreEntitlement,
                    _ renewal: SubscriptionRenewalInfo) -> SubscriptionStatus {
            SubscriptionStatus(state: state, transaction: transaction, renewal: renewal)
        }
        switch standing {
        case .neverSubscribed:
            return ([], [])
        case .freeIntro:
            let active = transaction(expires: 5)
            return ([active], [status(.subscribed, active, SubscriptionRenewalInfo(currentProductId: product))])
        case .paying:
            let active = transaction(expires: 20)
            return ([active], [status(.subscribed, active, SubscriptionRenewalInfo(currentProductId: product))])
        case .gracePeriod:
            // StoreKit still lists it although its date passed; the status says grace until its end.
            let listed = transaction(expires: -2)
            return ([listed], [status(.inGracePeriod, listed, SubscriptionRenewalInfo(
                currentProductId: product, expirationReason: .billingError,
                gracePeriodExpirationDate: now.addingTimeInterval(14 * day), isInBillingRetry: true))])
        case .billingRetry, .billingRetryLapsed:
            // No grace period: StoreKit no longer lists it; only the status tells.
            let ended = transaction(expires: standing == .billingRetry ? -1 : -10)
            return ([], [status(.inBillingRetryPeriod, ended, SubscriptionRenewalInfo(
                currentProductId: product, expirationReason: .billingError, isInBillingRetry: true))])
        case .cancelledButActive:
            let active = transaction(expires: 9)
            return ([active], [status(.subscribed, active, SubscriptionRenewalInfo(
                currentProductId: product, willAutoRenew: false, expirationReason: .autoRenewDisabled))])
        case .refunded:
            let revoked = transaction(expires: 12, revoked: true)
            return ([], [status(.revoked, revoked, SubscriptionRenewalInfo(currentProductId: product, willAutoRenew: false))])
        case .expired:
            let ended = transaction(expires: -40)
            return ([], [status(.expired, ended, SubscriptionRenewalInfo(
                currentProductId: product, willAutoRenew: false, expirationReason: .autoRenewDisabled))])
        }
    }
}
