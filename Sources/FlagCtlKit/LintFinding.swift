import Foundation
import FlagKit

/// The review rules `flagctl lint` checks (the brief's section 9, "Rechtliches / Review-Sicherheit").
public enum LintRule: String, Sendable, CaseIterable {
    /// The document must be valid at all.
    case validDocument = "valid-document"
    /// No amount and no currency in any copy: the price always comes from StoreKit.
    case hardCodedPrice = "no-hardcoded-price"
    /// No "forever free" promise while monetization flags exist.
    case foreverFree = "no-forever-free"
    /// A `legalLinks` flag with https `privacyPolicyURL` and `termsOfUseURL` for every install.
    case legalLinks = "legal-links"
    /// `premiumFeaturesLocked` never true where `monetizationEnabled` can be false.
    case premiumLockNeedsMonetization = "premium-lock-needs-monetization"
    /// Every copy flag: a German default for German locales, an English variant for `en*`, the same members in each.
    case copyLanguages = "copy-languages"
    /// `...Template` members keep exactly one `{price}` in every language; no other text holds one.
    case pricePlaceholder = "price-placeholder"
    /// `billingRetryAccessDays`, when present: an integer flag whose every value is 0...60 days.
    case billingRetryAccessDays = "billing-retry-access-days"
    /// No lock for installs because their `firstInstallDate` is unknown (`exists: false`, `not`, or a skipped early-user rule).
    case unknownInstallDateNeverLocks = "unknown-install-date-never-locks"
    /// `paywallProduct`, when present: a string flag whose values are `""`, a catalogue product or `product/offer`, in
    /// rules without a cohort (an experiment's split).
    case paywallProduct = "paywall-product"
}

/// One finding: which flag, which rule, where (JSON pointer), and what is wrong.
public struct LintFinding: Sendable, Equatable, CustomStringConvertible {
    /// The flag concerned; nil for findings about the document as a whole.
    public let flag: String?
    /// The rule broken.
    public let rule: LintRule
    /// RFC 6901 pointer into the document.
    public let path: String
    /// What is wrong and what to do.
    public let message: String

    /// A finding.
    public init(flag: String?, rule: LintRule, path: String, message: String) {
        self.flag = flag
        self.rule = rule
        self.path = path
        self.message = message
    }

    /// `/flags/x/default: [no-hardcoded-price] flag x: ...`.
    public var description: String {
        let subject = flag.map { "flag \($0): " } ?? ""
        return "\(path.isEmpty ? "/" : path): [\(rule.rawValue)] \(subject)\(message)"
    }

    /// The finding as JSON for `--json`.
    public var jsonValue: JSONValue {
        ["flag": flag.map(JSONValue.string) ?? .null, "rule": .string(rule.rawValue), "path": .string(path), "message": .string(message)]
    }

    /// The flag key a pointer under `/flags/KEY` names (RFC 6901 unescaped), for validation issues.
    static func flagKey(inPath path: String) -> String? {
        let tokens = path.split(separator: "/", omittingEmptySubsequences: false)
        guard tokens.count >= 3, tokens[0].isEmpty, tokens[1] == "flags" else { return nil }
        return tokens[2].replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
}
