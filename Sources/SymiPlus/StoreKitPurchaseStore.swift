#if canImport(StoreKit)
import FlagKit
import Foundation
import StoreKit
import SymiCatalog

/// ``PurchaseStore`` on StoreKit 2: the only file of the module that touches StoreKit.
///
/// NOT COMPILED ON THE LINUX MACHINES THAT BUILD THIS PACKAGE (no Apple SDK there): written against Apple's StoreKit 2
/// documentation and checked by hand; build it in Xcode before relying on it (docs/monetization.md lists it).
///
/// Only `VerificationResult.verified` counts; a verified transaction is finished once it has been turned into an
/// entitlement; unverified ones are reported and never finished, so StoreKit delivers them again.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public struct StoreKitPurchaseStore: PurchaseStore {
    /// The App Store through StoreKit 2.
    public init() {}

    /// `Product.products(for:)`, with each introductory offer's eligibility (`isEligibleForIntroOffer`).
    public func products(for ids: [String]) async throws(StoreError) -> [StoreProduct] {
        let products: [Product]
        do {
            products = try await Product.products(for: ids)
        } catch {
            throw StoreError(.productsUnavailable, causedBy: error)
        }
        var result: [StoreProduct] = []
        for product in products { result.append(await Self.storeProduct(product)) }
        return result
    }

    /// `product.purchase(options:)`, with `offer` as `.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)` (and
    /// its `appAccountToken`, which the signature covers); a verified transaction is finished and returned as an
    /// entitlement. The App Store's refusal of the offer (`Product.PurchaseError.ineligibleForOffer`, a bad signature)
    /// is ``StoreError/Kind/offerRefused``.
    public func purchase(_ productId: String, offer: PromotionalOfferSignature?) async throws(StoreError) -> PurchaseOutcome {
        let found: [Product]
        do {
            found = try await Product.products(for: [productId])
        } catch {
            throw StoreError(.productsUnavailable, causedBy: error)
        }
        guard let product = found.first else { throw StoreError(.unknownProduct, cause: "no App Store product \(productId)") }
        let options = try Self.purchaseOptions(offer)
        let result: Product.PurchaseResult
        do {
            result = try await product.purchase(options: options)
        } catch StoreKitError.userCancelled {
            return .userCancelled
        } catch let error as Product.PurchaseError {
            switch error {
            case .ineligibleForOffer, .invalidOfferIdentifier, .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters:
                throw StoreError(.offerRefused, causedBy: error)
            default:
                throw StoreError(.purchaseFailed, causedBy: error)
            }
        } catch {
            throw StoreError(.purchaseFailed, causedBy: error)
        }
        switch result {
        case .success(.verified(let transaction)):
            let entitlement = Self.entitlement(transaction)
            await transaction.finish()
            return .verified(entitlement)
        case .success(.unverified(let transaction, let verificationError)):
            return .unverified(productId: transaction.productID, reason: String(describing: verificationError))
        case .pending:
            return .pending
        case .userCancelled:
            return .userCancelled
        @unknown default:
            throw StoreError(.purchaseFailed, cause: "unknown purchase result \(String(describing: result))")
        }
    }

    /// `Transaction.currentEntitlements`, verified ones only, revoked ones left out. Not filtered by date: StoreKit
    /// lists a subscription in its billing grace period with an `expirationDate` in the past, and it keeps access.
    public func currentEntitlements() async throws(StoreError) -> [StoreEntitlement] {
        var result: [StoreEntitlement] = []
        for await verification in StoreKit.Transaction.currentEntitlements {
            guard case .verified(let transaction) = verification, transaction.revocationDate == nil else { continue }
            result.append(Self.entitlement(transaction))
        }
        return result
    }

    /// The statuses of the Symi Plus group: `product.subscription?.status` on a catalogue product (every product of a
    /// group reports the whole group; App Store Connect's numeric group id is never needed). A status counts only when
    /// both its transaction and its renewal info are `.verified`.
    public func subscriptionStatuses() async throws(StoreError) -> [SubscriptionStatus] {
        let subscription: Product.SubscriptionInfo?
        do {
            subscription = try await Product.products(for: SymiCatalog.products.map(\.id)).first { $0.subscription != nil }?.subscription
        } catch {
            throw StoreError(.statusUnavailable, causedBy: error)
        }
        // StoreKit answers an empty list when it cannot resolve the products: that is a failed read, not "no
        // subscription" (read as an answer, it would end a billing-retry subscriber's courtesy access).
        guard let subscription else { throw StoreError(.statusUnavailable, cause: "the App Store returned no Symi Plus subscription product") }
        let statuses: [Product.SubscriptionInfo.Status]
        do {
            statuses = try await subscription.status
        } catch {
            throw StoreError(.statusUnavailable, causedBy: error)
        }
        return statuses.compactMap(Self.subscriptionStatus)
    }

    /// `Transaction.unfinished`: verified transactions are finished (their entitlement is returned), unverified ones are
    /// reported and left for StoreKit to deliver again.
    public func finishUnfinishedTransactions() async -> [StoreTransactionUpdate] {
        var result: [StoreTransactionUpdate] = []
        for await verification in StoreKit.Transaction.unfinished {
            result.append(await Self.finishedUpdate(verification))
        }
        return result
    }

    /// `AppTransaction.shared` (iOS 16): the first download date and version when verified, else unknown.
    public func installOrigin() async -> InstallOrigin {
        guard #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) else {
            return .unknown("AppTransaction needs iOS 16")
        }
        do {
            switch try await AppTransaction.shared {
            case .verified(let transaction):
                return .verified(firstInstallDate: transaction.originalPurchaseDate, originalAppVersion: transaction.originalAppVersion)
            case .unverified(_, let verificationError):
                return .unknown("unverified app transaction: \(verificationError)")
            }
        } catch {
            return .unknown("app transaction unavailable: \(error)")
        }
    }

    /// `Transaction.updates` as a stream; verified transactions are finished after they were converted. Cancelling
    /// the consumer (or dropping the stream) ends the loop.
    public func transactionUpdates() -> AsyncStream<StoreTransactionUpdate> {
        AsyncStream { continuation in
            let task = Task {
                for await verification in StoreKit.Transaction.updates {
                    continuation.yield(await Self.finishedUpdate(verification))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// `AppStore.sync()`: may show the App Store sign-in; cancelling it is not an error to show.
    public func sync() async throws(StoreError) {
        do {
            try await AppStore.sync()
        } catch StoreKitError.userCancelled {
            throw StoreError(.cancelled, cause: "App Store sign-in cancelled")
        } catch {
            throw StoreError(.syncFailed, causedBy: error)
        }
    }

    // MARK: Conversions

    /// A transaction from `Transaction.updates` or `Transaction.unfinished` as an update: a verified one is finished
    /// once converted; an unverified one is reported and left unfinished, so StoreKit delivers it again.
    static func finishedUpdate(_ verification: VerificationResult<StoreKit.Transaction>) async -> StoreTransactionUpdate {
        switch verification {
        case .verified(let transaction):
            let update = StoreTransactionUpdate.verified(entitlement(transaction))
            await transaction.finish()
            return update
        case .unverified(let transaction, let verificationError):
            return .unverified(productId: transaction.productID, reason: String(describing: verificationError))
        }
    }

    /// The purchase options of a signed offer: none without one. The server's text forms are turned into StoreKit's
    /// types here (a nonce that is no UUID or a signature that is no base64 refuses the offer, buying nothing).
    static func purchaseOptions(_ offer: PromotionalOfferSignature?) throws(StoreError) -> Set<Product.PurchaseOption> {
        guard let offer else { return [] }
        guard let nonce = UUID(uuidString: offer.nonce), let signature = Data(base64Encoded: offer.signature),
              let timestamp = Int(exactly: offer.timestamp) else {
            throw StoreError(.offerRefused, cause: "the signature of \(offer.product)/\(offer.offer) is not in StoreKit's form")
        }
        var options: Set<Product.PurchaseOption> = [
            .promotionalOffer(offerID: offer.offer, keyID: offer.keyID, nonce: nonce, signature: signature, timestamp: timestamp),
        ]
        if let token = offer.appAccountToken {
            guard let uuid = UUID(uuidString: token) else {
                throw StoreError(.offerRefused, cause: "the appAccountToken \(token) is not a UUID")
            }
            options.insert(.appAccountToken(uuid))
        }
        return options
    }

    static func storeProduct(_ product: Product) async -> StoreProduct {
        var period: StoreProduct.Period?
        var introductoryOffer: StoreProduct.IntroductoryOffer?
        if let subscription = product.subscription {
            period = Self.period(subscription.subscriptionPeriod)
            if let offer = subscription.introductoryOffer, let offerPeriod = Self.period(offer.period),
               let mode = Self.paymentMode(offer.paymentMode) {
                let eligible = await subscription.isEligibleForIntroOffer
                introductoryOffer = StoreProduct.IntroductoryOffer(paymentMode: mode, displayPrice: offer.displayPrice,
                                                                   period: offerPeriod, periodCount: offer.periodCount,
                                                                   isEligible: eligible)
            }
        }
        return StoreProduct(id: product.id, displayName: product.displayName, description: product.description,
                            displayPrice: product.displayPrice, subscriptionPeriod: period, introductoryOffer: introductoryOffer,
                            subscriptionGroupID: product.subscription?.subscriptionGroupID,
                            promotionalOffers: (product.subscription?.promotionalOffers ?? []).compactMap(Self.promotionalOffer))
    }

    static func entitlement(_ transaction: StoreKit.Transaction) -> StoreEntitlement {
        StoreEntitlement(productId: transaction.productID, transactionId: transaction.id,
                         originalTransactionId: transaction.originalID, purchaseDate: transaction.purchaseDate,
                         expirationDate: transaction.expirationDate, revocationDate: transaction.revocationDate)
    }

    /// A verified status, or `nil` when its transaction or renewal info is unverified or its state unknown to this version.
    static func subscriptionStatus(_ status: Product.SubscriptionInfo.Status) -> SubscriptionStatus? {
        guard case .verified(let transaction) = status.transaction, case .verified(let renewal) = status.renewalInfo else {
            return nil
        }
        // `RenewalState` is a struct of static values, not an enum, hence `default`.
        let state: SubscriptionStatus.RenewalState
        switch status.state {
        case .subscribed: state = .subscribed
        case .expired: state = .expired
        case .inBillingRetryPeriod: state = .inBillingRetryPeriod
        case .inGracePeriod: state = .inGracePeriod
        case .revoked: state = .revoked
        default: return nil
        }
        return SubscriptionStatus(state: state, transaction: entitlement(transaction), renewal: renewalInfo(renewal))
    }

    static func renewalInfo(_ info: Product.SubscriptionInfo.RenewalInfo) -> SubscriptionRenewalInfo {
        let priceIncrease: SubscriptionRenewalInfo.PriceIncreaseStatus = switch info.priceIncreaseStatus {
        case .noIncreasePending: .noIncreasePending
        case .pending: .pending
        case .agreed: .agreed
        // A non-frozen SDK enum: Swift 6 needs `@unknown default`; an unknown status mentions no increase.
        @unknown default: .noIncreasePending
        }
        // `ExpirationReason` is a struct of static values as well.
        let reason = info.expirationReason.map { reason -> SubscriptionRenewalInfo.ExpirationReason in
            switch reason {
            case .autoRenewDisabled: .autoRenewDisabled
            case .billingError: .billingError
            case .didNotConsentToPriceIncrease: .didNotConsentToPriceIncrease
            case .productUnavailable: .productUnavailable
            default: .unknown
            }
        }
        return SubscriptionRenewalInfo(currentProductId: info.currentProductID, willAutoRenew: info.willAutoRenew,
                                       autoRenewProductId: info.autoRenewPreference, expirationReason: reason,
                                       priceIncreaseStatus: priceIncrease, gracePeriodExpirationDate: info.gracePeriodExpirationDate,
                                       isInBillingRetry: info.isInBillingRetry, offer: offer(info))
    }

    /// `RenewalInfo.offer` exists from iOS 18; before it the offer is left out rather than read from the deprecated
    /// `offerType`/`offerID` (the screen does not depend on it).
    static func offer(_ info: Product.SubscriptionInfo.RenewalInfo) -> SubscriptionRenewalInfo.Offer? {
        guard #available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let offer = info.offer else { return nil }
        let kind: SubscriptionRenewalInfo.Offer.Kind = switch offer.type {
        case .introductory: .introductory
        case .promotional: .promotional
        case .code: .code
        case .winBack: .winBack
        default: .other
        }
        return SubscriptionRenewalInfo.Offer(kind: kind, id: offer.id)
    }

    /// A promotional offer's terms; `nil` for one without an id or with a period or payment mode this version does not know.
    static func promotionalOffer(_ offer: Product.SubscriptionOffer) -> StoreProduct.PromotionalOffer? {
        guard let id = offer.id, let period = Self.period(offer.period), let mode = Self.paymentMode(offer.paymentMode) else { return nil }
        return StoreProduct.PromotionalOffer(id: id, paymentMode: mode, displayPrice: offer.displayPrice, period: period,
                                             periodCount: offer.periodCount)
    }

    static func period(_ period: Product.SubscriptionPeriod) -> StoreProduct.Period? {
        let unit: StoreProduct.Period.Unit
        switch period.unit {
        case .day: unit = .day
        case .week: unit = .week
        case .month: unit = .month
        case .year: unit = .year
        @unknown default: return nil
        }
        return StoreProduct.Period(value: period.value, unit: unit)
    }

    /// `PaymentMode` is a struct of static values, not an enum, hence `default`.
    static func paymentMode(_ mode: Product.SubscriptionOffer.PaymentMode) -> StoreProduct.IntroductoryOffer.PaymentMode? {
        switch mode {
        case .freeTrial: return .free
        case .payAsYouGo: return .payAsYouGo
        case .payUpFront: return .payUpFront
        default: return nil
        }
    }
}
#endif
