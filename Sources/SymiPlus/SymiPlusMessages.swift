import Foundation

/// The system messages of the Symi Plus screen in German and English: states of the store and of a purchase, which
/// are the app's own words rather than marketing copy, so they are compiled in (the remote copy flags hold the
/// marketing texts). Calm and honest: no urgency, no blame, and always the reassurance that Symi stays usable.
public enum SymiPlusMessages {
    /// One message in both languages.
    public struct Text: Sendable, Equatable {
        /// The German text.
        public let german: String
        /// The English text.
        public let english: String

        /// The text in `language`.
        public func callAsFunction(_ language: SymiPlusLanguage) -> String {
            switch language {
            case .german: german
            case .english: english
            }
        }
    }

    /// While the products load.
    public static let loading = Text(german: "Symi Plus wird geladen …", english: "Loading Symi Plus …")
    /// The store could not be reached or offers nothing: the friendly fallback (brief section 1).
    public static let productsUnavailable = Text(
        german: "Symi Plus ist gerade nicht erreichbar. Du kannst Symi wie gewohnt vollständig nutzen. Versuche es später noch einmal.",
        english: "Symi Plus can't be reached right now. You can keep using all of Symi as usual. Please try again later.")
    /// Ask to Buy or a bank confirmation is outstanding.
    public static let pending = Text(
        german: "Dein Kauf wartet noch auf eine Bestätigung, zum Beispiel durch eine Kaufanfrage. Sobald er bestätigt ist, wird Symi Plus aktiviert.",
        english: "Your purchase is waiting for approval, for example through Ask to Buy. Symi Plus is activated as soon as it is approved.")
    /// The purchase failed.
    public static let purchaseFailed = Text(
        german: "Der Kauf konnte nicht abgeschlossen werden. Bitte versuche es später noch einmal.",
        english: "The purchase couldn't be completed. Please try again later.")
    /// The store returned a transaction it could not verify.
    public static let unverified = Text(
        german: "Der Kauf konnte nicht bestätigt werden. Bitte versuche es später noch einmal oder stelle deine Käufe wieder her.",
        english: "The purchase couldn't be verified. Please try again later or restore your purchases.")
    /// The restore failed.
    public static let restoreFailed = Text(
        german: "Deine Käufe konnten gerade nicht wiederhergestellt werden. Bitte versuche es später noch einmal.",
        english: "Your purchases couldn't be restored right now. Please try again later.")
    /// The restore found nothing to restore.
    public static let nothingToRestore = Text(
        german: "Es wurden keine Käufe gefunden, die wiederhergestellt werden können.",
        english: "No purchases were found to restore.")
    /// The user has Symi Plus.
    public static let subscribed = Text(
        german: "Du hast Symi Plus. Danke, dass du Symi unterstützt.",
        english: "You have Symi Plus. Thank you for supporting Symi.")
    /// The button that asks the store again after a failure to load.
    public static let retry = Text(german: "Erneut versuchen", english: "Try again")
    /// The privacy policy link.
    public static let privacyPolicy = Text(german: "Datenschutz", english: "Privacy Policy")
    /// The terms of use link.
    public static let termsOfUse = Text(german: "Nutzungsbedingungen", english: "Terms of Use")
    /// The settings row's status for a subscriber.
    public static let active = Text(german: "Aktiv", english: "Active")

    // MARK: The paid state (placeholders: {date} is a long date in the install's locale, {name} and {price} StoreKit's)

    /// "Abo verwalten": opens Apple's subscription management (`AppStore.showManageSubscriptions`).
    public static let manageSubscription = Text(german: "Abo verwalten", english: "Manage subscription")
    /// "Code einlösen": Apple's offer code sheet.
    public static let redeemCode = Text(german: "Code einlösen", english: "Redeem code")
    /// Apple's refund request sheet (`Transaction.beginRefundRequest`).
    public static let requestRefund = Text(german: "Rückerstattung anfordern", english: "Request a refund")
    /// The settings row's status while a renewal payment failed.
    public static let checkPayment = Text(german: "Zahlung prüfen", english: "Check payment")
    /// A paid-up subscription that renews.
    public static let renewsOn = Text(german: "Aktiv. Verlängert sich am {date}.", english: "Active. Renews on {date}.")
    /// A cancelled subscription that is still active.
    public static let endsOn = Text(
        german: "Aktiv, endet am {date}. Bis dahin kannst du alles wie gewohnt nutzen.",
        english: "Active, ends on {date}. Until then you can use everything as usual.")
    /// The settings row's status for a cancelled subscription that is still active.
    public static let activeUntil = Text(german: "Aktiv bis {date}", english: "Active until {date}")
    /// A switch (monthly to yearly) scheduled for the next renewal.
    public static let switchesOn = Text(german: "Aktiv. Wechselt am {date} zu {name}.", english: "Active. Switches to {name} on {date}.")
    /// A switch whose product is not loaded (so has no name to show).
    public static let switchesOnUnnamed = Text(german: "Aktiv. Dein Abo wechselt am {date}.",
                                               english: "Active. Your subscription changes on {date}.")
    /// The button that switches to the other product.
    public static let switchTo = Text(german: "Zu {name} wechseln ({price})", english: "Switch to {name} ({price})")
    /// A failed renewal while access lasts (grace period or courtesy window): calm, no blame, one way to fix it.
    public static let billingIssueActive = Text(
        german: "Bei der Verlängerung deines Abos hat die Zahlung nicht geklappt. Symi Plus bleibt bis zum {date} aktiv. Du kannst deine Zahlungsmethode in Ruhe unter „Abo verwalten“ prüfen.",
        english: "The payment for your subscription's renewal didn't go through. Symi Plus stays active until {date}. You can check your payment method under “Manage subscription” whenever it suits you.")
    /// A failed renewal after access ended (Apple still retries).
    public static let billingIssueEnded = Text(
        german: "Dein Abo konnte nicht verlängert werden, weil die Zahlung nicht geklappt hat. Sobald deine Zahlungsmethode unter „Abo verwalten“ aktualisiert ist, ist Symi Plus wieder da.",
        english: "Your subscription couldn't be renewed because the payment didn't go through. As soon as your payment method is updated under “Manage subscription”, Symi Plus is back.")

    // MARK: An experiment's promotional offer ({offerPrice}, {price}: StoreKit's; {duration}, {unit}: ``duration(_:count:_:)``)

    /// A reduced price each period for a while.
    public static let offerPayAsYouGo = Text(german: "{offerPrice} pro {unit} für {duration}, danach {price}",
                                             english: "{offerPrice} per {unit} for {duration}, then {price}")
    /// One reduced payment for the whole offer.
    public static let offerPayUpFront = Text(german: "{offerPrice} für {duration}, danach {price}",
                                             english: "{offerPrice} for {duration}, then {price}")
    /// Free for a while.
    public static let offerFree = Text(german: "{duration} kostenlos, danach {price}", english: "{duration} free, then {price}")
    /// The offer could not be prepared for this purchase: the product is offered at its own price instead.
    public static let offerUnavailable = Text(
        german: "Das Angebot ist gerade nicht verfügbar. Du kannst Symi Plus zum regulären Preis abschließen oder es später noch einmal versuchen.",
        english: "The offer isn't available right now. You can get Symi Plus at the regular price or try again later.")
    /// The App Store refused the offer for this Apple ID: nothing was bought.
    public static let offerRefused = Text(
        german: "Dieses Angebot gilt für deine Apple-ID leider nicht. Es wurde nichts gekauft; Symi Plus ist weiter zum regulären Preis verfügbar.",
        english: "This offer doesn't apply to your Apple ID. Nothing was bought; Symi Plus is still available at the regular price.")

    /// "3 Monate", "1 year": `count` periods of `period` in `language`.
    public static func duration(_ period: StoreProduct.Period, count: Int, _ language: SymiPlusLanguage) -> String {
        let total = period.value * max(count, 1)
        return "\(total) " + unit(period.unit, plural: total != 1, language)
    }

    /// The name of a period's unit ("Monat", "months").
    public static func unit(_ unit: StoreProduct.Period.Unit, plural: Bool, _ language: SymiPlusLanguage) -> String {
        switch (language, unit) {
        case (.german, .day): plural ? "Tage" : "Tag"
        case (.german, .week): plural ? "Wochen" : "Woche"
        case (.german, .month): plural ? "Monate" : "Monat"
        case (.german, .year): plural ? "Jahre" : "Jahr"
        case (.english, .day): plural ? "days" : "day"
        case (.english, .week): plural ? "weeks" : "week"
        case (.english, .month): plural ? "months" : "month"
        case (.english, .year): plural ? "years" : "year"
        }
    }

    /// The button of a product shown with its promotional offer: the offer's terms, then the regular price per period.
    public static func offerButton(_ offer: StoreProduct.PromotionalOffer, of product: StoreProduct, _ language: SymiPlusLanguage) -> String {
        let template = switch offer.paymentMode {
        case .payAsYouGo: offerPayAsYouGo
        case .payUpFront: offerPayUpFront
        case .free: offerFree
        }
        let regular = product.subscriptionPeriod.map { period in
            period.value == 1 ? "\(product.displayPrice)/\(unit(period.unit, plural: false, language))"
                : "\(product.displayPrice)/\(duration(period, count: 1, language))"
        } ?? product.displayPrice
        return fill(template, language, ["offerPrice": offer.displayPrice, "price": regular,
                                         "duration": duration(offer.period, count: offer.periodCount, language),
                                         "unit": offer.period.value == 1 ? unit(offer.period.unit, plural: false, language)
                                             : duration(offer.period, count: 1, language)])
    }

    /// `text` in `language` with its placeholders filled.
    public static func fill(_ text: Text, _ language: SymiPlusLanguage, _ values: [String: String]) -> String {
        values.reduce(text(language)) { result, pair in result.replacingOccurrences(of: "{\(pair.key)}", with: pair.value) }
    }

    /// A long date ("15. Januar 2027", "January 15, 2027") in the install's locale when it speaks `language`, else in
    /// the language's own (a French install reads the German texts with a German date).
    public static func date(_ date: Date, _ language: SymiPlusLanguage, localeIdentifier: String?, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        let identifier = localeIdentifier.flatMap { SymiPlusLanguage(localeIdentifier: $0) == language && $0.hasPrefix(language.rawValue) ? $0 : nil }
        formatter.locale = Locale(identifier: identifier ?? (language == .german ? "de_DE" : "en_US"))
        formatter.dateStyle = .long
        formatter.timeStyle = .none
        formatter.timeZone = timeZone
        return formatter.string(from: date)
    }

    /// The friendly message for a failure; `nil` for a cancellation, which is the user's choice, not an error.
    public static func message(for error: StoreError) -> Text? {
        switch error.kind {
        case .cancelled: nil
        case .productsUnavailable: productsUnavailable
        case .syncFailed: restoreFailed
        case .purchaseFailed, .unknownProduct, .entitlementsUnavailable, .statusUnavailable: purchaseFailed
        case .offerUnavailable: offerUnavailable
        case .offerRefused: offerRefused
        }
    }
}
