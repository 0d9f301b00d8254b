import FlagKit
import Foundation

/// The texts of the Symi Plus screen (flag `subscriptionScreenCopy`). Holds no amounts: the price button text is
/// built by the app from StoreKit's localized price (brief: "Preis immer aus StoreKit anzeigen").
public struct SubscriptionScreenCopy: Sendable, Equatable {
    /// "Symi Plus".
    public var headline: String
    /// "Für kurze Zeit kostenlos".
    public var subline: String
    /// The invitation to activate the free introductory offer.
    public var activationMessage: String
    /// That selected premium features may become paid later (honest, never "forever free").
    public var futurePricingNotice: String
    /// That purchases can be restored at any time.
    public var restoreHint: String
    /// The primary button while the product is free or in its introductory offer.
    public var activateFreeButton: String
    /// The secondary action.
    public var restorePurchasesButton: String
    /// The benefit list, in display order.
    public var benefits: [String]

    /// Creates copy from its parts.
    public init(headline: String, subline: String, activationMessage: String, futurePricingNotice: String,
                restoreHint: String, activateFreeButton: String, restorePurchasesButton: String, benefits: [String]) {
        self.headline = headline
        self.subline = subline
        self.activationMessage = activationMessage
        self.futurePricingNotice = futurePricingNotice
        self.restoreHint = restoreHint
        self.activateFreeButton = activateFreeButton
        self.restorePurchasesButton = restorePurchasesButton
        self.benefits = benefits
    }

    /// The copy in a flag value, or `nil` when a member is missing or not a string (then the caller keeps the
    /// safe copy as a whole: half a screen of server text and half of compiled-in text would read badly).
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
              let headline = object["headline"]?.stringValue, let subline = object["subline"]?.stringValue,
              let activationMessage = object["activationMessage"]?.stringValue,
              let futurePricingNotice = object["futurePricingNotice"]?.stringValue,
              let restoreHint = object["restoreHint"]?.stringValue,
              let activateFreeButton = object["activateFreeButton"]?.stringValue,
              let restorePurchasesButton = object["restorePurchasesButton"]?.stringValue,
              let benefits = object["benefits"].flatMap(Self.strings) else { return nil }
        self.init(headline: headline, subline: subline, activationMessage: activationMessage,
                  futurePricingNotice: futurePricingNotice, restoreHint: restoreHint, activateFreeButton: activateFreeButton,
                  restorePurchasesButton: restorePurchasesButton, benefits: benefits)
    }

    /// A JSON array of strings as `[String]`, `nil` when it is anything else.
    static func strings(_ value: JSONValue) -> [String]? {
        guard let array = value.arrayValue else { return nil }
        var result: [String] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let text = element.stringValue else { return nil }
            result.append(text)
        }
        return result
    }
}
