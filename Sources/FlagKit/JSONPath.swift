import Foundation

/// JSON pointers (RFC 6901) that name where in a document a problem is, e.g.
/// `/flags/premiumFeaturesLocked/rules/1/rollout`.
public enum JSONPath {
    /// The pointer for a list of reference tokens; `~` and `/` inside a token are escaped as
    /// `~0` and `~1` (RFC 6901 section 3).
    public static func pointer<Tokens: Sequence>(_ tokens: Tokens) -> String where Tokens.Element == String {
        var result = ""
        for token in tokens {
            result += "/"
            result += escape(token)
        }
        return result
    }

    /// One reference token, escaped.
    public static func escape(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// `base` extended by more tokens.
    public static func appending(_ base: String, _ tokens: String...) -> String {
        base + pointer(tokens)
    }
}
