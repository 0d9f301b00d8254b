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

    /// The friendly message for a failure; `nil` for a cancellation, which is the user's choice, not an error.
    public static func message(for error: StoreError) -> Text? {
        switch error.kind {
        case .cancelled: nil
        case .productsUnavailable: productsUnavailable
        case .syncFailed: restoreFailed
        case .purchaseFailed, .unknownProduct, .entitlementsUnavailable, .statusUnavailable: purchaseFailed
        }
    }
}
