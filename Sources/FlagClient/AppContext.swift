import FlagKit
import Foundation

/// What the app knows about itself, for targeting: everything in the evaluation context except the install id,
/// which the client owns (``InstallIdentity``).
///
/// On iOS the app fills it from `Bundle.main` (`CFBundleShortVersionString`), `UIDevice.current.systemVersion`,
/// `Locale.current.identifier`, the storefront's country, and the channel it was built for; `firstInstallDate` once
/// the verified `AppTransaction` is read (asynchronously after launch: then ``FlagClient/updateApp(_:)`` evaluates again).
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
    /// When this install was first downloaded: the verified `AppTransaction`'s date. Nil while it is unknown (not
    /// read yet, unverified, the store failing): then no cohort on `firstInstallDate` matches, so no early-user rule
    /// decides anything for this install.
    public var firstInstallDate: Date?
    /// Further attributes by name.
    public var custom: [String: JSONValue]

    /// Creates a context; every attribute is optional (an absent attribute matches no cohort condition but `exists: false`).
    public init(appVersion: String? = nil, osVersion: String? = nil, platform: String? = nil, locale: String? = nil,
                country: String? = nil, channel: String? = nil, firstInstallDate: Date? = nil, custom: [String: JSONValue] = [:]) {
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.platform = platform
        self.locale = locale
        self.country = country
        self.channel = channel
        self.firstInstallDate = firstInstallDate
        self.custom = custom
    }

    /// The full evaluation context for the install `installId`.
    public func evaluationContext(installId: String) -> EvaluationContext {
        EvaluationContext(installId: installId, appVersion: appVersion, osVersion: osVersion, platform: platform,
                          locale: locale, country: country, channel: channel,
                          firstInstallDate: firstInstallDate.flatMap(Self.rfc3339), custom: custom)
    }

    /// The instants RFC 3339 can write (0001-01-01 to 9999-12-31, UTC), in milliseconds since 1970.
    static let writableMilliseconds: ClosedRange<Double> = -62_135_596_800_000...253_402_300_799_999

    /// A date as FlagKit's RFC 3339 text, to the millisecond (truncated, as FlagKit reads longer fractions);
    /// nil for a date RFC 3339 cannot write, which then counts as unknown rather than trapping.
    static func rfc3339(_ date: Date) -> String? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard writableMilliseconds.contains(milliseconds), let exact = Int64(exactly: milliseconds) else { return nil }
        return RFC3339.string(milliseconds: exact)
    }
}
