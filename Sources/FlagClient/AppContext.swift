import FlagKit

/// What the app knows about itself, for targeting: everything in the evaluation context except the install id,
/// which the client owns (``InstallIdentity``).
///
/// On iOS the app fills it from `Bundle.main` (`CFBundleShortVersionString`), `UIDevice.current.systemVersion`,
/// `Locale.current.identifier`, the storefront's country, and the channel it was built for.
public struct AppContext: Sendable, Equatable {
    /// The app's version (`2.4.1`), compared as a semantic version.
    public var appVersion: String?
    /// The OS version (`17.4`), compared as a semantic version.
    public var osVersion: String?
    /// `ios`, `ipados`, `macos`, ...
    public var platform: String?
    /// The locale identifier (`de_DE`, `en-US`).
    public var locale: String?
    /// ISO 3166 country code.
    public var country: String?
    /// `appstore`, `testflight` or `debug`.
    public var channel: String?
    /// Further attributes by name.
    public var custom: [String: JSONValue]

    /// Creates a context; every attribute is optional (an absent attribute matches no cohort condition but `exists: false`).
    public init(appVersion: String? = nil, osVersion: String? = nil, platform: String? = nil, locale: String? = nil,
                country: String? = nil, channel: String? = nil, custom: [String: JSONValue] = [:]) {
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.platform = platform
        self.locale = locale
        self.country = country
        self.channel = channel
        self.custom = custom
    }

    /// The full evaluation context for the install `installId`.
    public func evaluationContext(installId: String) -> EvaluationContext {
        EvaluationContext(installId: installId, appVersion: appVersion, osVersion: osVersion, platform: platform,
                          locale: locale, country: country, channel: channel, custom: custom)
    }
}
