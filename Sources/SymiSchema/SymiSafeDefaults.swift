import FlagKit

/// The values the app uses when it has never received a valid document (first launch offline, a corrupted cache):
/// compiled in, so they exist before any file or network answer does. The app hands ``document`` to its client
/// (`FlagClientConfiguration.safeDefaults`), and ``SymiFlagValues`` falls back to the constants flag by flag.
///
/// They leave everything unlocked (design: "no failure of any kind may lock a feature that a good document would
/// not"): `premiumFeaturesLocked` is `false` for every install, with no rule at all, so not even the internal
/// testers' cohort can lock anything from here. The copy, product ids and legal links are those of
/// `flags/production.json` today (German, with the same English variants for `en*` locales); a test keeps them
/// in step with that file and checks that every flag in it has a safe value of its type here.
public enum SymiSafeDefaults {
    /// `monetizationEnabled`: the Symi Plus UI may appear; it never locks anything.
    public static let monetizationEnabled = true
    /// `premiumFeaturesLocked`: nothing needs a subscription.
    public static let premiumFeaturesLocked = false
    /// `showIntroFreeSubscriptionBanner`: the "Für kurze Zeit gratis" card is shown.
    public static let showIntroFreeSubscriptionBanner = true
    /// `subscriptionPriceIncreaseMessagingEnabled`: no notice of future prices without a planned change.
    public static let subscriptionPriceIncreaseMessagingEnabled = false
    /// `billingRetryAccessDays`: a subscriber whose renewal failed keeps Symi Plus for 3 days after the paid period
    /// while Apple retries the payment (Apple's shortest billing grace period; docs/monetization.md says why).
    public static let billingRetryAccessDays = 3
    /// `introOfferMessage` in German.
    public static let introOfferMessage = "Symi ist aktuell für kurze Zeit kostenlos."
    /// `subscriptionProductIds`: the monthly product only.
    public static let subscriptionProductIds = ["symi_plus_monthly"]
    /// `paywallProduct`: no experiment, the paywall shows ``subscriptionProductIds``.
    public static let paywallProduct = ""
    /// `premiumFeatures`: the brief's candidates for later premium gates (no effect while nothing is locked).
    public static let premiumFeatures = ["pdfExport", "advancedInsights", "longTermComparisons", "moreExportFormats",
                                         "medicationAnalysis", "doctorReportTemplates"]
    /// `subscriptionScreenCopy` in German.
    public static let subscriptionScreenCopy = SubscriptionScreenCopy(
        headline: "Symi Plus",
        subline: "Für kurze Zeit kostenlos",
        activationMessage: "Aktiviere Symi Plus jetzt kostenlos und sichere dir den Einführungsvorteil.",
        futurePricingNotice: "Später können ausgewählte Premium-Funktionen kostenpflichtig werden.",
        restoreHint: "Du kannst Käufe jederzeit wiederherstellen.",
        activateFreeButton: "Kostenlos aktivieren",
        restorePurchasesButton: "Käufe wiederherstellen",
        benefits: ["Professionelle PDF-Berichte vorbereiten", "Erweiterte Insights", "Mehr Export- und Analyseoptionen",
                   "Symi langfristig unterstützen"])
    /// `subscriptionPaidCopy` in German: the texts of the later paid state (no amounts; `{price}` is StoreKit's).
    public static let subscriptionPaidCopy = SubscriptionPaidCopy(
        subline: "Erweiterte Funktionen für Berichte und Auswertungen",
        monthlyButtonTemplate: "Für {price}/Monat starten",
        yearlyButtonTemplate: "Für {price}/Jahr starten",
        buttonTemplate: "Für {price} starten",
        priceChangeNotice: "Der Preis von Symi Plus ändert sich. Du siehst den aktuellen Preis immer vor dem Abschluss, und Apple informiert dich vorab über jede Änderung deines Abos.")

    /// `subscriptionPaidCopy` for `context` from the safe document (so an English install gets the English texts),
    /// for a downloaded document that predates the flag; the German constant if the literal stopped evaluating.
    public static func subscriptionPaidCopy(for context: EvaluationContext) -> SubscriptionPaidCopy {
        document.flatMap { SubscriptionPaidCopy(json: $0.evaluate("subscriptionPaidCopy", context: context).value) }
            ?? subscriptionPaidCopy
    }

    /// `legalLinks` in German. Literal https URLs; `LegalLinks.fallback` only exists because `URL(string:)` is optional.
    public static let legalLinks = LegalLinks.fallback

    /// The safe defaults as a flag document, evaluated exactly like a downloaded one (so the English variants and
    /// the evaluation details work the same way): what the app passes as `FlagClientConfiguration.safeDefaults`.
    /// `nil` only if this literal stopped validating, which a test rules out; ``SymiFlagValues`` then still holds the
    /// Swift constants above.
    public static let document: FlagDocument? = try? FlagDocument.decode(json)

    /// The document text. Hand-written rather than generated from `flags/production.json` at build time, because
    /// SwiftPM has no build step for that here; `SymiSafeDefaultsTests` compares the two.
    public static let json = #"""
    {
      "flags": {
        "monetizationEnabled": {"type": "boolean", "default": true},
        "premiumFeaturesLocked": {"type": "boolean", "default": false},
        "showIntroFreeSubscriptionBanner": {"type": "boolean", "default": true},
        "subscriptionPriceIncreaseMessagingEnabled": {"type": "boolean", "default": false},
        "billingRetryAccessDays": {"type": "integer", "default": 3},
        "introOfferMessage": {
          "type": "string",
          "default": "Symi ist aktuell für kurze Zeit kostenlos.",
          "rules": [{"cohort": "english", "value": "Symi is free for a limited time."}]
        },
        "subscriptionScreenCopy": {
          "type": "json",
          "default": {
            "headline": "Symi Plus",
            "subline": "Für kurze Zeit kostenlos",
            "activationMessage": "Aktiviere Symi Plus jetzt kostenlos und sichere dir den Einführungsvorteil.",
            "futurePricingNotice": "Später können ausgewählte Premium-Funktionen kostenpflichtig werden.",
            "restoreHint": "Du kannst Käufe jederzeit wiederherstellen.",
            "activateFreeButton": "Kostenlos aktivieren",
            "restorePurchasesButton": "Käufe wiederherstellen",
            "benefits": ["Professionelle PDF-Berichte vorbereiten", "Erweiterte Insights",
                         "Mehr Export- und Analyseoptionen", "Symi langfristig unterstützen"]
          },
          "rules": [{"cohort": "english", "value": {
            "headline": "Symi Plus",
            "subline": "Free for a limited time",
            "activationMessage": "Activate Symi Plus for free now and keep the introductory benefit.",
            "futurePricingNotice": "Selected premium features may become paid later.",
            "restoreHint": "You can restore purchases at any time.",
            "activateFreeButton": "Activate for free",
            "restorePurchasesButton": "Restore purchases",
            "benefits": ["Prepare professional PDF reports", "Advanced insights", "More export and analysis options",
                         "Support Symi in the long run"]
          }}]
        },
        "subscriptionPaidCopy": {
          "type": "json",
          "default": {
            "subline": "Erweiterte Funktionen für Berichte und Auswertungen",
            "monthlyButtonTemplate": "Für {price}/Monat starten",
            "yearlyButtonTemplate": "Für {price}/Jahr starten",
            "buttonTemplate": "Für {price} starten",
            "priceChangeNotice": "Der Preis von Symi Plus ändert sich. Du siehst den aktuellen Preis immer vor dem Abschluss, und Apple informiert dich vorab über jede Änderung deines Abos."
          },
          "rules": [{"cohort": "english", "value": {
            "subline": "Advanced features for reports and insights",
            "monthlyButtonTemplate": "Start for {price}/month",
            "yearlyButtonTemplate": "Start for {price}/year",
            "buttonTemplate": "Start for {price}",
            "priceChangeNotice": "The price of Symi Plus is changing. You always see the current price before you subscribe, and Apple tells you in advance about any change to your subscription."
          }}]
        },
        "subscriptionProductIds": {"type": "json", "default": ["symi_plus_monthly"]},
        "paywallProduct": {"type": "string", "default": ""},
        "premiumFeatures": {
          "type": "json",
          "default": ["pdfExport", "advancedInsights", "longTermComparisons", "moreExportFormats",
                      "medicationAnalysis", "doctorReportTemplates"]
        },
        "legalLinks": {
          "type": "json",
          "default": {"privacyPolicyURL": "https://symi.app/datenschutz",
                      "termsOfUseURL": "https://symi.app/nutzungsbedingungen"},
          "rules": [{"cohort": "english", "value": {"privacyPolicyURL": "https://symi.app/en/privacy",
                                                    "termsOfUseURL": "https://symi.app/en/terms"}}]
        }
      },
      "cohorts": {
        "english": {"locale": {"startsWith": "en"}}
      }
    }
    """#
}
