import AppStoreNotifications
import AppStoreTestSupport
import CommandLineKit
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver appstore backfill`: its options from the command line and the variables, the usage errors (exit 64), and
/// what fails before Apple's API is asked (exit 1 with one line). The exchange with a stand-in of Apple's API runs in
/// FlagServerProcessTests (AppStoreBackfillProcessTests).
@Suite struct AppStoreCommandTests {
    static let since = RFC3339.string(milliseconds: Int64(Date().timeIntervalSince1970 * 1000) - 86_400_000)

    /// Every required option, Sandbox (no app Apple ID needed).
    static func arguments(keyFile: String = "/nonexistent/key.p8", root: String = "/nonexistent/root.pem",
                          url: String? = nil) -> [String] {
        ["appstore", "backfill", "--since", since, "--appstore-key-file", keyFile, "--appstore-key-id", "KEY",
         "--appstore-issuer-id", "ISSUER", "--appstore-environment", "Sandbox", "--appstore-root-certificate", root,
         "--appstore-bundle-id", "app.symi.journal"] + (url.map { ["--appstore-api-url", $0] } ?? [])
    }

    @Test func theOptionsAndTheirVariablesAreRead() throws {
        let parsed = try #require(parsedCommand(Self.arguments() + ["--until", "2027-01-01", "--appstore-root-certificate", "/b.pem"])
            as? AppStoreCommand.Backfill)
        #expect(parsed.until == 1_798_761_600_000)
        #expect(parsed.environment == .sandbox && parsed.appAppleID == nil && parsed.apiURL == nil)
        #expect(parsed.rootCertificates == ["/nonexistent/root.pem", "/b.pem"])
        #expect(parsed.keyFile == "/nonexistent/key.p8" && parsed.keyID == "KEY" && parsed.issuerID == "ISSUER")

        let environment = ["FLAGSERVER_APPSTORE_KEY_FILE": "/k.p8", "FLAGSERVER_APPSTORE_KEY_ID": "K2", "FLAGSERVER_APPSTORE_ISSUER_ID": "I2",
                           "FLAGSERVER_APPSTORE_ENVIRONMENT": "Production", "FLAGSERVER_APPSTORE_ROOT_CERTIFICATE": "/r1.pem, /r2.der",
                           "FLAGSERVER_APPSTORE_BUNDLE_ID": "app.b", "FLAGSERVER_APPSTORE_APP_APPLE_ID": "6450000001",
                           "FLAGSERVER_APPSTORE_API_URL": "https://api.example/"]
        let fromVariables = try #require(parsedCommand(["appstore", "backfill", "--since", "2026-12-01T06:30:00+01:00"],
                                                       environment: environment) as? AppStoreCommand.Backfill)
        #expect(fromVariables.since == 1_796_103_000_000)
        #expect(fromVariables.keyFile == "/k.p8" && fromVariables.keyID == "K2" && fromVariables.issuerID == "I2")
        #expect(fromVariables.environment == .production && fromVariables.appAppleID == 6_450_000_001)
        #expect(fromVariables.rootCertificates == ["/r1.pem", "/r2.der"] && fromVariables.bundleID == "app.b")
        #expect(fromVariables.apiURL == "https://api.example/")
    }

    @Test(arguments: [
        (["--appstore-environment", "Xcode"], "--appstore-environment must be Production or Sandbox, got 'Xcode'"),
        (["--appstore-environment", "Production"],
         "--appstore-app-apple-id (FLAGSERVER_APPSTORE_APP_APPLE_ID) is required for Production: Production notifications are "
            + "verified against the app's Apple ID, as the receiver does"),
        (["--since", "yesterday"], "--since must be a date (2026-12-01, UTC) or an RFC 3339 date-time (2026-12-01T06:00:00Z), got 'yesterday'"),
        (["--until", "2026-12-01T00:00:00"], "--until must be a date (2026-12-01, UTC) or an RFC 3339 date-time (2026-12-01T06:00:00Z), got '2026-12-01T00:00:00'"),
        (["--until", "2000-01-01"], "--until must be after --since"),
        (["--appstore-api-url", "api.storekit.itunes.apple.com"],
         "--appstore-api-url must be an absolute http or https URL, got 'api.storekit.itunes.apple.com'"),
        (["--appstore-app-apple-id", "-3"], "--appstore-app-apple-id must be a positive integer (the app's Apple ID), got '-3'"),
    ])
    func usageErrorsExit64(extra: [String], message: String) {
        // An option that is not repeatable may be given once: the base arguments leave out the ones the case gives.
        var base = Self.arguments()
        for name in ["--since", "--appstore-environment"] where extra.contains(name) {
            if let index = base.firstIndex(of: name) { base.removeSubrange(index...index + 1) }
        }
        let result = runMain(base + extra)
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("flagserver: error: \(message)\nUsage: flagserver appstore backfill --since <date>"), "\(result.stderr)")
    }

    @Test func aStartBeyondApplesHistoryIsRefusedBeforeAnythingIsRead() {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Sandbox keeps 30 days.
        var arguments = Self.arguments()
        arguments[3] = RFC3339.string(milliseconds: now - 31 * 86_400_000)
        let sandbox = runMain(arguments)
        #expect(sandbox.status == 64 && sandbox.stdout.isEmpty)
        #expect(sandbox.stderr.contains("is more than 30 days ago; Apple keeps Sandbox's notification history for 30 days "
            + "(the earliest start now: "), "\(sandbox.stderr)")
        // Production 180 (a start 31 days back gets as far as the root certificate).
        arguments[11] = "Production"
        arguments += ["--appstore-app-apple-id", "6450000001"]
        #expect(runMain(arguments).stderr.hasPrefix("flagserver: error: --appstore-root-certificate /nonexistent/root.pem: cannot read the file"))
        arguments[3] = RFC3339.string(milliseconds: now - 181 * 86_400_000)
        let production = runMain(arguments)
        #expect(production.status == 64 && production.stdout.isEmpty)
        #expect(production.stderr.contains("is more than 180 days ago; Apple keeps Production's notification history for 180 days"),
                "\(production.stderr)")
    }

    @Test func aRootThatCannotBeUsedIsAUsageErrorAsForServe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = runMain(Self.arguments())
        #expect(missing.status == 64 && missing.stdout.isEmpty)
        #expect(missing.stderr == "flagserver: error: --appstore-root-certificate /nonexistent/root.pem: cannot read the file\n"
            + "See 'flagserver appstore backfill --help'.\n")
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: directory.file("root.der")))
        let bad = runMain(Self.arguments(root: directory.file("root.der")))
        #expect(bad.status == 64 && bad.stderr.hasPrefix(
            "flagserver: error: --appstore-root-certificate \(directory.file("root.der")): not a PEM or DER certificate ("), "\(bad.stderr)")
    }

    @Test func aKeyThatCannotSignFailsWithOneLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try AppStoreTestCA().writeRoot(to: directory.file("root.pem"))
        let missing = runMain(Self.arguments(root: directory.file("root.pem")))
        #expect(missing.status == 1 && missing.stderr.hasPrefix("flagserver: error: cannot read the key /nonexistent/key.p8: "),
                "\(missing.stderr)")
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: directory.file("bad.p8")))
        let bad = runMain(Self.arguments(keyFile: directory.file("bad.p8"), root: directory.file("root.pem")))
        #expect(bad.status == 1 && bad.stderr.hasPrefix("flagserver: error: the key \(directory.file("bad.p8")) cannot sign: invalid_key: "),
                "\(bad.stderr)")
        // The certificate instead of the key.
        let swapped = runMain(Self.arguments(keyFile: directory.file("root.pem"), root: directory.file("root.pem")))
        #expect(swapped.status == 1 && swapped.stderr.contains("cannot sign: invalid_key: not a PEM private key"), "\(swapped.stderr)")
    }

    @Test func helpNamesApplesLimitsAndWhatItPrints() {
        let help = runMain(["appstore", "backfill", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("180 days") && help.stdout.contains("fetched N, stored M new, K already stored, R refused (reasons)"))
        #expect(help.stdout.contains("(env: FLAGSERVER_APPSTORE_KEY_FILE)") && help.stdout.contains("(env: FLAGSERVER_APPSTORE_ROOT_CERTIFICATE)"))
        #expect(runMain(["--help"]).stdout.contains("appstore backfill"))
    }
}
