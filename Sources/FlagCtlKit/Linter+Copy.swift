import FlagKit
import Foundation

/// The copy rules: no hard-coded prices, amounts or currencies, no "forever free" promises.
///
/// Patterns are ICU regular expressions, matched case-insensitively on NFC-normalized text so a
/// decomposed "für" (u + combining diaeresis) is caught like a precomposed one.
extension Linter {
    /// Whitespace that may sit between an amount and its currency, including the no-break spaces
    /// typographers put there (U+00A0, U+202F).
    private static let gap = #"[\s\u00A0\u202F]?"#

    /// `2,99`, `4.99`, `3`, `1.299,00`, `5.-` (Swiss style), `5,–`.
    private static let amount = #"(?<![\d.,])\d+(?:[.,]\d{3})*(?:[.,](?:\d{1,2}(?!\d)|-{1,2}|–))?"#

    /// Currency symbols and codes. Deliberately absent: "pound"/"Pfund" and "ct", which in a health
    /// journal more likely mean body weight and computed tomography than money.
    /// Letters, not `\b`, bound the codes: `\b` finds no boundary between `EUR` and `2` in `EUR2.99`.
    private static let currency = #"(?:US\$|A\$|C\$|[€$£¥₣₹]|(?<!\p{L})(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|euros?|dollars?|franken|cents?|rappen)(?!\p{L})|(?<!\p{L})s?fr\.)"#

    /// Currency before or after an amount.
    static let pricePatterns = [
        currency + gap + amount,
        amount + gap + currency,
    ]

    /// "Forever free" and close variants, German and English. Up to two words may sit between the
    /// parts ("für immer komplett kostenlos", "always 100% free" is caught by "always ... free").
    static let foreverFreePatterns = [
        // für immer gratis, immer kostenlos, dauerhaft kostenlos, lebenslang gratis, für alle Zeiten kostenlos
        #"\b(?:f(?:ü|ue|u)r\s+immer(?:\s+und\s+ewig)?|immer|dauerhaft|lebenslang|lebenslänglich|permanent|ewig|stets|unbegrenzt|unbefristet|auf\s+ewig|f(?:ü|ue|u)r\s+alle\s+zeiten?)[\s,.!–—-]+(?:[\w%-]+\s+){0,2}?(?:gratis|kostenlos|kostenfrei|umsonst|free)\b"#,
        // kostenlos für immer, gratis auf Dauer
        #"\b(?:gratis|kostenlos|kostenfrei|umsonst)[\s,.!–—-]+(?:[\w%-]+\s+){0,1}?(?:f(?:ü|ue|u)r\s+immer|auf\s+ewig|auf\s+dauer|dauerhaft|lebenslang|f(?:ü|ue|u)r\s+alle\s+zeiten?)\b"#,
        // forever free, always free, free for life as "lifetime free", permanently free
        #"\b(?:forever|always|permanently|eternally|perpetually|for\s+ever|for\s+life|lifetime)[\s,.!–—-]+(?:[\w%-]+\s+){0,2}?(?:free|gratis|at\s+no\s+cost|free\s+of\s+charge)\b"#,
        // free forever, free for life, free for good, free, always
        #"\b(?:free|gratis|at\s+no\s+cost|free\s+of\s+charge)[\s,.!–—-]+(?:[\w%-]+\s+){0,1}?(?:forever|for\s+ever|for\s+life|for\s+good|always|permanently|eternally)\b"#,
        // never pay / nie bezahlen
        #"\bnever\s+(?:have\s+to\s+)?pay\b"#,
        #"\bnie(?:mals)?\s+(?:etwas\s+)?(?:be)?zahlen\b"#,
    ]

    /// Compiles patterns; a pattern that does not compile is left out (a unit test checks that
    /// every one compiles, so this cannot silently weaken a release).
    static func compile(_ patterns: [String]) -> [NSRegularExpression] {
        patterns.compactMap { try? NSRegularExpression(pattern: $0, options: [.caseInsensitive]) }
    }

    /// Every match of any pattern in `text`, in order of position, overlapping matches merged.
    static func matches(of expressions: [NSRegularExpression], in text: String) -> [String] {
        let normalized = text.precomposedStringWithCanonicalMapping
        let whole = NSRange(normalized.startIndex..., in: normalized)
        var ranges: [Range<String.Index>] = []
        for expression in expressions {
            for match in expression.matches(in: normalized, range: whole) {
                if let range = Range(match.range, in: normalized) { ranges.append(range) }
            }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<String.Index>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged.map { String(normalized[$0]) }
    }

    /// A currency without an amount ("in Euro", "€"), or an amount that reads as a price without a currency ("2,99"):
    /// neither belongs in copy either, since the app shows StoreKit's localized price, currency and all.
    static let bareMoneyPatterns = [
        currency,
        #"(?<![\d.,])\d+[.,]\d{2}(?![\d.,])"#,
    ]

    static func hardCodedPrices(in copy: CopyString) -> [LintFinding] {
        let prices = matches(of: compile(pricePatterns), in: copy.text)
        var rest = copy.text.precomposedStringWithCanonicalMapping
        for price in prices { rest = rest.replacingOccurrences(of: price, with: " ") }
        let bare = matches(of: compile(bareMoneyPatterns), in: rest)
        return prices.map { found in
            LintFinding(flag: copy.flag, rule: .hardCodedPrice, path: copy.path,
                        message: "hard-coded price \(JSONValue.string(found)): show the price from StoreKit instead (brief section 9)")
        } + bare.map { found in
            LintFinding(flag: copy.flag, rule: .hardCodedPrice, path: copy.path,
                        message: "amount or currency \(JSONValue.string(found)) in copy: use a {price} template filled from StoreKit (brief section 9)")
        }
    }

    static func foreverFreeClaims(in copy: CopyString) -> [LintFinding] {
        matches(of: compile(foreverFreePatterns), in: copy.text).map { found in
            LintFinding(flag: copy.flag, rule: .foreverFree, path: copy.path,
                        message: "\(JSONValue.string(found)) promises free use forever while monetization is planned (brief section 9)")
        }
    }
}
