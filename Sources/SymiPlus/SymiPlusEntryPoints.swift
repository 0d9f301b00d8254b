import FlagClient
import Foundation
import SymiSchema

/// Where Symi Plus appears outside its own screen (brief section 8), decided from the flags and the purchase state:
/// the "Symi Plus" section in the settings, the small card on the start screen, and the premium gate of contexts
/// such as PDF export and insights.
///
/// There is deliberately no entry point that opens the Symi Plus screen by itself: no modal paywall at launch or
/// anywhere else. The screen opens only when the user taps the settings section, the card, or a locked feature.
public struct SymiPlusEntryPoints: Sendable, Equatable {
    /// The start-screen card: one line of remote copy, leading to the Symi Plus screen.
    public struct Card: Sendable, Equatable {
        /// "Symi Plus".
        public var title: String
        /// `introOfferMessage`: "Symi ist aktuell für kurze Zeit kostenlos."
        public var message: String
    }

    /// The settings section's row.
    public struct SettingsSection: Sendable, Equatable {
        /// "Symi Plus".
        public var title: String
        /// "Aktiv" for a subscriber, else the screen's subline.
        public var detail: String
    }

    /// The settings section, only while `monetizationEnabled`.
    public var settingsSection: SettingsSection?
    /// The start-screen card, only while `showIntroFreeSubscriptionBanner` and `monetizationEnabled`, never for a
    /// subscriber, and not once the loaded products show that no free introductory offer applies to this user (the
    /// card promises one).
    public var startScreenCard: Card?
    /// The calm notice that a renewal payment failed, leading to the Symi Plus screen ("Abo verwalten"); only while
    /// `monetizationEnabled`, whatever the banner flag says (it is about a subscription, not an offer).
    public var billingIssueCard: Card?
    /// Whether the user has Symi Plus (what premium contexts pass to the gate).
    public var isPremiumEntitled: Bool
    /// The snapshot these entry points were decided from, compared by identity.
    private let snapshot: FlagSnapshotBox
    /// Its typed values, for the premium gate.
    private let flags: SymiFlagValues

    /// The entry points for these flags and this purchase state; dates in `timeZone`.
    public init(flags snapshot: FlagSnapshot, purchases: PurchaseState, timeZone: TimeZone = .current) {
        let flags = SymiFlagValues(snapshot)
        let locale = snapshot.context.locale
        let screen = SymiPlusScreen(flags: flags, localeIdentifier: locale, purchases: purchases, timeZone: timeZone)
        let language = screen.language
        let subscribed = purchases.isPremiumEntitled
        isPremiumEntitled = subscribed
        self.snapshot = FlagSnapshotBox(snapshot: snapshot)
        self.flags = flags
        let access = purchases.access
        let detail: String
        if access.billingIssue != nil {
            detail = SymiPlusMessages.checkPayment(language)
        } else if subscribed, let end = access.endsAt {
            detail = SymiPlusMessages.fill(SymiPlusMessages.activeUntil, language, [
                "date": SymiPlusMessages.date(end, language, localeIdentifier: locale, timeZone: timeZone)])
        } else {
            detail = subscribed ? SymiPlusMessages.active(language) : screen.subline
        }
        settingsSection = flags.monetizationEnabled ? SettingsSection(title: screen.headline, detail: detail) : nil
        billingIssueCard = flags.monetizationEnabled
            ? screen.subscription?.billingNotice.map { Card(title: screen.headline, message: $0) }
            : nil
        let knownNotFree = purchases.productsPhase == .loaded && !purchases.products.contains(where: \.offersFreeIntroduction)
        startScreenCard = flags.monetizationEnabled && flags.showIntroFreeSubscriptionBanner && !subscribed && !knownNotFree
            ? Card(title: screen.headline, message: flags.introOfferMessage)
            : nil
    }

    /// The premium gate for a feature (`pdfExport`, `advancedInsights`, ...): `SymiFlagValues.isAvailable(_:entitled:)`
    /// with the purchase manager's entitlement. Open to everyone while `premiumFeaturesLocked` is false.
    public func isAvailable(_ feature: String) -> Bool {
        flags.isAvailable(feature, entitled: isPremiumEntitled)
    }
}

/// A snapshot compared by identity, so the entry points stay `Equatable` (snapshots are immutable and swapped whole).
struct FlagSnapshotBox: Sendable, Equatable {
    let snapshot: FlagSnapshot

    static func == (lhs: FlagSnapshotBox, rhs: FlagSnapshotBox) -> Bool { lhs.snapshot === rhs.snapshot }
}
