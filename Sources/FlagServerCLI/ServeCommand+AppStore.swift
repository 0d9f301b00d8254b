import AppStoreNotifications
import CommandLineKit
import FlagService
import Foundation
import HTTPServer

/// The App Store notification receiver's options (`--appstore-*`, docs/appstore.md "Receiving notifications").
/// Their dependencies are usage errors (exit 64): a root needs the bundle ID, and the app's Apple ID when Production
/// is accepted (Apple's libraries refuse to verify Production without it). The certificate files are read when the
/// server starts (`appStoreVerifier()`), also a usage error when one cannot be read or is not a certificate.
extension ServeCommand {
    /// Reads the `--appstore-*` options and checks how they depend on each other.
    mutating func readAppStoreOptions(_ parsed: ParsedArguments) throws(UsageError) {
        let roots = try parsed.values(Self.appStoreRootCertificateOption)
        // Several paths in the variable are separated by commas; a path given on the command line is taken whole.
        if case .environment? = parsed.origin(of: Self.appStoreRootCertificateOption) {
            appStoreRootCertificates = roots.flatMap { $0.split(separator: ",") }.map { String(HTTPHeaders.trimmed($0)) }.filter { !$0.isEmpty }
        } else {
            appStoreRootCertificates = roots
        }
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
        var roots: [[UInt8]] = []
        for path in appStoreRootCertificates {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--appstore-root-certificate \(path): cannot read the file")
            }
            do {
                roots += try AppStoreVerifierConfiguration.certificates(fromFile: [UInt8](data))
            } catch {
                throw UsageError("--appstore-root-certificate \(path): not a PEM or DER certificate (\(error.detail))")
            }
        }
        do {
            return try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
                rootCertificates: roots, bundleID: bundleID, appAppleID: appStoreAppAppleID, environments: appStoreEnvironments))
        } catch {
            throw UsageError("--appstore-root-certificate: \(error.detail)")
        }
    }

    /// The service's App Store options: the verifier (nil: off) and the retention.
    func appStoreOptions(verifier: SignedPayloadVerifier?) -> FlagService.AppStoreOptions {
        FlagService.AppStoreOptions(verifier: verifier, retentionDays: appStoreRetentionDays)
    }
}
