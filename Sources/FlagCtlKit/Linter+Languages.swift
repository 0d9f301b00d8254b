import FlagKit
import Foundation
import SymiSchema

/// The language rules for Symi's copy flags: German by default, English for `en*` locales, every language with the
/// same members, and price templates that keep their `{price}` in every language.
///
/// Checked by evaluating the document for sample installs of each language, so any targeting that gives English
/// locales their texts counts (the documents use an `english` cohort, `locale startsWith "en"`), and one that
/// accidentally reaches German locales is caught too.
extension Linter {
    /// The flags whose values are texts shown to users in the install's language.
    public static let copyFlags = [SymiFlags.Key.introOfferMessage, SymiFlags.Key.subscriptionScreenCopy, SymiFlags.Key.subscriptionPaidCopy]

    /// The placeholder the app fills with StoreKit's localized price.
    static let pricePlaceholder = SubscriptionPaidCopy.pricePlaceholder

    /// Locales that must get the German default.
    static let germanLocales = ["de", "de_DE", "de_AT", "de_CH"]
    /// Locales that must get an English variant.
    static let englishLocales = ["en", "en_US", "en_GB"]

    /// A sample install of `locale` for the language checks: no cohort of testers, the store channel.
    static func sampleContext(_ locale: String) -> EvaluationContext {
        EvaluationContext(installId: "flagctl-lint-\(locale)", appVersion: "99.0.0", platform: "ios", locale: locale,
                          channel: "appstore")
    }

    /// Every copy flag in the document has a German default that German locales get, an English variant that
    /// English locales get, and the same members in every value.
    static func languageFindings(in document: FlagDocument) -> [LintFinding] {
        var findings: [LintFinding] = []
        for key in copyFlags {
            guard let flag = document.flags[key] else { continue }
            let base = JSONPath.appending("/flags", key)
            let german = germanLocales.filter { document.evaluate(key, context: sampleContext($0)).value != flag.defaultValue }
            if !german.isEmpty {
                findings.append(LintFinding(flag: key, rule: .copyLanguages, path: base,
                                            message: "German locales (\(german.joined(separator: ", "))) must get the German default, but a rule changes it for them"))
            }
            let english = englishLocales.filter { document.evaluate(key, context: sampleContext($0)).value == flag.defaultValue }
            if !english.isEmpty {
                findings.append(LintFinding(flag: key, rule: .copyLanguages, path: base,
                                            message: "no English variant for \(english.joined(separator: ", ")): add a rule for the english cohort (locale startsWith \"en\")"))
            }
            for (index, rule) in flag.rules.enumerated() {
                findings += shapeFindings(rule.value, like: flag.defaultValue, flag: key, path: "\(base)/rules/\(index)/value")
            }
        }
        return findings
    }

    /// A translation must have exactly the members of the default: a missing one would make the app discard the
    /// whole value for the compiled-in copy, an extra one is a typo nobody reads.
    static func shapeFindings(_ value: JSONValue, like original: JSONValue, flag: String, path: String) -> [LintFinding] {
        guard case .object(let defaultMembers) = original else {
            if original.typeName != value.typeName {
                return [LintFinding(flag: flag, rule: .copyLanguages, path: path,
                                    message: "is \(value.typeName), but the default is \(original.typeName)")]
            }
            return []
        }
        guard case .object(let members) = value else {
            return [LintFinding(flag: flag, rule: .copyLanguages, path: path, message: "must be an object like the default (got \(value.typeName))")]
        }
        var findings: [LintFinding] = []
        for name in defaultMembers.keys.sorted(by: JSONValue.utf8Order) where members[name] == nil {
            findings.append(LintFinding(flag: flag, rule: .copyLanguages, path: path, message: "missing \(name), which the default has"))
        }
        for name in members.keys.sorted(by: JSONValue.utf8Order) where defaultMembers[name] == nil {
            findings.append(LintFinding(flag: flag, rule: .copyLanguages, path: JSONPath.appending(path, name),
                                        message: "\(name) is not in the default"))
        }
        return findings
    }

    /// Members named `...Template` hold `{price}` exactly once, in every language; no other text holds it (the app
    /// would show the braces).
    static func pricePlaceholderFindings(in copy: [CopyString]) -> [LintFinding] {
        copy.compactMap { string in
            let count = string.text.components(separatedBy: pricePlaceholder).count - 1
            let member = string.path.split(separator: "/").last.map(String.init) ?? ""
            if member.hasSuffix("Template") {
                guard count != 1 else { return nil }
                return LintFinding(flag: string.flag, rule: .pricePlaceholder, path: string.path,
                                   message: count == 0
                                       ? "template without {price}: the button would not show StoreKit's price"
                                       : "template with \(count) {price} placeholders; use exactly one")
            }
            guard count > 0 else { return nil }
            return LintFinding(flag: string.flag, rule: .pricePlaceholder, path: string.path,
                               message: "{price} outside a ...Template member is shown as written; only templates are filled")
        }
    }
}
