import FlagKit
import SymiCatalog
import SymiSchema

/// ``StoreKitRule/paywallProduct``: the arms of a price or offer experiment must exist where the app looks for them.
/// The app falls back to `subscriptionProductIds` for any arm it cannot show, so a wrong value breaks no paywall, but
/// it silently ends the experiment for that arm: this check says so before the split is published.
extension StoreKitCheck {
    /// Findings for the default and every rule value of `paywallProduct`.
    static func paywallProductFindings(_ document: FlagDocument, file: String, against configuration: StoreKitConfiguration,
                                       storeKitFile: String) -> [StoreKitFinding] {
        let key = SymiFlags.PaywallProduct.key
        guard let flag = document.flags[key] else { return [] }
        let base = JSONPath.appending("/flags", key)
        let values = [(base + "/default", flag.defaultValue)] + flag.rules.enumerated().map { ("\(base)/rules/\($0.offset)/value", $0.element.value) }
        // The group the paywall's default products are in: an arm in another group would be a second subscription.
        let defaultIds = productIdValues(in: document).first?.1.arrayValue?.compactMap(\.stringValue) ?? []
        let groupName = defaultIds.lazy.compactMap { configuration.subscription($0)?.1.name }.first ?? SymiCatalog.subscriptionGroupName
        var findings: [StoreKitFinding] = []
        func finding(_ path: String, _ message: String) {
            findings.append(StoreKitFinding(file: file, path: path, rule: .paywallProduct, message: message))
        }
        for (path, value) in values {
            guard let text = value.stringValue else {
                finding(path, "must be a product id string (got \(value.typeName))")
                continue
            }
            guard !text.isEmpty else { continue }
            guard let (product, offer) = SymiFlags.PaywallProduct.parse(text) else {
                finding(path, "\(JSONValue.string(text)) is not \"productId\" or \"productId/offerId\"; the app shows subscriptionProductIds instead")
                continue
            }
            guard let (subscription, group) = configuration.subscription(product) else {
                finding(path, "\(JSONValue.string(product)) is not a subscription in \(storeKitFile); the app shows subscriptionProductIds instead")
                continue
            }
            if group.name != groupName {
                finding(path, "\(JSONValue.string(product)) is in group \"\(group.name)\" of \(storeKitFile), not \"\(groupName)\" of subscriptionProductIds' products; the app shows those instead")
            }
            if SymiCatalog.product(withId: product) == nil {
                finding(path, "\(JSONValue.string(product)) is not in the product catalogue (SymiCatalog); the app shows subscriptionProductIds instead")
            }
            if let offer, !subscription.promotionalOfferIds.contains(offer) {
                finding(path, "\(JSONValue.string(offer)) is not a promotional offer of \(product) in \(storeKitFile); the app shows \(product) without it")
            }
        }
        return findings
    }
}
