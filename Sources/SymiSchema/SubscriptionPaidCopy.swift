import FlagKit
import Foundation

/// The texts the Symi Plus screen needs once the subscription is no longer free for this user (flag
/// `subscriptionPaidCopy`): the price button templates and the price-change notice. Remote, so switching to paid
/// needs no app update.
///
/// A flag of its own rather than new members of `subscriptionScreenCopy`: that value is all-or-nothing (a missing
/// member discards it for the safe copy), so an older server document or an older cache without these texts would
/// otherwise lose its whole screen copy. A document without this flag keeps its screen copy and gets these texts
/// from ``SymiSafeDefaults`` in the install's language.
///
/// Templates hold `{price}`, which the app fills with StoreKit's localized `displayPrice`; the copy itself never
/// holds an amount or a currency (`flagctl lint` checks both).
public struct SubscriptionPaidCopy: Sendable, Equatable {
    /// The placeholder every template must contain exactly once.
    public static let pricePlaceholder = "{price}"

    /// The subline when no free introductory offer applies to this user (instead of "Für kurze Zeit kostenlos").
    public var subline: String
    /// The button of a monthly product: "Für {price}/Monat starten".
    public var monthlyButtonTemplate: String
    /// The button of a yearly product: "Für {price}/Jahr starten".
    public var yearlyButtonTemplate: String
    /// The button of a product with any other period: "Für {price} starten".
    public var buttonTemplate: String
    /// Shown while `subscriptionPriceIncreaseMessagingEnabled` is on: a price change is planned.
    public var priceChangeNotice: String

    /// Copy from its parts.
    public init(subline: String, monthlyButtonTemplate: String, yearlyButtonTemplate: String, buttonTemplate: String,
                priceChangeNotice: String) {
        self.subline = subline
        self.monthlyButtonTemplate = monthlyButtonTemplate
        self.yearlyButtonTemplate = yearlyButtonTemplate
        self.buttonTemplate = buttonTemplate
        self.priceChangeNotice = priceChangeNotice
    }

    /// The copy in a flag value, or `nil` when a member is missing, not a string, or a template lacks its single
    /// `{price}` (a button without the price would hide what the user pays; the caller keeps the safe copy whole).
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
              let subline = object["subline"]?.stringValue,
              let monthly = object["monthlyButtonTemplate"]?.stringValue,
              let yearly = object["yearlyButtonTemplate"]?.stringValue,
              let other = object["buttonTemplate"]?.stringValue,
              let notice = object["priceChangeNotice"]?.stringValue,
              [monthly, yearly, other].allSatisfy(Self.isTemplate) else { return nil }
        self.init(subline: subline, monthlyButtonTemplate: monthly, yearlyButtonTemplate: yearly, buttonTemplate: other,
                  priceChangeNotice: notice)
    }

    /// Whether `text` holds `{price}` exactly once.
    public static func isTemplate(_ text: String) -> Bool {
        text.components(separatedBy: pricePlaceholder).count == 2
    }

    /// `template` with `{price}` replaced by StoreKit's `displayPrice`.
    public static func fill(_ template: String, price displayPrice: String) -> String {
        template.replacingOccurrences(of: pricePlaceholder, with: displayPrice)
    }
}
