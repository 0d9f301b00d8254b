import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing

/// The App Store notification receiver of the real `flagserver` binary, configured by its options with a throw-away
/// root: stored once and durably, each refusal class 400 with its code and nothing stored, 413 on the head, the reads
/// and the metrics; off (404) without a root; a bad certificate file, or a bad promotional offer key, refused at
/// start with 64.
@Suite struct FlagServerAppStoreProcessTests {
    /// A server trusting `ca` (and `noMarker`, whose leaf lacks Apple's marker), Production only.
    static func server(_ ca: AppStoreTestCA, noMarker: AppStoreTestCA, directory: String) throws -> SeededFlagServer {
        try ca.writeRoot(to: directory + "/root.pem")
        try noMarker.writeRoot(to: directory + "/no-marker.cer", format: .der)
        return try SeededFlagServer(arguments: [
            "--appstore-root-certificate", directory + "/root.pem", "--appstore-root-certificate", directory + "/no-marker.cer",
            "--appstore-bundle-id", "app.symi.journal", "--appstore-app-apple-id", "6450000001", "--appstore-environments", "Production",
        ])
    }

    static func post(_ server: SeededFlagServer, _ body: [UInt8]) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: server.process.port, method: "POST", path: "/v1/appstore/notifications",
                                  headers: [("Content-Type", "application/json")], body: body)
    }

    static func get(_ server: SeededFlagServer, _ path: String) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: server.process.port, method: "GET", path: path,
                                  headers: [("Authorization", "Bearer \(server.writerToken)")])
    }

    @Test func receivesVerifiesStoresOnceAndRefuses() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = AppStoreTestCA.Options()
        options.leafMarker = false
        let ca = try AppStoreTestCA(), noMarker = try AppStoreTestCA(options)
        let signer = AppStoreTestSigner(ca: ca)
        let server = try Self.server(ca, noMarker: noMarker, directory: directory)
        defer { server.stop() }

        var start = AppStoreTestNotification()
        start.transaction?.offerType = 1
        start.transaction?.offerDiscountType = "FREE_TRIAL"
        var renewal = AppStoreTestNotification()
        renewal.notificationType = "DID_RENEW"
        renewal.subtype = nil
        renewal.signedDate = start.signedDate + 3 * 86_400_000
        let test = AppStoreTestNotification.test(environment: "Production")
        for notification in [start, renewal, test] {
            let response = try await Self.post(server, try notification.body(signer))
            #expect(response.status == 200, "\(notification.notificationType): \(response.text)")
            #expect(try response.json()["stored"] == .bool(true))
        }
        let again = try await Self.post(server, try start.body(signer))
        #expect(try again.status == 200 && (again.json()["stored"]) == .bool(false), "\(again.text)")

        var wrongBundle = AppStoreTestNotification()
        wrongBundle.bundleID = "com.example.other"
        var wrongApp = AppStoreTestNotification()
        wrongApp.appAppleID = 7
        var sandbox = AppStoreTestNotification()
        sandbox.environment = "Sandbox"
        var flipped = AppStoreTestNotification.Signing()
        flipped.payload = .flippedSignatureByte
        let refusals: [(String, [UInt8])] = [
            ("invalid_json", Array("[1, 2".utf8)),
            ("invalid_signature", try AppStoreTestNotification().body(signer, signing: flipped)),
            ("wrong_bundle_id", try wrongBundle.body(signer)),
            ("wrong_app_apple_id", try wrongApp.body(signer)),
            ("wrong_environment", try sandbox.body(signer)),
            ("missing_marker", try AppStoreTestNotification().body(AppStoreTestSigner(ca: noMarker))),
            ("invalid_chain", try AppStoreTestNotification().body(AppStoreTestSigner(ca: try AppStoreTestCA()))),
        ]
        for (code, body) in refusals {
            let response = try await Self.post(server, body)
            #expect(response.status == 400, "\(code): \(response.text)")
            #expect(try response.errorCode() == code)
        }

        // Past 64 KiB: refused on the head, the body never sent.
        let head = "POST /v1/appstore/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 65537\r\n\r\n"
        let raw = try await offPool { try RawHTTP.exchange(port: server.process.port, bytes: Array(head.utf8)) }
        let tooLarge = try RawHTTP.parse(raw, method: "POST")
        #expect(try tooLarge.status == 413 && (tooLarge.errorCode()) == "body_too_large")

        // Stored: the three, nothing of the refusals; the TEST listed.
        let list = try await Self.get(server, "/v1/appstore/notifications?from=2026-11-01&to=2027-01-01")
        #expect(list.status == 200, "\(list.text)")
        let types = try #require(try list.json()["notifications"]?.arrayValue).compactMap { $0["notificationType"]?.stringValue }
        #expect(types.sorted() == ["DID_RENEW", "SUBSCRIBED", "TEST"])

        let outcomes = try await Self.get(server, "/v1/appstore/outcomes?from=2026-11-30&to=2026-12-04&bucket=day")
        #expect(outcomes.status == 200, "\(outcomes.text)")
        let totals = try #require(try outcomes.json()["totals"])
        #expect(totals["started"] == 1 && totals["freeTrialStarts"] == 1 && totals["introConversions"] == 1)
        #expect(totals["renewals"] == 1 && totals["tests"] == 1 && totals["active"] == 1)
        #expect(try outcomes.json()["series"]?.arrayValue?.count == 4)

        let metrics = try await RawHTTP.request(port: server.process.port, method: "GET", path: "/metrics").text
        #expect(metrics.contains("flagserver_appstore_notifications_total{type=\"SUBSCRIBED\",subtype=\"INITIAL_BUY\"} 1\n"))
        #expect(metrics.contains("flagserver_appstore_notifications_total{type=\"TEST\",subtype=\"\"} 1\n"))
        #expect(metrics.contains("flagserver_appstore_duplicates_total 1\n"))
        for (code, _) in refusals { #expect(metrics.contains("flagserver_appstore_refusals_total{reason=\"\(code)\"} 1\n"), "\(code)") }
        #expect(server.process.errors.contains("event=appstore_refused") && !server.process.errors.contains("appstore_receiver_off"))
    }

    @Test func withoutARootTheRouteIs404AndTheLogSaysSo() async throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let body = try AppStoreTestNotification().body(AppStoreTestSigner(ca: try AppStoreTestCA()))
        let response = try await Self.post(server, body)
        #expect(try response.status == 404 && (response.errorCode()) == "appstore_receiver_off")
        #expect(server.process.errors.components(separatedBy: "event=appstore_receiver_off").count == 2, "one line at start")
    }

    @Test func aBadCertificateFileOrAMissingDependencyExits64() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: directory + "/bad.pem"))
        let base = ["--port", "0", "--database", directory + "/flags.sqlite", "--appstore-bundle-id", "app.symi.journal",
                    "--appstore-app-apple-id", "1"]
        let bad = try await FlagServerProcess.run(base + ["--appstore-root-certificate", directory + "/bad.pem"], directory: directory)
        #expect(bad.status == 64 && bad.stderr.contains("--appstore-root-certificate \(directory)/bad.pem: not a PEM or DER certificate"),
                "\(bad.stderr)")
        let missing = try await FlagServerProcess.run(base + ["--appstore-root-certificate", directory + "/none.pem"], directory: directory)
        #expect(missing.status == 64 && missing.stderr.contains("cannot read the file"), "\(missing.stderr)")
        let noBundle = try await FlagServerProcess.run(["--port", "0", "--database", directory + "/flags.sqlite",
                                                        "--appstore-root-certificate", directory + "/bad.pem"], directory: directory)
        #expect(noBundle.status == 64 && noBundle.stderr.contains("needs --appstore-bundle-id"), "\(noBundle.stderr)")
        let unknown = try await FlagServerProcess.run(["--port", "0", "--appstore-environments", "Staging"], directory: directory)
        #expect(unknown.status == 64 && unknown.stderr.contains("--appstore-environments takes Production"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/flags.sqlite"), "refused before the database was opened")
    }

    @Test func aBadOfferKeyOrAMissingKeyIDExits64() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try AppStoreTestAPIKey()
        try Data(key.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: directory + "/public.pem"))
        let base = ["--port", "0", "--database", directory + "/flags.sqlite", "--appstore-bundle-id", "app.symi.journal"]
        let bad = try await FlagServerProcess.run(base + ["--appstore-offer-key", directory + "/public.pem", "--appstore-offer-key-id", "K"],
                                                  directory: directory)
        #expect(bad.status == 64 && bad.stderr.contains("--appstore-offer-key \(directory)/public.pem: not a PEM private key"), "\(bad.stderr)")
        #expect(bad.stderr.contains("See 'flagserver --help'"))
        let noID = try await FlagServerProcess.run(base + ["--appstore-offer-key", directory + "/public.pem"], directory: directory)
        #expect(noID.status == 64 && noID.stderr.contains("--appstore-offer-key needs --appstore-offer-key-id"), "\(noID.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/flags.sqlite"), "refused before the database was opened")
    }
}
