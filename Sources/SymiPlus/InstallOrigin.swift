import Foundation

/// Where this install comes from, as the App Store signed it (`AppTransaction.shared`, iOS 16): the date of the first
/// download of the app by this Apple ID and the app version downloaded then. The lead wires ``firstInstallDate`` into
/// the flag evaluation context (the `firstInstallDate` attribute), so that early users can be kept open through flags.
///
/// The rule, built into the type: **unknown or unverified means no date.** An app transaction StoreKit could not
/// verify, or could not get at all (offline at the first launch, not signed in), gives `firstInstallDate == nil`; a
/// flag rule must then treat the install as "date unknown" (never "after" the switch, and never locked because the date
/// is missing).
public struct InstallOrigin: Sendable, Equatable {
    /// The first download date (`AppTransaction.originalPurchaseDate`); `nil` unless verified.
    public let firstInstallDate: Date?
    /// The version first downloaded (`AppTransaction.originalAppVersion`: the build number, `CFBundleVersion`, on
    /// iOS); `nil` unless verified.
    public let originalAppVersion: String?
    /// Whether StoreKit verified the app transaction.
    public let isVerified: Bool
    /// Why nothing is known, for logs (`nil` when verified).
    public let unknownReason: String?

    /// A verified app transaction's values.
    public static func verified(firstInstallDate: Date, originalAppVersion: String) -> InstallOrigin {
        InstallOrigin(firstInstallDate: firstInstallDate, originalAppVersion: originalAppVersion, isVerified: true,
                      unknownReason: nil)
    }

    /// Nothing known: the app transaction failed verification or could not be read. Carries no date by construction.
    public static func unknown(_ reason: String) -> InstallOrigin {
        InstallOrigin(firstInstallDate: nil, originalAppVersion: nil, isVerified: false, unknownReason: reason)
    }

    private init(firstInstallDate: Date?, originalAppVersion: String?, isVerified: Bool, unknownReason: String?) {
        self.firstInstallDate = firstInstallDate
        self.originalAppVersion = originalAppVersion
        self.isVerified = isVerified
        self.unknownReason = unknownReason
    }
}
