import AppStoreNotifications
import CommandLineKit
import Foundation

/// The App Store receiver's verification options: one spelling, one variable and one reading for every command that
/// verifies notifications (`serve`'s receiver, `appstore backfill`), so a backfill checks exactly as the receiver does.
enum AppStoreOptions {
    /// `--appstore-root-certificate PATH`, repeatable; the variable takes paths separated by commas. Required where the
    /// command cannot work without (`appstore backfill`); optional for `serve` (no root: the receiver is off).
    static func rootCertificateOption(required: Bool) -> Option<[String]> {
        Option("appstore-root-certificate", valueName: "path",
               help: "a root certificate App Store notifications must chain to, PEM or DER (Apple Root CA - G3 from "
                   + "https://www.apple.com/certificateauthority/; repeatable, the variable takes paths separated by commas)",
               repeatable: true, required: required, environment: "FLAGSERVER_APPSTORE_ROOT_CERTIFICATE") { text throws(UsageError) in
            let paths = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !paths.isEmpty else { throw UsageError("--appstore-root-certificate needs a path, got '\(text)'") }
            return paths
        }
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
        help: "the app's Apple ID (App Store Connect → App Information) Production notifications must name; required for Production",
        environment: "FLAGSERVER_APPSTORE_APP_APPLE_ID"
    ) { text throws(UsageError) in
        guard let value = Int64(text), value > 0 else {
            throw UsageError("--appstore-app-apple-id must be a positive integer (the app's Apple ID), got '\(text)'")
        }
        return value
    }

    /// Why a verification configuration cannot be built: a root file that cannot be read or parsed.
    struct ConfigurationError: Error, CustomStringConvertible {
        /// One line naming the file and the cause.
        let description: String
    }

    /// The verifier's configuration: the roots read from `rootPaths` (each PEM, possibly several blocks, or DER).
    static func verifierConfiguration(rootPaths: [String], bundleID: String, appAppleID: Int64?,
                                      environments: Set<AppStoreEnvironment>) throws(ConfigurationError)
        -> AppStoreVerifierConfiguration {
        var roots: [[UInt8]] = []
        for path in rootPaths {
            let bytes: [UInt8]
            do {
                bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ConfigurationError(description: "cannot read the root certificate \(path): \(error.localizedDescription)")
            }
            do {
                roots += try AppStoreVerifierConfiguration.certificates(fromFile: bytes)
            } catch {
                throw ConfigurationError(description: "the root certificate \(path) cannot be used: \(error)")
            }
        }
        return AppStoreVerifierConfiguration(rootCertificates: roots, bundleID: bundleID, appAppleID: appAppleID,
                                             environments: environments)
    }
}
