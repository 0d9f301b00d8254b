import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// The stand-in's interpreter: the repository's ./.venv (scripts/interop-setup installs PyJWT and cryptography there).
private let standInPython: String? = {
    let path = repositoryRoot.path + "/.venv/bin/python"
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// `flagserver appstore backfill` as a real process against Tests/appstore/history_standin.py, a local stand-in for
/// Apple's Get Notification History that checks every request's token with PyJWT and the key's public key: what the
/// receiver missed is stored, what it had is not stored again, a notification with a bad signature is reported and
/// not stored, 429 and 503 are retried, and a wrong key ends in Apple's 401 and a clear message. On both engines.
@Suite(.serialized, .enabled(if: standInPython != nil, "needs ./.venv/bin/python with PyJWT (run scripts/interop-setup) for the stand-in of Apple's API"))
struct AppStoreBackfillProcessTests {
    static let bundleID = "app.symi.journal"
    static let appAppleID: Int64 = 6_450_000_001
    static let keyID = "2X9R4HXF34"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// Tests/appstore/history_standin.py, running until `stop`.
    final class StandIn {
        let process: SpawnedProcess
        let port: Int
        let logPath: String

        init(directory: String, payloads: [String], publicKeyPEM: String, failPage: Int = 0, fail: [Int] = []) async throws {
            let python = try #require(standInPython)
            let payloadsPath = directory + "/history.json", keyPath = directory + "/public.pem"
            logPath = directory + "/standin-\(UUID().uuidString.prefix(8)).jsonl"
            try JSONSerialization.data(withJSONObject: payloads).write(to: URL(fileURLWithPath: payloadsPath))
            try Data(publicKeyPEM.utf8).write(to: URL(fileURLWithPath: keyPath))
            let stdout = logPath + ".out"
            process = try SpawnedProcess(python, [repositoryRoot.path + "/Tests/appstore/history_standin.py",
                                                  "--payloads", payloadsPath, "--public-key", keyPath, "--key-id", AppStoreBackfillProcessTests.keyID,
                                                  "--issuer-id", AppStoreBackfillProcessTests.issuerID,
                                                  "--bundle-id", AppStoreBackfillProcessTests.bundleID, "--page-size", "3",
                                                  "--fail-page", String(failPage), "--fail", fail.map(String.init).joined(separator: ","),
                                                  "--log", logPath],
                                         directory: directory, stdout: stdout, stderr: logPath + ".err")
            var port: Int?
            let process = process
            let ready = await eventually(within: .seconds(60)) {
                let text = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
                port = text.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                return port != nil || !process.isRunning
            }
            guard ready, let port else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TestFailure("the stand-in did not start: \((try? String(contentsOfFile: logPath + ".err", encoding: .utf8)) ?? "")")
            }
            self.port = port
        }

        /// One object per request the stand-in answered.
        func log() throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return try text.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }

        /// SIGKILL: the stand-in keeps nothing, and a process spawned from a test thread may inherit a mask that
        /// blocks SIGTERM.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The notifications of one test: signed by a throw-away chain, the key's files, the verifier the receiver would use.
    struct Fixture {
        let directory: String
        let ca: AppStoreTestCA
        let apiKey: AppStoreTestAPIKey
        let verifier: SignedPayloadVerifier
        let now: Int64

        init(directory: String) throws {
            self.directory = directory
            ca = try AppStoreTestCA()
            apiKey = try AppStoreTestAPIKey()
            verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
                rootCertificates: [ca.rootDER], bundleID: AppStoreBackfillProcessTests.bundleID,
                appAppleID: AppStoreBackfillProcessTests.appAppleID, environments: [.production]))
            now = Int64(Date().timeIntervalSince1970 * 1000)
            try ca.writeRoot(to: directory + "/root.pem")
            try Data(apiKey.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: directory + "/key.p8"))
        }

        /// A notification signed at `minutes` after two days ago.
        func notification(_ type: String, _ subtype: String?, minutes: Int64, original: String) -> AppStoreTestNotification {
            var notification = AppStoreTestNotification()
            notification.notificationType = type
            notification.subtype = subtype
            notification.signedDate = now - 2 * 86_400_000 + minutes * 60_000
            notification.transaction?.originalTransactionID = original
            notification.renewal?.originalTransactionID = original
            return notification
        }

        /// The backfill's command line from three days ago, with `keyFile`.
        func arguments(database: String, keyFile: String, port: Int) -> [String] {
            ["--database", database, "appstore", "backfill", "--since", RFC3339.string(milliseconds: now - 3 * 86_400_000),
             "--appstore-key-file", keyFile, "--appstore-key-id", AppStoreBackfillProcessTests.keyID,
             "--appstore-issuer-id", AppStoreBackfillProcessTests.issuerID, "--appstore-environment", "Production",
             "--appstore-api-url", "http://127.0.0.1:\(port)", "--appstore-root-certificate", directory + "/root.pem",
             "--appstore-bundle-id", AppStoreBackfillProcessTests.bundleID,
             "--appstore-app-apple-id", String(AppStoreBackfillProcessTests.appAppleID)]
        }
    }

    static func database(_ engine: String, directory: String) throws -> String {
        engine == "sqlite" ? directory + "/flags.sqlite" : try PostgresTestCluster.shared().createDatabase()
    }

    @Test(arguments: ["sqlite", "postgresql"])
    func whatTheReceiverMissedIsStoredOnceAndABadSignatureIsReported(engine: String) async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try Fixture(directory: directory)
        let signer = AppStoreTestSigner(ca: fixture.ca)
        let good = [
            fixture.notification("SUBSCRIBED", "INITIAL_BUY", minutes: 1, original: "1000"),
            fixture.notification("SUBSCRIBED", "INITIAL_BUY", minutes: 2, original: "2000"),
            fixture.notification("DID_RENEW", nil, minutes: 3, original: "1000"),
            fixture.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", minutes: 4, original: "2000"),
            fixture.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", minutes: 5, original: "3000"),
            fixture.notification("EXPIRED", "VOLUNTARY", minutes: 6, original: "2000"),
            fixture.notification("REFUND", nil, minutes: 7, original: "1000"),
            fixture.notification("SUBSCRIBED", "RESUBSCRIBE", minutes: 8, original: "4000"),
        ]
        let signed = try good.map { try $0.signedPayload(signer) }
        var tampered = AppStoreTestNotification.Signing()
        tampered.payload = .flippedSignatureByte
        let forged = fixture.notification("SUBSCRIBED", "INITIAL_BUY", minutes: 9, original: "5000")
        let outside = fixture.notification("SUBSCRIBED", "INITIAL_BUY", minutes: -2 * 24 * 60, original: "6000")
        // Ten in the span (one listed twice, as a history that overlaps itself would), one before it; pages of three.
        let history = [signed[0], signed[1], signed[2], try forged.signedPayload(signer, signing: tampered), signed[3], signed[4],
                       signed[1], signed[5], signed[6], signed[7], try outside.signedPayload(signer)]

        // The receiver stored three before the outage.
        let database = try Self.database(engine, directory: directory)
        let before = try FlagStore.open(location: database)
        let key = try before.subscriptionHashKey()
        let early = try [0, 1, 2].map { index in
            NotificationRecord(verified: try fixture.verifier.verifyNotification(signedPayload: signed[index]), subscriptionKey: key,
                               receivedAt: fixture.now - 86_400_000)
        }
        #expect(try before.storeNotifications(early) == [true, true, true])
        before.close()

        let standIn = try await StandIn(directory: directory, payloads: history, publicKeyPEM: fixture.apiKey.publicKeyPEM,
                                        failPage: 2, fail: [429, 503])
        defer { standIn.stop() }
        let arguments = fixture.arguments(database: database, keyFile: directory + "/key.p8", port: standIn.port)
        let first = try await FlagServerProcess.run(arguments, directory: directory)
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        #expect(first.stdout == "fetched 10, stored 5 new, 4 already stored, 1 refused (invalid_signature 1) (4 pages)\n")
        #expect(first.stderr.contains("refused notification 1 of page 2: invalid_signature"), "\(first.stderr)")

        // Every good one stored once, mapped with the store's key; the early ones kept as the receiver stored them.
        let after = try FlagStore.open(location: database)
        defer { after.close() }
        let stored = try after.notifications(signedFrom: 0, to: Int64.max)
        #expect(stored.map(\.notificationUUID).sorted() == good.map(\.notificationUUID).sorted())
        #expect(!stored.contains { $0.notificationUUID == forged.notificationUUID || $0.notificationUUID == outside.notificationUUID })
        for record in stored {
            let index = try #require(good.firstIndex { $0.notificationUUID == record.notificationUUID })
            let expected = NotificationRecord(verified: try fixture.verifier.verifyNotification(signedPayload: signed[index]),
                                              subscriptionKey: key, receivedAt: record.receivedAt)
            #expect(record == expected)
            if index < 3 { #expect(record.receivedAt == fixture.now - 86_400_000) }
        }
        #expect(Set(stored.compactMap(\.subscription)).count == 4)

        // What the stand-in saw: PyJWT accepted every token; page 2 was retried after 429 and 503; the span was sent.
        let log = try standIn.log()
        #expect(log.compactMap { $0["status"] as? Int } == [200, 429, 503, 200, 200, 200])
        #expect(log.compactMap { $0["page"] as? Int } == [1, 2, 2, 2, 3, 4])
        for entry in log {
            #expect(entry["jwt_error"] == nil)
            let jwt = try #require(entry["jwt"] as? [String: Any])
            #expect(jwt["header"] as? NSDictionary == ["alg": "ES256", "kid": Self.keyID, "typ": "JWT"] as NSDictionary)
            let claims = try #require(jwt["claims"] as? [String: Any])
            #expect(claims["aud"] as? String == "appstoreconnect-v1" && claims["iss"] as? String == Self.issuerID
                    && claims["bid"] as? String == Self.bundleID)
            #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 1200)
            let body = try #require(entry["body"] as? [String: Any])
            #expect(body["startDate"] as? Int64 == fixture.now - 3 * 86_400_000)
            #expect((body["endDate"] as? Int64 ?? 0) >= fixture.now)
        }

        // Again: nothing new.
        let second = try await FlagServerProcess.run(arguments, directory: directory)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "fetched 10, stored 0 new, 9 already stored, 1 refused (invalid_signature 1) (4 pages)\n")
        #expect(try after.notifications(signedFrom: 0, to: Int64.max).count == good.count)
    }

    @Test func aKeyAppleDoesNotKnowEndsInItsUnauthorizedAndAClearMessage() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try Fixture(directory: directory)
        let notification = fixture.notification("SUBSCRIBED", "INITIAL_BUY", minutes: 1, original: "1000")
        let standIn = try await StandIn(directory: directory, payloads: [try notification.signedPayload(AppStoreTestSigner(ca: fixture.ca))],
                                        publicKeyPEM: fixture.apiKey.publicKeyPEM)
        defer { standIn.stop() }
        try Data(try AppStoreTestAPIKey().privateKeyPEM.utf8).write(to: URL(fileURLWithPath: directory + "/other.p8"))
        let database = directory + "/flags.sqlite"
        let run = try await FlagServerProcess.run(fixture.arguments(database: database, keyFile: directory + "/other.p8", port: standIn.port),
                                                  directory: directory)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("flagserver: error: the App Store Server API answered 401 Unauthorized (Unauthenticated): "
            + "Apple refused the token; check --appstore-key-file"), "\(run.stderr)")
        // Refused by PyJWT's signature check, once: a 401 is not retried.
        let log = try standIn.log()
        #expect(log.count == 1)
        #expect((log.first?["jwt_error"] as? String)?.contains("Signature verification failed") == true, "\(log)")
        #expect(log.first?["status"] as? Int == 401)
        let store = try FlagStore.open(location: database)
        defer { store.close() }
        #expect(try store.notifications(signedFrom: 0, to: Int64.max).isEmpty)
    }
}
