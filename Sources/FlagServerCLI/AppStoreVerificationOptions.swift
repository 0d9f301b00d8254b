import AppStoreNotifications
import CommandLineKit
import Foundation

/// The App Store receiver's verification options as `appstore backfill` takes them: the names, variables, splitting and
/// messages of `serve`'s (`ServeCommand.appStore*Option`, `appStoreVerifier()`), so that the service's environment
/// file configures both and a backfill verifies exactly as the receiver does. Required here (a backfill cannot work
/// without them), optional for `serve` (no root: the receiver is off).
enum AppStoreVerificationOptions {
    /// `--appstore-root-certificate FILE`, repeatable; the variable takes paths separated by commas.
    static func rootCertificateOption(required: Bool) -> Option<String> {
        Option("appstore-root-certificate", valueName: "file",
               help: "a root certificate App Store notifications must chain to, PEM or DER (Apple Root CA - G3 from "
                   + "https://www.apple.com/certificateauthority/; repeatable, the variable takes paths separated by commas)",
               repeatable: true, required: required, environment: "FLAGSERVER_APPSTORE_ROOT_CERTIFICATE")
    }

    /// `--appstore-bundle-id ID`: the app's bundle ID notifications must name.
    static func bundleIDOption(required: Bool) -> Option<String> {
        Option("appstore-bundle-id", valueName: "id", help: "the app's bundle ID App Store notifications must name",
               required: required, environment: "FLAGSERVER_APPSTORE_BUNDLE_ID") { text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError("--appstore-bundle-id must not be empty") }
            return text
        }
    }

    /// `--appstore-app-apple-id N`: the app's Apple ID, required when Production notifications are accepted (Apple's rule).
    static let appAppleIDOption = Option<Int64>(
        "appstore-app-apple-id", valueName: "n",
        help: "the app's Apple ID (App Store Connect > App Information) Production notifications must name; required for Production",
        environment: "FLAGSERVER_APPSTORE_APP_APPLE_ID"
    ) { text throws(UsageError) in
        guard let value = Int64(text), value > 0 else {
            throw UsageError("--appstore-app-apple-id must be a positive integer (the app's Apple ID), got '\(text)'")
        }
        return value
    }

    /// The root certificate paths given: each value on the command line whole, the variable's split at commas.
    static func rootCertificatePaths(_ parsed: ParsedArguments, _ option: Option<String>) throws(UsageError) -> [String] {
        let values = try parsed.values(option)
        guard case .environment? = parsed.origin(of: option) else { return values }
        return values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The verifier of the receiver's configuration, the roots read from `rootPaths` (each PEM, possibly several
    /// blocks, or DER). A file that cannot be read or holds no certificate libcrypto accepts is a usage error naming it.
    static func verifier(rootPaths: [String], bundleID: String, appAppleID: Int64?,
                         environments: Set<AppStoreEnvironment>) throws(UsageError) -> SignedPayloadVerifier {
        var roots: [[UInt8]] = []
        for path in rootPaths {
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
                rootCertificates: roots, bundleID: bundleID, appAppleID: appAppleID, environments: environments))
        } catch {
            throw UsageError("--appstore-root-certificate: \(error.detail)")
        }
    }
}
