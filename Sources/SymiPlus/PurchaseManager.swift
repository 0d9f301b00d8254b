#if canImport(Combine)
import Combine
#endif
import FlagClient
import FlagKit
import Foundation
import SymiCatalog
import SymiSchema

/// The brief's `PurchaseManager` (section 6): loads the Symi Plus products, buys, restores, observes transaction
/// updates from creation on, and knows the active entitlements. Main-actor bound, so the UI reads it directly.
///
/// It works on any ``PurchaseStore`` (``StoreKitPurchaseStore`` in the app, a scripted double in the tests).
/// Entitlements come from verified transactions only and are asked of the store at every launch; nothing is
/// persisted, so no stored value can unlock a feature and none can lock one. When the store fails, the last
/// entitlements verified in this run are kept: a failure never takes access away.
///
/// Observation: an `ObservableObject` where Combine exists (the package deploys to iOS 16, before `@Observable`);
/// everywhere ``states()`` streams every change.
@MainActor
public final class PurchaseManager {
    /// The store asked for everything.
    public let store: any PurchaseStore
    /// The language of ``errorMessage``.
    public var language: SymiPlusLanguage
    /// Who signs an experiment arm's promotional offer (the app's ``FlagClient``); `nil`: such offers are never applied.
    public let offerSigner: (any PromotionalOfferSigning)?
    private let clock: any PurchaseClock

    #if canImport(Combine)
    /// Everything known, published so `objectWillChange` fires before each change (SwiftUI's `ObservableObject`).
    @Published public private(set) var state = PurchaseState(offeredProductIds: SymiCatalog.select(SymiSafeDefaults.subscriptionProductIds).offered)
    #else
    /// Everything known.
    public private(set) var state = PurchaseState(offeredProductIds: SymiCatalog.select(SymiSafeDefaults.subscriptionProductIds).offered)
    #endif

    private var observers: [UUID: AsyncStream<PurchaseState>.Continuation] = [:]
    private var updatesTask: Task<Void, Never>?
    /// The one scheduled store check (a review at ``AccessDecision/reviewAt`` or a retry after a failed read); each
    /// read replaces it.
    private var reviewTask: Task<Void, Never>?
    /// The wait before the next retry after a failed read (``StoreRetryBackoff``); `nil` after a read that answered.
    private var retryDelay: TimeInterval?
    /// When the store is asked again because the last read failed; `nil` when it answered.
    private(set) var retryAt: Date?

    /// A manager on `store`. Starts observing transaction updates and reads the entitlements right away
    /// (`observesAtCreation: false` leaves that to ``start()``). `offerSigner` (the app's ``FlagClient``) signs the
    /// promotional offer an experiment arm names; without one, arms are shown at their products' own terms.
    public init(store: any PurchaseStore, language: SymiPlusLanguage = .german, clock: any PurchaseClock = SystemPurchaseClock(),
                offerSigner: (any PromotionalOfferSigning)? = nil, observesAtCreation: Bool = true) {
        self.store = store
        self.language = language
        self.offerSigner = offerSigner
        self.clock = clock
        if observesAtCreation { start() }
    }

    deinit {
        updatesTask?.cancel()
        reviewTask?.cancel()
    }

    // MARK: The brief's surface

    /// The loaded products, in the flags' order.
    public var products: [StoreProduct] { state.products }
    /// Product ids with an active verified entitlement.
    public var purchasedProductIDs: Set<String> { state.purchasedProductIDs }
    /// Whether the store is being asked for something the user waits for.
    public var isLoading: Bool { state.isLoading }
    /// The friendly message for the current failure, in ``language``; `nil` when there is none (or it was a cancel).
    public var errorMessage: String? { state.error.flatMap(SymiPlusMessages.message(for:))?(language) }
    /// Whether the user has Symi Plus: pass it to `SymiFlagValues.isAvailable(_:entitled:)`.
    public var isPremiumEntitled: Bool { state.isPremiumEntitled }

    /// Starts observing `Transaction.updates`, finishes what an earlier run left unfinished (`Transaction.unfinished`),
    /// reads the current entitlements and statuses, and reads the install's origin (`AppTransaction`). Idempotent;
    /// called by `init` unless told otherwise. Observing from launch matters: renewals, Ask to Buy approvals and
    /// refunds arrive only there.
    public func start() {
        guard updatesTask == nil else { return }
        let updates = store.transactionUpdates()
        updatesTask = Task { [weak self] in
            for await update in updates {
                guard let self else { return }
                await self.handle(update)
            }
        }
        Task {
            await finishUnfinishedTransactions()
            await updatePurchasedProducts()
        }
        Task {
            let origin = await store.installOrigin()
            mutate { $0.installOrigin = origin }
        }
    }

    /// Finishes the transactions an earlier run left unfinished; the verified ones count like updates.
    func finishUnfinishedTransactions() async {
        let unfinished = await store.finishUnfinishedTransactions()
        let now = clock.now()
        mutate { state in
            for case .verified(let entitlement) in unfinished { state.insert(entitlement, activeAt: now) }
            // Decided on the statuses of the last read: only a refund among them may lower access.
            let revoked = unfinished.contains { if case .verified(let entitlement) = $0 { entitlement.revocationDate != nil } else { false } }
            state.decideAccess(now: now, storeFailed: !revoked)
        }
    }

    /// Takes the product ids a flag snapshot offers, through the catalogue: unknown ids are dropped and reported in
    /// ``PurchaseState/ignoredProductIds``. Products already loaded for ids no longer offered disappear.
    public func apply(_ snapshot: FlagSnapshot) {
        let flags = SymiFlagValues(snapshot)
        let selection = SymiCatalog.select(flags.subscriptionProductIds)
        let ids = PaywallChoice.productIds(defaults: selection.offered, paywallProduct: flags.paywallProduct)
        let now = clock.now()
        mutate { state in
            state.offeredProductIds = ids
            state.paywallProductId = ids.count > selection.offered.count ? ids.last : nil
            state.ignoredProductIds = selection.unknown
            state.products = state.products.filter { ids.contains($0.id) }
            if state.paywallProduct != flags.paywallProduct {
                // Another arm (or the end of the experiment): the defaults until the products are loaded again.
                state.paywallProduct = flags.paywallProduct
                state.products = state.products.filter { selection.offered.contains($0.id) }
                state.paywallOutcome = flags.paywallProduct.isEmpty ? .noExperiment : .fallback(.notLoaded)
                state.paywallOffer = .none
            }
            if state.billingRetryAccessDays != flags.billingRetryAccessDays {
                state.billingRetryAccessDays = flags.billingRetryAccessDays
                // The facts have not changed, only the window: what was granted stays (as after a failed read).
                state.decideAccess(now: now, storeFailed: true)
            }
        }
        scheduleReview()
    }

    /// Loads the offered products. A failure leaves the products empty with ``PurchaseState/ProductsPhase/unavailable``;
    /// the rest of the app is unaffected.
    public func loadProducts() async {
        let ids = state.offeredProductIds
        mutate { $0.productsPhase = .loading }
        do {
            let loaded = try await store.products(for: ids)
            mutate { state in
                // The flags' order, and only what was asked for: a store that answers more is not trusted to widen it.
                let asked = ids.compactMap { id in loaded.first { $0.id == id } }
                let defaults = state.defaultProductIds.compactMap { id in asked.first { $0.id == id } }
                let choice = PaywallChoice.choose(defaults: defaults, loaded: asked, paywallProduct: state.paywallProduct)
                state.products = choice.products
                state.paywallOutcome = choice.outcome
                state.productsPhase = .loaded
            }
            await prepareOffer()
        } catch {
            mutate { state in
                state.products = []
                state.productsPhase = .unavailable(error)
            }
        }
    }

    /// Buys `product`. Verified: the entitlement counts at once and the store is asked again. Unverified: ignored.
    /// Pending (Ask to Buy): the result comes as a transaction update. Cancelled: no message. Failed: a friendly one.
    ///
    /// The arm's product with its offer applied (``PaywallOffer/applied(product:offer:signature:)``) is bought with
    /// the offer's signature, a fresh one when the one held was used or is too old. When none can be had, or the App
    /// Store refuses the offer, nothing is bought, the failure says so, and the product is shown at its own terms.
    public func purchase(_ product: StoreProduct) async {
        guard !state.isBusy else { return }
        mutate { $0.activity = .purchasing(productId: product.id) }
        var signature: PromotionalOfferSignature?
        if let (terms, held) = state.paywallOffer.applied(to: product.id) {
            do {
                signature = try await usableSignature(product: product.id, offer: terms.id, held: held)
            } catch {
                mutate { state in
                    state.paywallOffer = .notApplied(product: product.id, offer: terms.id, reason: .signingFailed(error.description))
                    state.activity = .failed(StoreError(.offerUnavailable, cause: error.description))
                }
                return
            }
            // A nonce is for one purchase, whatever its result: the next purchase asks for a new signature.
            mutate { $0.paywallOffer = .applied(product: product.id, offer: terms, signature: nil) }
        }
        let outcome: PurchaseOutcome
        do {
            outcome = try await store.purchase(product.id, offer: signature)
        } catch {
            mutate { state in
                if error.kind == .offerRefused, let signature {
                    state.paywallOffer = .notApplied(product: product.id, offer: signature.offer, reason: .refusedByStore)
                }
                state.activity = error.kind == .cancelled ? .cancelled : .failed(error)
            }
            return
        }
        switch outcome {
        case .verified(let entitlement):
            let now = clock.now()
            mutate { state in
                state.activity = .purchased(productId: product.id)
                state.insert(entitlement, activeAt: now)
                // A purchase only adds; the store's next answer decides the rest.
                state.decideAccess(now: now, storeFailed: true)
            }
            await updatePurchasedProducts()
        case .unverified(let productId, _):
            mutate { $0.activity = .unverified(productId: productId) }
        case .pending:
            mutate { $0.activity = .pending(productId: product.id) }
        case .userCancelled:
            mutate { $0.activity = .cancelled }
        }
    }

    /// Restore (brief: "Restore Purchases unterstützen"): `AppStore.sync()`, then the entitlements again.
    public func restorePurchases() async {
        guard !state.isBusy else { return }
        mutate { $0.activity = .restoring }
        do {
            try await store.sync()
        } catch {
            mutate { $0.activity = error.kind == .cancelled ? .cancelled : .failed(error) }
            return
        }
        if let error = await refreshEntitlements() {
            // The sync worked but the result cannot be read: saying "nothing found" would be a guess.
            mutate { $0.activity = .failed(StoreError(.syncFailed, cause: "entitlements after sync: \(error.cause)")) }
            return
        }
        mutate { $0.activity = .restored(foundPurchases: $0.isPremiumEntitled) }
    }

    /// Reads the current entitlements from the store (at launch, after a purchase or restore, on every transaction
    /// update, when a subscription's period ends, and after a failed read with backoff). A failure keeps the
    /// entitlements verified so far. The app may call it when it comes to the foreground (as RevenueCat refreshes a
    /// stale customer info then).
    public func updatePurchasedProducts() async {
        // Nothing to show on failure: the user did not ask for this, and keeping what was verified locks nobody out.
        _ = await refreshEntitlements()
    }

    /// Reads the entitlements and the statuses, decides access, and schedules the next review; the entitlements'
    /// error, if that read failed. Any failure keeps what was decided earlier in this run (``AccessInput/storeFailed``)
    /// and schedules a retry with backoff (``StoreRetryBackoff``), so that a kept decision does not outlive the
    /// store's answer for the rest of the session; an answer resets the backoff.
    private func refreshEntitlements() async -> StoreError? {
        defer { scheduleReview() }
        var listed: [StoreEntitlement]?
        var entitlementsError: StoreError?
        do {
            listed = try await store.currentEntitlements()
        } catch {
            entitlementsError = error
        }
        var statuses: [SubscriptionStatus]?
        do {
            statuses = try await store.subscriptionStatuses()
        } catch {
            statuses = nil
        }
        let now = clock.now()
        let failed = listed == nil || statuses == nil
        mutate { state in
            if let listed {
                state.entitlements = listed.filter { $0.revocationDate == nil }
                state.entitlementsChecked = true
            }
            if let statuses {
                state.statuses = statuses
                state.statusesChecked = true
            }
            state.decideAccess(now: now, storeFailed: failed)
        }
        if failed {
            let delay = StoreRetryBackoff.delay(after: retryDelay)
            retryDelay = delay
            retryAt = now.addingTimeInterval(delay)
        } else {
            retryDelay = nil
            retryAt = nil
        }
        // The statuses decide whether the arm's offer may be applied (a lapsed subscriber may take it, a new one not).
        if statuses != nil { await prepareOffer() }
        return entitlementsError
    }

    /// Decides whether the arm's promotional offer is applied (``PaywallOffer/next(outcome:current:statusesChecked:statuses:hasSigner:nowMilliseconds:)``),
    /// and asks the signer when it may be: applied with the signature, or not applied with the signer's error. A
    /// choice that changed while the server answered (another arm, new products) is left to its own preparation.
    func prepareOffer() async {
        let step = PaywallOffer.next(outcome: state.paywallOutcome, current: state.paywallOffer,
                                     statusesChecked: state.statusesChecked, statuses: state.statuses,
                                     hasSigner: offerSigner != nil, nowMilliseconds: Self.milliseconds(clock.now()))
        switch step {
        case .set(let offer):
            mutate { $0.paywallOffer = offer }
        case .sign(let productId, let offerId):
            let outcome = state.paywallOutcome
            let result: Result<PromotionalOfferSignature, OfferSignatureError>
            do {
                result = .success(try await usableSignature(product: productId, offer: offerId, held: nil))
            } catch {
                result = .failure(error)
            }
            mutate { state in
                guard state.paywallOutcome == outcome,
                      let terms = state.products.first(where: { $0.id == productId })?.promotionalOffers.first(where: { $0.id == offerId })
                else { return }
                switch result {
                case .success(let signature): state.paywallOffer = .applied(product: productId, offer: terms, signature: signature)
                case .failure(let error): state.paywallOffer = .notApplied(product: productId, offer: offerId, reason: .signingFailed(error.description))
                }
            }
        }
    }

    /// `held` when it may still be used now, else a new signature from the signer.
    private func usableSignature(product: String, offer: String, held: PromotionalOfferSignature?) async throws(OfferSignatureError)
        -> PromotionalOfferSignature {
        if let held, held.isUsable(at: Self.milliseconds(clock.now())) { return held }
        guard let offerSigner else { throw .invalidConfiguration("no offer signer") }
        return try await offerSigner.offerSignature(product: product, offer: offer, appAccountToken: nil)
    }

    /// Milliseconds since 1970, as signatures carry their time.
    nonisolated static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Clears a shown result (after the user dismissed a message); an action under way is left alone.
    public func dismissResult() {
        if state.isBusy { return }
        mutate { $0.activity = .idle }
    }

    // MARK: Internals

    /// A transaction update: a verified one is applied at once (a revoked or expired one removes its product), then
    /// the store is asked again for the whole picture. An unverified one changes nothing.
    private func handle(_ update: StoreTransactionUpdate) async {
        guard case .verified(let entitlement) = update else { return }
        let now = clock.now()
        mutate { state in
            state.insert(entitlement, activeAt: now)
            // Decided on the statuses of the last read, which may be stale (a kept decision after a failed read): only
            // a verified revocation (a refund) lowers access here; the store's answer right after decides the rest.
            state.decideAccess(now: now, storeFailed: entitlement.revocationDate == nil)
            if case .pending(let productId) = state.activity, productId == entitlement.productId, entitlement.isActive(at: now) {
                state.activity = .purchased(productId: productId)
            }
        }
        await updatePurchasedProducts()
    }

    /// Asks the store again when the decision may change by itself (``AccessDecision/reviewAt``: a period, grace period
    /// or courtesy window ending): StoreKit sends no update for an expiry. Only the store's answer changes access then;
    /// the clock alone never ends it (a grace period outlives the transaction's `expirationDate`, and a store that
    /// cannot be asked takes nothing away). After a failed read, also at ``retryAt``; the earlier of the two wins, and
    /// the read it makes schedules the next one.
    private func scheduleReview() {
        reviewTask?.cancel()
        let now = clock.now()
        let review = state.access.reviewAt.flatMap { $0 > now ? $0 : nil }
        guard let next = [review, retryAt].compactMap({ $0 }).min() else { return }
        let clock = clock
        reviewTask = Task { [weak self] in
            do {
                try await clock.sleep(until: next)
            } catch {
                return
            }
            // A clock may return from a sleep whose task was cancelled meanwhile (a newer check replaced it).
            guard !Task.isCancelled, let self else { return }
            await self.updatePurchasedProducts()
        }
    }

    /// Changes the state; observers hear of it only when something changed.
    private func mutate(_ change: (inout PurchaseState) -> Void) {
        var next = state
        change(&next)
        guard next != state else { return }
        state = next
        for observer in observers.values { observer.yield(next) }
    }

    /// Every state from now on, starting with the current one: the platform-neutral observation (the Linux tests,
    /// or an app that prefers async sequences to Combine).
    public func states() -> AsyncStream<PurchaseState> {
        let (stream, continuation) = AsyncStream.makeStream(of: PurchaseState.self, bufferingPolicy: .unbounded)
        let id = UUID()
        observers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.observers[id] = nil }
        }
        return stream
    }
}

#if canImport(Combine)
extension PurchaseManager: ObservableObject {}
#endif

extension PurchaseState {
    /// Applies one verified transaction. Active, it replaces the entitlement of its product. Revoked, it removes every
    /// entitlement of its subscription (same original purchase); expired, the ones it is not older than, so that a
    /// late update for a past period cannot end the renewal that followed it.
    mutating func insert(_ entitlement: StoreEntitlement, activeAt date: Date) {
        if entitlement.isActive(at: date) {
            entitlements.removeAll { $0.productId == entitlement.productId }
            entitlements.append(entitlement)
            return
        }
        entitlements.removeAll { existing in
            guard existing.transactionId == entitlement.transactionId
                || existing.originalTransactionId == entitlement.originalTransactionId else { return false }
            return entitlement.revocationDate != nil || existing.purchaseDate <= entitlement.purchaseDate
        }
        // A refund ends the subscription whatever the last status read said.
        if entitlement.revocationDate != nil {
            for index in statuses.indices where statuses[index].transaction.originalTransactionId == entitlement.originalTransactionId {
                statuses[index].state = .revoked
            }
        }
    }

    /// Whether a purchase or restore is under way (a second one waits for the user to see the first one's result).
    var isBusy: Bool {
        switch activity {
        case .purchasing, .restoring: true
        default: false
        }
    }
}
