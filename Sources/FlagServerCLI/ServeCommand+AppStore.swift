import AppStoreNotifications
import CommandLineKit
import FlagService
import Foundation

/// The App Store options (`--appstore-*`): the notification receiver's (docs/appstore.md "Receiving notifications") and
/// the promotional offer key's (docs/guards.md "Running an experiment").
/// Their dependencies are usage errors (exit 64): a root needs the bundle ID, and the app's Apple ID when Production
/// is accepted (Apple's libraries refuse to verify Production without it); the offer key needs its ID and the bundle
/// ID. The certificate and key files are read when the server starts (`appStoreVerifier()`, `appStoreOfferSigner()`),
/// also a usage error when one cannot be read or is not a certificate or key.
extension ServeCommand {
    /// Reads the `--appstore-*` options and checks how they depend on each other.
    mutating func readAppStoreOptions(_ parsed: ParsedArguments) throws(UsageError) {
        // Each path on the command line whole, the variable's split at commas (as `appstore backfill` reads them).
        appStoreRootCertificates = try AppStoreVerificationOptions.rootCertificatePaths(parsed, Self.appStoreRootCertificateOption)
        appStoreBundleID = try parsed.value(Self.appStoreBundleIDOption)
        appStoreAppAppleID = try parsed.value(Self.appStoreAppAppleIDOption)
        appStoreEnvironments = try parsed.value(Self.appStoreEnvironmentsOption) ?? appStoreEnvironments
        appStoreRetentionDays = try parsed.value(Self.appStoreRetentionDaysOption) ?? appStoreRetentionDays
        try readOfferKeyOptions(parsed)
        guard !appStoreRootCertificates.isEmpty else { return }
        guard appStoreBundleID != nil else {
            throw UsageError("--appstore-root-certificate needs --appstore-bundle-id (the app whose notifications are accepted)")
        }
        if appStoreEnvironments.contains(.production) && appStoreAppAppleID == nil {
            throw UsageError("--appstore-root-certificate with Production accepted needs --appstore-app-apple-id (the app's Apple ID, "
                                 + "App Store Connect > App Information)")
        }
    }

    /// `--appstore-offer-key` and `--appstore-offer-key-id`: both or neither, and the bundle ID the payload names. The
    /// bundle ID is asked for first: each option alone then names the one dependency both have.
    private mutating func readOfferKeyOptions(_ parsed: ParsedArguments) throws(UsageError) {
        appStoreOfferKey = try parsed.value(Self.appStoreOfferKeyOption)
        appStoreOfferKeyID = try parsed.value(Self.appStoreOfferKeyIDOption)
        guard appStoreOfferKey != nil || appStoreOfferKeyID != nil else { return }
        guard appStoreBundleID != nil else {
            let given = appStoreOfferKey != nil ? "--appstore-offer-key" : "--appstore-offer-key-id"
            throw UsageError("\(given) needs --appstore-bundle-id (the app whose promotional offers are signed)")
        }
        guard appStoreOfferKeyID != nil else {
            throw UsageError("--appstore-offer-key needs --appstore-offer-key-id (the key's ID in App Store Connect)")
        }
        guard appStoreOfferKey != nil else {
            throw UsageError("--appstore-offer-key-id needs --appstore-offer-key (the .p8 file of that key)")
        }
    }

    /// The signer of promotional offers, its key read from `--appstore-offer-key`; nil when none is given (signing is
    /// off). A file that cannot be read or is not a P-256 private key is a usage error naming it, as a root is.
    func appStoreOfferSigner() throws(UsageError) -> PromotionalOfferSigner? {
        guard let path = appStoreOfferKey, let keyID = appStoreOfferKeyID, let bundleID = appStoreBundleID else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--appstore-offer-key \(path): cannot read the file")
        }
        do {
            return PromotionalOfferSigner(key: try AppStoreAPIKey(pem: [UInt8](data), keyID: keyID), bundleID: bundleID)
        } catch {
            throw UsageError("--appstore-offer-key \(path): \(error.detail)")
        }
    }

    /// The verifier of received notifications, from the root certificate files; nil when none is given (the receiver
    /// is off). A file that cannot be read or holds no certificate libcrypto accepts is a usage error naming it.
    func appStoreVerifier() throws(UsageError) -> SignedPayloadVerifier? {
        guard !appStoreRootCertificates.isEmpty, let bundleID = appStoreBundleID else { return nil }
        return try AppStoreVerificationOptions.verifier(rootPaths: appStoreRootCertificates, bundleID: bundleID,
                                                        appAppleID: appStoreAppAppleID, environments: appStoreEnvironments)
    }

    /// The service's App Store options: the verifier (nil: off), the retention and the offer signer (nil: off).
    func appStoreOptions(verifier: SignedPayloadVerifier?, offerSigner: PromotionalOfferSigner? = nil) -> FlagService.AppStoreOptions {
        FlagService.AppStoreOptions(verifier: verifier, retentionDays: appStoreRetentionDays, offerSigner: offerSigner)
    }
}
