import AppStoreNotifications
import AppStoreTestSupport
import CommandLineKit
import FlagService
import Foundation
import TestSupport
import Testing
@testable import FlagServerCLI

/// The `--appstore-*` options: values, variables, dependencies, and the certificate files read at start.
@Suite struct ServeCommandAppStoreTests {
    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeCommand {
        try #require(parsedCommand(arguments, environment: environment) as? ServeCommand)
    }

    @Test func offByDefault() throws {
        let options = try serve([])
        #expect(options.appStoreRootCertificates.isEmpty && options.appStoreBundleID == nil && options.appStoreAppAppleID == nil)
        #expect(options.appStoreEnvironments == [.production] && options.appStoreRetentionDays == 400)
        #expect(try options.appStoreVerifier() == nil)
    }

    @Test func optionsAndVariables() throws {
        let given = try serve(["--appstore-root-certificate", "/a,b.pem", "--appstore-root-certificate", "/c.cer",
                               "--appstore-bundle-id", "app.symi.journal", "--appstore-app-apple-id", "6450000001",
                               "--appstore-environments", "Production, Sandbox", "--appstore-retention-days", "30"])
        #expect(given.appStoreRootCertificates == ["/a,b.pem", "/c.cer"], "a path on the command line is taken whole")
        #expect(given.appStoreBundleID == "app.symi.journal" && given.appStoreAppAppleID == 6_450_000_001)
        #expect(given.appStoreEnvironments == [.production, .sandbox] && given.appStoreRetentionDays == 30)
        let environment = ["FLAGSERVER_APPSTORE_ROOT_CERTIFICATE": "/a.pem, /b.cer", "FLAGSERVER_APPSTORE_BUNDLE_ID": "x.y",
                           "FLAGSERVER_APPSTORE_ENVIRONMENTS": "Sandbox", "FLAGSERVER_APPSTORE_RETENTION_DAYS": "7",
                           "FLAGSERVER_APPSTORE_APP_APPLE_ID": "12"]
        let fromVariables = try serve([], environment: environment)
        #expect(fromVariables.appStoreRootCertificates == ["/a.pem", "/b.cer"])
        #expect(fromVariables.appStoreBundleID == "x.y" && fromVariables.appStoreEnvironments == [.sandbox])
        #expect(fromVariables.appStoreRetentionDays == 7 && fromVariables.appStoreAppAppleID == 12)
        #expect(try serve(["--appstore-root-certificate", "/z.pem"], environment: environment).appStoreRootCertificates == ["/z.pem"])
        // Sandbox alone needs no app id (Apple's sandbox notifications may carry none).
        #expect(try serve(["--appstore-root-certificate", "/z.pem", "--appstore-bundle-id", "b", "--appstore-environments", "Sandbox"])
            .appStoreAppAppleID == nil)
    }

    @Test(arguments: [
        (["--appstore-root-certificate", "/r.pem"], "--appstore-root-certificate needs --appstore-bundle-id (the app whose notifications are accepted)"),
        (["--appstore-root-certificate", "/r.pem", "--appstore-bundle-id", "b"],
         "--appstore-root-certificate with Production accepted needs --appstore-app-apple-id (the app's Apple ID, App Store Connect > App Information)"),
        (["--appstore-environments", "Production,Staging"],
         "--appstore-environments takes Production, Sandbox, Xcode or LocalTesting, comma-separated, got 'Staging'"),
        (["--appstore-environments", ","], "--appstore-environments needs at least one environment (Production, Sandbox)"),
        (["--appstore-app-apple-id", "-3"], "--appstore-app-apple-id must be a positive integer (the app's Apple ID), got '-3'"),
        (["--appstore-bundle-id", ""], "--appstore-bundle-id must not be empty"),
        (["--appstore-retention-days", "0"], "--appstore-retention-days must be an integer between 1 and 36500, got '0'"),
    ])
    func refusals(arguments: [String], message: String) {
        #expect(usageError(arguments)?.message == message)
    }

    @Test func rootsAreReadAsPEMOrDERAndBadFilesAreNamed() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try AppStoreTestCA(), other = try AppStoreTestCA()
        try ca.writeRoot(to: directory + "/root.pem")
        try other.writeRoot(to: directory + "/other.cer", format: .der)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: directory + "/bad.pem"))
        let base = ["--appstore-bundle-id", "app.symi.journal", "--appstore-app-apple-id", "6450000001"]
        let both = try serve(base + ["--appstore-root-certificate", directory + "/root.pem", "--appstore-root-certificate", directory + "/other.cer"])
        let verifier = try #require(try both.appStoreVerifier())
        #expect(verifier.configuration.rootCertificates == [ca.rootDER, other.rootDER])
        #expect(verifier.configuration.environments == [.production] && verifier.configuration.appAppleID == 6_450_000_001)
        let missing = try serve(base + ["--appstore-root-certificate", directory + "/missing.pem"])
        #expect(throws: UsageError("--appstore-root-certificate \(directory)/missing.pem: cannot read the file")) { try missing.appStoreVerifier() }
        let bad = try serve(base + ["--appstore-root-certificate", directory + "/bad.pem"])
        do {
            _ = try bad.appStoreVerifier()
            Issue.record("a file without a certificate was accepted")
        } catch {
            #expect(error.message.hasPrefix("--appstore-root-certificate \(directory)/bad.pem: not a PEM or DER certificate"), "\(error.message)")
        }
    }
}
