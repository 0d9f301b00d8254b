import FlagKit
import Foundation
import SymiCatalog

/// The rules of `flagctl storekit check`: the StoreKit configuration file, the product catalogue (``SymiCatalog``) and
/// the flag documents must agree, so that nothing the flags offer is missing from the store and no copy promises a
/// free period the store does not give.
public enum StoreKitRule: String, Sendable, CaseIterable {
    /// Every product id the flags offer is a subscription in the StoreKit file.
    case storeKitProduct = "storekit-product"
    /// Every product id the flags offer is in the catalogue, with the catalogue's renewal period in the StoreKit file.
    case catalogProduct = "catalog-product"
    /// The StoreKit file has the catalogue's subscription group, and the offered products belong to it.
    case subscriptionGroup = "subscription-group"
    /// The group and each of its subscriptions have a German localization with a name (and, for subscriptions, a
    /// description).
    case germanLocalization = "german-localization"
    /// Copy promising "free"/"kostenlos"/"gratis" only while every product list the flags offer has a product with a
    /// free introductory offer.
    case freeCopyNeedsFreeOffer = "free-copy-needs-free-offer"
    /// What Xcode needs to test the paid states: every catalogue product in the group (the monthly/yearly switch), all
    /// at one level (a switch takes effect at the next renewal), each with an offer code ("Code einlösen"), and the
    /// billing grace period on (as the runbook turns it on in App Store Connect).
    case paidStateTesting = "paid-state-testing"
    /// Every `paywallProduct` value (an experiment's arm) names a subscription of the StoreKit file, in the group of
    /// the `subscriptionProductIds` products, and an offer it names is one of that product's promotional offers.
    case paywallProduct = "paywall-product"
}

/// One finding, `FILE: /json/path: [rule] message` like `flagctl lint`.
public struct StoreKitFinding: Sendable, Equatable, CustomStringConvertible {
    /// The file the path points into (the StoreKit file or a flags file).
    public let file: String
    /// RFC 6901 pointer into that file.
    public let path: String
    /// The rule broken.
    public let rule: StoreKitRule
    /// What is wrong and what to do.
    public let message: String

    /// `FILE: /path: [rule] message`.
    public var description: String { "\(file): \(path.isEmpty ? "/" : path): [\(rule.rawValue)] \(message)" }
}

/// The checks themselves, on parsed inputs (the command reads and parses the files).
public enum StoreKitCheck {
    /// Words that promise a free period, in the copy's two languages.
    static let freeWords = try? NSRegularExpression(pattern: #"\b(?:kostenlos\w*|gratis|kostenfrei|umsonst|free)\b"#,
                                                    options: [.caseInsensitive])

    /// Findings in the StoreKit file alone: the group, its localizations, and the catalogue's periods.
    public static func check(_ configuration: StoreKitConfiguration, file: String) -> [StoreKitFinding] {
        guard let group = configuration.groups.first(where: { $0.name == SymiCatalog.subscriptionGroupName }) else {
            return [StoreKitFinding(file: file, path: "/subscriptionGroups", rule: .subscriptionGroup,
                                    message: "no subscription group named \"\(SymiCatalog.subscriptionGroupName)\"")]
        }
        var findings: [StoreKitFinding] = []
        if !hasGerman(group.localizations, needsDescription: false) {
            findings.append(StoreKitFinding(file: file, path: group.path + "/localizations", rule: .germanLocalization,
                                            message: "group \"\(group.name)\" has no German localization (locale de...) with a display name"))
        }
        for subscription in group.subscriptions {
            if !hasGerman(subscription.localizations, needsDescription: true) {
                findings.append(StoreKitFinding(file: file, path: subscription.path + "/localizations", rule: .germanLocalization,
                                                message: "\(subscription.productId) has no German localization (locale de...) with display name and description"))
            }
            if let product = SymiCatalog.product(withId: subscription.productId), subscription.recurringPeriod != product.recurringPeriod {
                findings.append(StoreKitFinding(file: file, path: subscription.path + "/recurringSubscriptionPeriod", rule: .catalogProduct,
                                                message: "\(subscription.productId) renews every \(subscription.recurringPeriod ?? "(none)"), the catalogue says \(product.recurringPeriod)"))
            }
        }
        return findings + paidStateFindings(configuration, group: group, file: file)
    }

    /// The ``StoreKitRule/paidStateTesting`` findings for the Symi Plus group.
    static func paidStateFindings(_ configuration: StoreKitConfiguration, group: StoreKitConfiguration.Group,
                                  file: String) -> [StoreKitFinding] {
        var findings: [StoreKitFinding] = []
        let catalogue = group.subscriptions.filter { SymiCatalog.product(withId: $0.productId) != nil }
        for product in SymiCatalog.products where !catalogue.contains(where: { $0.productId == product.id }) {
            findings.append(StoreKitFinding(file: file, path: group.path + "/subscriptions", rule: .paidStateTesting,
                                            message: "\(product.id) is in the catalogue but not in group \"\(group.name)\": Xcode cannot test the switch to it"))
        }
        let levels = Set(catalogue.map(\.groupNumber))
        if levels.count > 1 {
            for subscription in catalogue {
                findings.append(StoreKitFinding(file: file, path: subscription.path + "/groupNumber", rule: .paidStateTesting,
                                                message: "\(subscription.productId) is at level \(subscription.groupNumber.map(String.init) ?? "(none)"); give the catalogue's products one level so that monthly and yearly switch at the next renewal"))
            }
        }
        for subscription in catalogue where subscription.codeOfferCount == 0 {
            findings.append(StoreKitFinding(file: file, path: subscription.path + "/codeOffers", rule: .paidStateTesting,
                                            message: "\(subscription.productId) has no offer code: add one to try \"Code einlösen\" in Xcode"))
        }
        if configuration.billingGracePeriodEnabled != true {
            findings.append(StoreKitFinding(file: file, path: "/settings/_billingGracePeriodEnabled", rule: .paidStateTesting,
                                            message: "the billing grace period is off: turn it on (Editor > Enable Billing Grace Period), as App Store Connect will have it"))
        }
        return findings
    }

    /// Findings in one flag document against the StoreKit file (named `storeKitFile` in messages).
    public static func check(_ document: FlagDocument, file: String, against configuration: StoreKitConfiguration,
                             storeKitFile: String) -> [StoreKitFinding] {
        var findings: [StoreKitFinding] = []
        var freeOfferMissing: [String] = []
        for (path, value) in productIdValues(in: document) {
            guard let ids = value.arrayValue else {
                findings.append(StoreKitFinding(file: file, path: path, rule: .storeKitProduct,
                                                message: "must be an array of product ids (got \(value.typeName))"))
                continue
            }
            var offersFree = false
            for (index, element) in ids.enumerated() {
                let elementPath = "\(path)/\(index)"
                guard let id = element.stringValue else {
                    findings.append(StoreKitFinding(file: file, path: elementPath, rule: .storeKitProduct,
                                                    message: "must be a product id string (got \(element.typeName))"))
                    continue
                }
                if SymiCatalog.product(withId: id) == nil {
                    findings.append(StoreKitFinding(file: file, path: elementPath, rule: .catalogProduct,
                                                    message: "\(JSONValue.string(id)) is not in the product catalogue (SymiCatalog); the app ignores it"))
                }
                guard let (subscription, group) = configuration.subscription(id) else {
                    findings.append(StoreKitFinding(file: file, path: elementPath, rule: .storeKitProduct,
                                                    message: "\(JSONValue.string(id)) is not a subscription in \(storeKitFile)"))
                    continue
                }
                if group.name != SymiCatalog.subscriptionGroupName {
                    findings.append(StoreKitFinding(file: file, path: elementPath, rule: .subscriptionGroup,
                                                    message: "\(JSONValue.string(id)) is in group \"\(group.name)\" of \(storeKitFile), not \"\(SymiCatalog.subscriptionGroupName)\""))
                }
                offersFree = offersFree || subscription.hasFreeIntroductoryOffer
            }
            if !offersFree { freeOfferMissing.append(path) }
        }
        findings += paywallProductFindings(document, file: file, against: configuration, storeKitFile: storeKitFile)
        if let list = freeOfferMissing.first {
            for copy in Linter.copyStrings(in: document) where Linter.copyFlags.contains(copy.flag) {
                guard let word = freeWord(in: copy.text) else { continue }
                findings.append(StoreKitFinding(file: file, path: copy.path, rule: .freeCopyNeedsFreeOffer,
                                                message: "promises \(JSONValue.string(word)), but no product offered at \(list) has a free introductory offer in \(storeKitFile)"))
            }
        }
        return findings
    }

    /// The default and every rule value of `subscriptionProductIds`, with their pointers.
    static func productIdValues(in document: FlagDocument) -> [(String, JSONValue)] {
        guard let flag = document.flags["subscriptionProductIds"] else { return [] }
        let base = JSONPath.appending("/flags", "subscriptionProductIds")
        return [(base + "/default", flag.defaultValue)] + flag.rules.enumerated().map { ("\(base)/rules/\($0.offset)/value", $0.element.value) }
    }

    /// The first word in `text` that promises something free.
    static func freeWord(in text: String) -> String? {
        guard let expression = freeWords else { return nil }
        let range = NSRange(text.startIndex..., in: text)
        guard let match = expression.firstMatch(in: text, range: range), let found = Range(match.range, in: text) else { return nil }
        return String(text[found])
    }

    /// Whether one of the localizations is German with the texts App Store Connect requires.
    static func hasGerman(_ localizations: [StoreKitConfiguration.Localization], needsDescription: Bool) -> Bool {
        localizations.contains { localization in
            let locale = localization.locale.lowercased()
            return (locale == "de" || locale.hasPrefix("de_") || locale.hasPrefix("de-"))
                && !localization.displayName.isEmpty && (!needsDescription || !localization.description.isEmpty)
        }
    }
}
