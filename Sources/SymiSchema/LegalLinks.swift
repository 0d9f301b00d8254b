import FlagKit
import Foundation

/// Privacy policy and terms of use (flag `legalLinks`); App Review requires both on the subscription screen.
public struct LegalLinks: Sendable, Equatable {
    /// The privacy policy ("Datenschutz").
    public var privacyPolicy: URL
    /// The terms of use ("Nutzungsbedingungen").
    public var termsOfUse: URL

    /// Creates links.
    public init(privacyPolicy: URL, termsOfUse: URL) {
        self.privacyPolicy = privacyPolicy
        self.termsOfUse = termsOfUse
    }

    /// The links in a flag value, or `nil` unless both are absolute `https` URLs with a host (a link the
    /// app cannot open safely is worse than the compiled-in one).
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
              let privacy = object["privacyPolicyURL"]?.stringValue.flatMap(Self.httpsURL),
              let terms = object["termsOfUseURL"]?.stringValue.flatMap(Self.httpsURL) else { return nil }
        self.init(privacyPolicy: privacy, termsOfUse: terms)
    }

    /// `text` as a URL when it is `https` with a host.
    static func httpsURL(_ text: String) -> URL? {
        guard let url = URL(string: text), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            return nil
        }
        return url
    }

    /// The German links of `flags/production.json`. `URL(string:)` cannot fail on these literals (a test checks the
    /// result); the `??` only exists because the initializer is optional and this module never force-unwraps.
    static let fallback = LegalLinks(
        privacyPolicy: httpsURL("https://symi.app/datenschutz") ?? URL(fileURLWithPath: "/"),
        termsOfUse: httpsURL("https://symi.app/nutzungsbedingungen") ?? URL(fileURLWithPath: "/"))
}
