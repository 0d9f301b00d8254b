#if canImport(SwiftUI) && canImport(Combine)
import FlagClient
import StoreKit
import SwiftUI

/// The Symi Plus screen (brief section 4) in Symi's design: a calm page on #F6F4EF, petrol text and buttons, sage for
/// the benefit marks, coral only for the one notice that matters (a planned price change). It lays out
/// ``SymiPlusScreen``; every decision about what to show lives there, tested on Linux.
///
/// NOT COMPILED ON THE LINUX MACHINES THAT BUILD THIS PACKAGE (no SwiftUI there): build it in Xcode
/// (docs/monetization.md lists it). Shown only when the user opens it from settings, the start-screen card or a
/// premium context; never presented by itself.
@available(iOS 16.0, macOS 13.0, *)
public struct SymiPlusView: View {
    @ObservedObject private var purchases: PurchaseManager
    private let flags: FlagSnapshot
    @State private var sheets = SubscriptionSheets.Requests()

    /// The screen for these flags, buying through `purchases`.
    public init(flags: FlagSnapshot, purchases: PurchaseManager) {
        self.flags = flags
        _purchases = ObservedObject(wrappedValue: purchases)
    }

    /// The page.
    public var body: some View {
        let screen = SymiPlusScreen(flags: flags, purchases: purchases.state)
        ScrollView {
            VStack(alignment: .leading, spacing: 24) {
                VStack(alignment: .leading, spacing: 8) {
                    Text(screen.headline).font(.largeTitle.weight(.semibold))
                    Text(screen.subline).font(.title3)
                    if let activation = screen.activationMessage { Text(activation).font(.body) }
                }
                VStack(alignment: .leading, spacing: 12) {
                    ForEach(screen.benefits, id: \.self) { benefit in
                        HStack(alignment: .firstTextBaseline, spacing: 12) {
                            Image(systemName: "checkmark.circle.fill").foregroundStyle(SymiPlusColors.sage)
                            Text(benefit)
                        }
                    }
                }
                if let message = screen.message {
                    Text(message).font(.callout).frame(maxWidth: .infinity, alignment: .leading)
                        .padding(16).background(SymiPlusColors.sage.opacity(0.25), in: RoundedRectangle(cornerRadius: 12))
                }
                if let panel = screen.subscription { SubscriptionPanelView(panel: panel, purchases: purchases, sheets: $sheets) }
                if let retry = screen.retryButton {
                    Button(retry) { Task { await purchases.loadProducts() } }.buttonStyle(.bordered).tint(SymiPlusColors.petrol)
                }
                ForEach(Array(screen.offers.enumerated()), id: \.element.id) { index, offer in
                    VStack(alignment: .leading, spacing: 6) {
                        Text(offer.title).font(.headline)
                        if !offer.detail.isEmpty { Text(offer.detail).font(.subheadline) }
                        Button {
                            guard let product = purchases.products.first(where: { $0.id == offer.id }) else { return }
                            Task { await purchases.purchase(product) }
                        } label: {
                            Text(offer.buttonTitle).font(.headline).frame(maxWidth: .infinity).padding(.vertical, 6)
                        }
                        .modifier(OfferButtonStyle(isPrimary: index == 0))
                        .disabled(!screen.purchaseEnabled)
                    }
                }
                VStack(alignment: .leading, spacing: 6) {
                    Button(screen.restoreButton) { Task { await purchases.restorePurchases() } }
                        .disabled(!screen.purchaseEnabled).tint(SymiPlusColors.petrol)
                    Text(screen.restoreHint).font(.footnote)
                }
                if let notice = screen.priceChangeNotice {
                    HStack(alignment: .top, spacing: 12) {
                        RoundedRectangle(cornerRadius: 2).fill(SymiPlusColors.coral).frame(width: 4)
                        Text(notice).font(.callout)
                    }
                }
                Button(screen.redeemCodeButton) { sheets.redeemsCode = true }.tint(SymiPlusColors.petrol)
                Text(screen.futurePricingNotice).font(.footnote)
                HStack(spacing: 20) {
                    Link(screen.privacyPolicy.title, destination: screen.privacyPolicy.url)
                    Link(screen.termsOfUse.title, destination: screen.termsOfUse.url)
                }
                .font(.footnote).tint(SymiPlusColors.petrol)
            }
            .padding(24)
            .foregroundStyle(SymiPlusColors.petrol)
        }
        .background(SymiPlusColors.background.ignoresSafeArea())
        .modifier(SubscriptionSheets(state: $sheets, purchases: purchases))
        .task {
            purchases.apply(flags)
            if purchases.state.productsPhase == .notLoaded { await purchases.loadProducts() }
        }
    }
}

/// The subscriber's panel: status, the calm billing notice (sage, never coral: nothing is wrong with the person),
/// "Abo verwalten", the plan switch and the refund request.
@available(iOS 16.0, macOS 13.0, *)
private struct SubscriptionPanelView: View {
    let panel: SymiPlusSubscriptionPanel
    @ObservedObject var purchases: PurchaseManager
    @Binding var sheets: SubscriptionSheets.Requests

    var body: some View {
        VStack(alignment: .leading, spacing: 12) {
            if let status = panel.status { Text(status).font(.callout) }
            if let notice = panel.billingNotice {
                Text(notice).font(.callout).frame(maxWidth: .infinity, alignment: .leading)
                    .padding(16).background(SymiPlusColors.sage.opacity(0.25), in: RoundedRectangle(cornerRadius: 12))
            }
            Button(panel.manageButton) { sheets.managesSubscription = true }
                .buttonStyle(.bordered).tint(SymiPlusColors.petrol)
            ForEach(panel.switchOffers) { offer in
                Button(offer.buttonTitle) {
                    guard let product = purchases.products.first(where: { $0.id == offer.id }) else { return }
                    Task { await purchases.purchase(product) }
                }
                .buttonStyle(.bordered).tint(SymiPlusColors.petrol)
            }
            if let refund = panel.refund {
                Button(refund.title) { sheets.refundTransactionId = refund.transactionId }
                    .font(.footnote).tint(SymiPlusColors.petrol)
            }
        }
    }
}

/// Apple's own sheets for the paid state: manage subscriptions (iOS 15), offer code redemption (iOS 16) and the refund
/// request (iOS 15), as SwiftUI's modifiers present them. They exist on iOS (and Mac Catalyst) only; elsewhere the
/// buttons do nothing. After each sheet the manager asks the store again (a change also arrives as an update).
@available(iOS 16.0, macOS 13.0, *)
struct SubscriptionSheets: ViewModifier {
    /// Which sheet is requested.
    struct Requests {
        var managesSubscription = false
        var redeemsCode = false
        var refundTransactionId: UInt64?
    }

    @Binding var state: Requests
    @ObservedObject var purchases: PurchaseManager

    func body(content: Content) -> some View {
        #if os(iOS)
        return content
            .manageSubscriptionsSheet(isPresented: $state.managesSubscription)
            .offerCodeRedemption(isPresented: $state.redeemsCode) { _ in
                Task { await purchases.updatePurchasedProducts() }
            }
            .refundRequestSheet(for: state.refundTransactionId ?? 0, isPresented: Binding(
                get: { state.refundTransactionId != nil },
                set: { if !$0 { state.refundTransactionId = nil } })) { _ in
                Task { await purchases.updatePurchasedProducts() }
            }
            .onChange(of: state.managesSubscription) { presented in
                if !presented { Task { await purchases.updatePurchasedProducts() } }
            }
        #else
        return content
        #endif
    }
}

/// The first offer filled petrol, the others outlined: one clear primary action, no competing colours.
@available(iOS 16.0, macOS 13.0, *)
private struct OfferButtonStyle: ViewModifier {
    let isPrimary: Bool

    @ViewBuilder
    func body(content: Content) -> some View {
        if isPrimary {
            content.buttonStyle(.borderedProminent).tint(SymiPlusColors.petrol)
        } else {
            content.buttonStyle(.bordered).tint(SymiPlusColors.petrol)
        }
    }
}

/// Symi's design colours.
@available(iOS 16.0, macOS 13.0, *)
enum SymiPlusColors {
    /// #F6F4EF, the page.
    static let background = Color(red: 0xF6 / 255, green: 0xF4 / 255, blue: 0xEF / 255)
    /// #0F3D3E, text and primary actions.
    static let petrol = Color(red: 0x0F / 255, green: 0x3D / 255, blue: 0x3E / 255)
    /// #8ECDB8, benefit marks and message backgrounds.
    static let sage = Color(red: 0x8E / 255, green: 0xCD / 255, blue: 0xB8 / 255)
    /// Coral, used once: the price-change notice's mark.
    static let coral = Color(red: 0xE8 / 255, green: 0x83 / 255, blue: 0x6B / 255)
}
#endif
