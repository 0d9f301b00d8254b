import FlagKit
import Foundation
import SymiSchema

/// The review rules of the brief (section 9) applied to a flag document.
public enum Linter {
    /// Symi's monetization flags; the "forever free" rule applies while any of them exists.
    public static let monetizationFlags = [
        SymiFlags.Key.monetizationEnabled, SymiFlags.Key.premiumFeaturesLocked, SymiFlags.Key.showIntroFreeSubscriptionBanner,
        SymiFlags.Key.subscriptionPriceIncreaseMessagingEnabled, SymiFlags.Key.billingRetryAccessDays,
    ]

    /// Findings for raw bytes: the validation problems when the document is invalid (the review
    /// rules need a valid document to mean anything), else the review rules' findings.
    public static func lint<Bytes: Sequence>(_ bytes: Bytes) -> [LintFinding] where Bytes.Element == UInt8 {
        do {
            return lint(try FlagDocument.decode(bytes))
        } catch {
            return error.issues.map { issue in
                LintFinding(flag: LintFinding.flagKey(inPath: issue.path), rule: .validDocument, path: issue.path, message: issue.message)
            }
        }
    }

    /// Findings of every review rule for a valid document, in rule order, then path order.
    public static func lint(_ document: FlagDocument) -> [LintFinding] {
        var findings: [LintFinding] = []
        let copy = copyStrings(in: document)
        findings += copy.flatMap { hardCodedPrices(in: $0) }
        if monetizationFlags.contains(where: { document.flags[$0] != nil }) {
            findings += copy.flatMap { foreverFreeClaims(in: $0) }
        }
        findings += legalLinkFindings(in: document)
        findings += premiumLockFindings(in: document)
        findings += installDateFindings(in: document)
        findings += languageFindings(in: document)
        findings += pricePlaceholderFindings(in: copy)
        findings += billingRetryFindings(in: document)
        findings += paywallProductFindings(in: document)
        return findings
    }

    /// A string somewhere inside a flag's default or rule values.
    struct CopyString {
        let flag: String
        let path: String
        let text: String
    }

    /// Every string in every flag value (defaults and rule values, nested arrays and objects
    /// included). Descriptions are left out: they are for operators, not shown in the app.
    static func copyStrings(in document: FlagDocument) -> [CopyString] {
        var result: [CopyString] = []
        func collect(_ value: JSONValue, flag: String, path: String) {
            switch value {
            case .string(let text): result.append(CopyString(flag: flag, path: path, text: text))
            case .array(let elements):
                for (index, element) in elements.enumerated() { collect(element, flag: flag, path: "\(path)/\(index)") }
            case .object(let members):
                for key in members.keys.sorted(by: JSONValue.utf8Order) {
                    collect(members[key, default: .null], flag: flag, path: JSONPath.appending(path, key))
                }
            case .null, .bool, .integer, .number: break
            }
        }
        for key in document.sortedFlagKeys {
            guard let flag = document.flags[key] else { continue }
            let base = JSONPath.appending("/flags", key)
            collect(flag.defaultValue, flag: key, path: base + "/default")
            for (index, rule) in flag.rules.enumerated() { collect(rule.value, flag: key, path: "\(base)/rules/\(index)/value") }
        }
        return result
    }

    /// The keys `legalLinks` must hold.
    static let legalLinkKeys = ["privacyPolicyURL", "termsOfUseURL"]

    /// `legalLinks` must exist, be a `json` flag, and every value it can give (default and each
    /// rule) must be an object with both links as https URLs with a host.
    static func legalLinkFindings(in document: FlagDocument) -> [LintFinding] {
        let key = SymiFlags.Key.legalLinks
        let base = JSONPath.appending("/flags", key)
        guard let flag = document.flags[key] else {
            return [LintFinding(flag: key, rule: .legalLinks, path: base,
                                message: "missing: add a json flag legalLinks with https privacyPolicyURL and termsOfUseURL (App Review requires both)")]
        }
        var findings: [LintFinding] = []
        var values = [(base + "/default", flag.defaultValue)]
        values += flag.rules.enumerated().map { ("\(base)/rules/\($0.offset)/value", $0.element.value) }
        for (path, value) in values {
            guard case .object(let links) = value else {
                findings.append(LintFinding(flag: key, rule: .legalLinks, path: path,
                                            message: "must be an object with privacyPolicyURL and termsOfUseURL (got \(value.typeName))"))
                continue
            }
            for linkKey in legalLinkKeys {
                let linkPath = JSONPath.appending(path, linkKey)
                guard let link = links[linkKey] else {
                    findings.append(LintFinding(flag: key, rule: .legalLinks, path: linkPath, message: "missing \(linkKey)"))
                    continue
                }
                if let problem = httpsProblem(link) {
                    findings.append(LintFinding(flag: key, rule: .legalLinks, path: linkPath, message: problem))
                }
            }
        }
        return findings
    }

    /// Why a link is not an https URL with a host; nil when it is one.
    static func httpsProblem(_ link: JSONValue) -> String? {
        guard case .string(let text) = link else { return "must be an https URL string (got \(link.typeName))" }
        guard let components = URLComponents(string: text), let scheme = components.scheme else {
            return "\(JSONValue.string(text)) is not a URL"
        }
        guard scheme.lowercased() == "https" else { return "\(JSONValue.string(text)) must use https (got \(scheme))" }
        guard let host = components.host, !host.isEmpty else { return "\(JSONValue.string(text)) has no host" }
        return nil
    }
}
