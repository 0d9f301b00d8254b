import AppStoreNotifications
import CommandLineKit
import FlagService

/// The App Store notification receiver's options (`--appstore-*`, docs/appstore.md "Receiving notifications").
/// Their dependencies are usage errors (exit 64): a root needs the bundle ID, and the app's Apple ID when Production
/// is accepted (Apple's libraries refuse to verify Production without it). The certificate files are read when the
/// server starts (`appStoreVerifier()`), also a usage error when one cannot be read or is not a certificate.
extension ServeCommand {
    /// Reads the `--appstore-*` options and checks how they depend on each other.
    mutating func readAppStoreOptions(_ parsed: ParsedArguments) throws(UsageError) {
        // Each path on the command line whole, the variable's split at commas (as `appstore backfill` reads them).
        appStoreRootCertificates = try AppStoreVerificationOptions.rootCertificatePaths(parsed, Self.appStoreRootCertificateOption)
        appStoreBundleID = try parsed.value(Self.appStoreBundleIDOption)
        appStoreAppAppleID = try parsed.value(Self.appStoreAppAppleIDOption)
        appStoreEnvironments = try parsed.value(Self.appStoreEnvironmentsOption) ?? appStoreEnvironments
        appStoreRetentionDays = try parsed.value(Self.appStoreRetentionDaysOption) ?? appStoreRetentionDays
        guard !appStoreRootCertificates.isEmpty else { return }
        guard appStoreBundleID != nil else {
            throw UsageError("--appstore-root-certificate needs --appstore-bundle-id (the app whose notifications are accepted)")
        }
        if appStoreEnvironments.contains(.production) && appStoreAppAppleID == nil {
            throw UsageError("--appstore-root-certificate with Production accepted needs --appstore-app-apple-id (the app's Apple ID, "
                                 + "App Store Connect > App Information)")
        }
    }

    /// The verifier of received notifications, from the root certificate files; nil when none is given (the receiver
    /// is off). A file that cannot be read or holds no certificate libcrypto accepts is a usage error naming it.
    func appStoreVerifier() throws(UsageError) -> SignedPayloadVerifier? {
        guard !appStoreRootCertificates.isEmpty, let bundleID = appStoreBundleID else { return nil }
        return try AppStoreVerificationOptions.verifier(rootPaths: appStoreRootCertificates, bundleID: bundleID,
                                                        appAppleID: appStoreAppAppleID, environments: appStoreEnvironments)
    }

    /// The service's App Store options: the verifier (nil: off) and the retention.
    func appStoreOptions(verifier: SignedPayloadVerifier?) -> FlagService.AppStoreOptions {
        FlagService.AppStoreOptions(verifier: verifier, retentionDays: appStoreRetentionDays)
    }
}
