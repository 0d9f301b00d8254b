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
        #expect(options.appStoreOfferKey == nil && options.appStoreOfferKeyID == nil)
        #expect(try options.appStoreOfferSigner() == nil)
        #expect(options.appStoreOptions(verifier: nil).offerSigner == nil)
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
        (["--appstore-offer-key", "/k.p8", "--appstore-offer-key-id", "K"],
         "--appstore-offer-key needs --appstore-bundle-id (the app whose promotional offers are signed)"),
        (["--appstore-offer-key-id", "K"], "--appstore-offer-key-id needs --appstore-bundle-id (the app whose promotional offers are signed)"),
        (["--appstore-offer-key", "/k.p8", "--appstore-bundle-id", "b"],
         "--appstore-offer-key needs --appstore-offer-key-id (the key's ID in App Store Connect)"),
        (["--appstore-offer-key-id", "K", "--appstore-bundle-id", "b"],
         "--appstore-offer-key-id needs --appstore-offer-key (the .p8 file of that key)"),
        (["--appstore-offer-key", "", "--appstore-offer-key-id", "K", "--appstore-bundle-id", "b"], "--appstore-offer-key must not be empty"),
        (["--appstore-offer-key", "/k.p8", "--appstore-offer-key-id", "", "--appstore-bundle-id", "b"],
         "--appstore-offer-key-id must not be empty"),
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

    @Test func theOfferKeyOptionsAndVariables() throws {
        let given = try serve(["--appstore-offer-key", "/etc/flagserver/offers.p8", "--appstore-offer-key-id", "2X9R4HXF34",
                               "--appstore-bundle-id", "app.symi.journal"])
        #expect(given.appStoreOfferKey == "/etc/flagserver/offers.p8" && given.appStoreOfferKeyID == "2X9R4HXF34")
        // Without a root the receiver stays off; the offer key does not need one.
        #expect(given.appStoreRootCertificates.isEmpty)
        let environment = ["FLAGSERVER_APPSTORE_OFFER_KEY": "/a.p8", "FLAGSERVER_APPSTORE_OFFER_KEY_ID": "ABC",
                           "FLAGSERVER_APPSTORE_BUNDLE_ID": "x.y"]
        let fromVariables = try serve([], environment: environment)
        #expect(fromVariables.appStoreOfferKey == "/a.p8" && fromVariables.appStoreOfferKeyID == "ABC")
        #expect(try serve(["--appstore-offer-key-id", "DEF"], environment: environment).appStoreOfferKeyID == "DEF", "the option wins")
        // A variable alone is refused as the option alone is.
        let partial = FlagServer.tool.parse([], environment: ["FLAGSERVER_APPSTORE_OFFER_KEY": "/a.p8", "FLAGSERVER_APPSTORE_BUNDLE_ID": "x.y"])
        guard case .usageError(let error) = partial else {
            Issue.record("a key without its ID was accepted")
            return
        }
        #expect(error.message.hasPrefix("--appstore-offer-key needs --appstore-offer-key-id"))
    }

    @Test func theOfferKeyIsReadAtStartAndABadFileIsNamed() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try AppStoreTestAPIKey()
        try Data(key.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: directory + "/offers.p8"))
        try Data(key.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: directory + "/public.pem"))
        let base = ["--appstore-bundle-id", "app.symi.journal", "--appstore-offer-key-id", "2X9R4HXF34"]
        let good = try serve(base + ["--appstore-offer-key", directory + "/offers.p8"])
        let signer = try #require(try good.appStoreOfferSigner())
        #expect(signer.keyID == "2X9R4HXF34" && signer.bundleID == "app.symi.journal")
        #expect(good.appStoreOptions(verifier: nil, offerSigner: signer).offerSigner?.keyID == "2X9R4HXF34")
        // The key read is the file's: what it signs verifies with the file's public half.
        let nonce = UUID()
        let signed = try signer.sign(productID: "symi_plus_monthly_499", offerID: "winback_50", appAccountToken: nil, nonce: nonce, timestamp: 1)
        let payload = PromotionalOfferSigner.payload(bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499",
                                                     offerID: "winback_50", appAccountToken: nil, nonce: nonce, timestamp: 1)
        #expect(key.verifiesDER(signature: try #require(Data(base64Encoded: signed.signature).map(Array.init)), of: Array(payload.utf8)))
        let missing = try serve(base + ["--appstore-offer-key", directory + "/none.p8"])
        #expect(throws: UsageError("--appstore-offer-key \(directory)/none.p8: cannot read the file")) { try missing.appStoreOfferSigner() }
        let publicKey = try serve(base + ["--appstore-offer-key", directory + "/public.pem"])
        do {
            _ = try publicKey.appStoreOfferSigner()
            Issue.record("a public key was accepted as the offer key")
        } catch {
            #expect(error.message.hasPrefix("--appstore-offer-key \(directory)/public.pem: not a PEM private key"), "\(error.message)")
        }
    }
}
