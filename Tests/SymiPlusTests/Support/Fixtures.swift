import FlagClient
import FlagKit
import Foundation
import SymiPlus
import TestSupport

/// Products, entitlements and flag snapshots built from the repository's real documents.
enum Fixtures {
    /// The tests' "now".
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A month later.
    static let inAMonth = now.addingTimeInterval(30 * 86_400)

    /// The repository root (for `flags/*.json` and `storekit/`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `symi_plus_monthly` with StoreKit's German price and, by default, a free month this user is eligible for.
    static func monthly(intro: StoreProduct.IntroductoryOffer.PaymentMode? = .free, eligible: Bool = true) -> StoreProduct {
        StoreProduct(id: "symi_plus_monthly", displayName: "Symi Plus monatlich", description: "Alle Premium-Funktionen",
                     displayPrice: "2,99 €", subscriptionPeriod: .month,
                     introductoryOffer: intro.map { StoreProduct.IntroductoryOffer(paymentMode: $0, displayPrice: $0 == .free ? "0,00 €" : "0,99 €",
                                                                                      period: .month, isEligible: eligible) })
    }

    /// `symi_plus_yearly`, without an introductory offer by default.
    static func yearly(intro: StoreProduct.IntroductoryOffer.PaymentMode? = nil, eligible: Bool = true) -> StoreProduct {
        StoreProduct(id: "symi_plus_yearly", displayName: "Symi Plus jährlich", description: "Alle Premium-Funktionen",
                     displayPrice: "29,99 €", subscriptionPeriod: .year,
                     introductoryOffer: intro.map { StoreProduct.IntroductoryOffer(paymentMode: $0, displayPrice: "0,00 €",
                                                                                      period: .month, isEligible: eligible) })
    }

    /// A verified monthly subscription bought now, running for a month unless told otherwise.
    static func entitlement(_ productId: String = "symi_plus_monthly", id: UInt64 = 1, original: UInt64 = 1,
                            purchased: Date = now, expires: Date? = inAMonth, revoked: Date? = nil) -> StoreEntitlement {
        StoreEntitlement(productId: productId, transactionId: id, originalTransactionId: original, purchaseDate: purchased,
                         expirationDate: expires, revocationDate: revoked)
    }

    /// `state` with its access decided on its own facts at `now` (what the manager does after each read).
    static func decided(_ state: PurchaseState, at date: Date = now) -> PurchaseState {
        var decided = state
        decided.decideAccess(now: date, storeFailed: false)
        return decided
    }

    /// Renewal info for `productId` (renewing as it is unless told otherwise).
    static func renewal(_ productId: String = "symi_plus_monthly", willAutoRenew: Bool = true, to next: String? = nil,
                        priceIncrease: SubscriptionRenewalInfo.PriceIncreaseStatus = .noIncreasePending, graceUntil: Date? = nil,
                        retrying: Bool = false, expired: SubscriptionRenewalInfo.ExpirationReason? = nil) -> SubscriptionRenewalInfo {
        SubscriptionRenewalInfo(currentProductId: productId, willAutoRenew: willAutoRenew, autoRenewProductId: next,
                                expirationReason: expired, priceIncreaseStatus: priceIncrease, gracePeriodExpirationDate: graceUntil,
                                isInBillingRetry: retrying)
    }

    /// A verified status of `transaction`.
    static func status(_ state: SubscriptionStatus.RenewalState, _ transaction: StoreEntitlement = entitlement(),
                       _ renewal: SubscriptionRenewalInfo? = nil) -> SubscriptionStatus {
        SubscriptionStatus(state: state, transaction: transaction, renewal: renewal ?? Fixtures.renewal(transaction.productId))
    }

    /// `flags/<name>.json`, decoded.
    static func document(_ name: String = "production") throws -> FlagDocument {
        try FlagDocument.decode([UInt8](try Data(contentsOf: repositoryRoot.appendingPathComponent("flags/\(name).json"))))
    }

    /// `document` with its flags changed by `change`, validated again (the cohorts are kept as they are).
    static func modified(_ document: FlagDocument, _ change: (inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        try document.modified(change)
    }

    /// A German (or, with `locale: "en_US"`, English) install of the app store channel.
    static func context(locale: String = "de_DE", installId: String = "5A1B0000-0000-4000-8000-00000000BEEF") -> EvaluationContext {
        AppContext(appVersion: "2.4.0", osVersion: "17.4", platform: "ios", locale: locale, channel: "appstore")
            .evaluationContext(installId: installId)
    }

    /// `flags/production.json` evaluated for an install.
    static func production(locale: String = "de_DE") throws -> FlagSnapshot {
        FlagSnapshot(document: try document(), context: context(locale: locale))
    }

    /// Production with `premiumFeaturesLocked` true for everyone (the later paid launch).
    static func locked(locale: String = "de_DE") throws -> FlagSnapshot {
        let document = try modified(try document()) { flags in
            flags["premiumFeaturesLocked"] = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true]]
        }
        return FlagSnapshot(document: document, context: context(locale: locale))
    }

    /// Production offering both products (monthly, then yearly), as staging does.
    static func offeringBoth(locale: String = "de_DE") throws -> FlagSnapshot {
        let document = try modified(try document()) { flags in
            flags["subscriptionProductIds"] = ["type": "json", "default": ["symi_plus_monthly", "symi_plus_yearly"]]
        }
        return FlagSnapshot(document: document, context: context(locale: locale))
    }

    /// Production with one boolean flag's default changed.
    static func production(setting key: String, to value: Bool, locale: String = "de_DE") throws -> FlagSnapshot {
        let document = try modified(try document()) { flags in
            guard case .object(var flag)? = flags[key] else { return }
            flag["default"] = .bool(value)
            flags[key] = .object(flag)
        }
        return FlagSnapshot(document: document, context: context(locale: locale))
    }
}

/// Waits (polling the main actor) until the manager's state satisfies `condition`; fails after `seconds`.
@MainActor
func waitUntil(_ manager: PurchaseManager, seconds: Double = 5, _ what: String = "condition",
               _ condition: (PurchaseState) -> Bool) async throws -> PurchaseState {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition(manager.state) {
        guard Date() < deadline else { throw WaitTimeout(what: what, state: manager.state) }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    return manager.state
}

/// A wait that ran out.
struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    let state: PurchaseState
    var description: String { "timed out waiting for \(what); state: \(state)" }
}
