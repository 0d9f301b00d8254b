import FlagKit
import SymiCatalog
import SymiSchema

/// `paywallProduct`: a price or offer experiment's arms (docs/guards.md, "Running an experiment"). The app shows the
/// default products for any value it cannot use, so a typo does not break the paywall; it silently ends the arm,
/// which this rule says before it is published. The StoreKit side (is the product in the file, in the group) is
/// `flagctl storekit check`'s `paywall-product`.
extension Linter {
    static let paywallKey = SymiFlags.PaywallProduct.key

    static func paywallProductFindings(in document: FlagDocument) -> [LintFinding] {
        guard let flag = document.flags[paywallKey] else { return [] }
        let base = JSONPath.appending("/flags", paywallKey)
        func finding(_ path: String, _ message: String) -> LintFinding {
            LintFinding(flag: paywallKey, rule: .paywallProduct, path: path, message: message)
        }
        guard flag.type == .string else {
            return [finding(base + "/type", "must be a string flag (got \(flag.type.rawValue)); the app would show subscriptionProductIds")]
        }
        var findings: [LintFinding] = []
        var values = [(base + "/default", flag.defaultValue)]
        for (index, rule) in flag.rules.enumerated() {
            let path = "\(base)/rules/\(index)"
            values.append((path + "/value", rule.value))
            if rule.cohort != nil {
                findings.append(finding(path + "/cohort", "an experiment splits every install by percentage: a rule for a cohort makes "
                                                        + "the arms incomparable, and the experiment report refuses the flag"))
            }
        }
        for (path, value) in values {
            guard let text = value.stringValue, !text.isEmpty else { continue }
            guard let (product, _) = SymiFlags.PaywallProduct.parse(text) else {
                findings.append(finding(path, "\(JSONValue.string(text)) is not \"productId\" or \"productId/offerId\"; the app would show subscriptionProductIds"))
                continue
            }
            if SymiCatalog.product(withId: product) == nil {
                findings.append(finding(path, "\(JSONValue.string(product)) is not in the product catalogue (SymiCatalog); the app would show subscriptionProductIds"))
            }
        }
        return findings
    }
}
