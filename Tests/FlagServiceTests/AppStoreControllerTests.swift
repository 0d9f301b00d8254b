import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The receiver in process, over a real socket and a real SQLite file: verified, stored durably once, refused with
/// the verification's code (nothing stored), 413 on the head, 404 while off, counted in /metrics.
@Suite struct AppStoreControllerTests {
    @Test func aVerifiedNotificationIsStoredOnceAndAnsweredAfterTheCommit() async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        let notification = AppStoreTestNotification()
        let first = try await server.postNotification(try fixture.body(notification))
        #expect(first.status == 200, "\(first.text)")
        #expect(try first.json()["stored"] == .bool(true))
        // Answered after the commit: the record is in the database file now.
        let stored = try server.store.notifications(signedFrom: 0, to: Int64.max)
        #expect(stored.map(\.notificationUUID) == [notification.notificationUUID])
        #expect(stored.first?.productID == "app.symi.plus.monthly" && stored.first?.subscription?.count == 64)
        // Apple sends it again (a retry, or another delivery): 200, stored once.
        let again = try await server.postNotification(try fixture.body(notification))
        #expect(again.status == 200)
        #expect(try again.json()["stored"] == .bool(false))
        #expect(try server.store.notifications(signedFrom: 0, to: Int64.max).count == 1)
        let metrics = try await server.get("/metrics").text
        #expect(metrics.contains("flagserver_appstore_notifications_total{type=\"SUBSCRIBED\",subtype=\"INITIAL_BUY\"} 1\n"))
        #expect(metrics.contains("flagserver_appstore_duplicates_total 1\n"))
        #expect(server.logLines.all.contains { $0.contains("event=appstore_notification") && $0.contains(notification.notificationUUID) })
    }

    @Test func everyRefusalIs400WithItsCodeAndStoresNothing() async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        var wrongBundle = AppStoreTestNotification()
        wrongBundle.bundleID = "com.example.other"
        var wrongApp = AppStoreTestNotification()
        wrongApp.appAppleID = 1
        var sandbox = AppStoreTestNotification()
        sandbox.environment = "Sandbox"
        var flipped = AppStoreTestNotification.Signing()
        flipped.payload = .flippedSignatureByte
        var hs256 = AppStoreTestNotification.Signing()
        hs256.payload = .algorithmHS256
        let cases: [(String, [UInt8])] = [
            ("invalid_json", Array("{\"signedPayload\": ".utf8)),
            ("invalid_json", Array("{\"payload\": \"x\"}".utf8)),
            ("invalid_jws", Array("{\"signedPayload\": \"not.a-jws\"}".utf8)),
            ("invalid_signature", try fixture.body(AppStoreTestNotification(), signing: flipped)),
            ("unsupported_algorithm", try fixture.body(AppStoreTestNotification(), signing: hs256)),
            ("invalid_chain", try AppStoreTestNotification().body(AppStoreTestSigner(ca: try AppStoreTestCA()))),
            ("missing_marker", try AppStoreTestNotification().body(fixture.withoutMarker)),
            ("wrong_bundle_id", try fixture.body(wrongBundle)),
            ("wrong_app_apple_id", try fixture.body(wrongApp)),
            ("wrong_environment", try fixture.body(sandbox)),
        ]
        for (code, body) in cases {
            let response = try await server.postNotification(body)
            #expect(response.status == 400, "\(code): \(response.text)")
            #expect(try response.errorCode() == code)
            #expect(try response.json()["error"]?["message"]?.stringValue?.isEmpty == false)
        }
        #expect(try server.store.notifications(signedFrom: 0, to: Int64.max).isEmpty)
        let metrics = try await server.get("/metrics").text
        #expect(metrics.contains("flagserver_appstore_refusals_total{reason=\"invalid_json\"} 2\n"))
        for code in ["invalid_jws", "invalid_signature", "unsupported_algorithm", "invalid_chain", "missing_marker",
                     "wrong_bundle_id", "wrong_app_apple_id", "wrong_environment"] {
            #expect(metrics.contains("flagserver_appstore_refusals_total{reason=\"\(code)\"} 1\n"), "\(code)")
        }
        let refused = server.logLines.all.filter { $0.contains("event=appstore_refused") }
        #expect(refused.count == cases.count)
        #expect(refused.contains { $0.contains("reason=wrong_bundle_id") })
        // Not an operator's action: no audit line for any of them.
        #expect(try server.store.auditEntries(limit: 100).allSatisfy { $0.action != "appstore" })
    }

    @Test func appStoreConnectsTestNotificationIsStoredAndListed() async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        let test = AppStoreTestNotification.test(environment: "Production")
        let response = try await server.postNotification(try fixture.body(test))
        #expect(try response.status == 200 && (response.json()["stored"]) == .bool(true), "\(response.text)")
        let list = try await server.get("/v1/appstore/notifications?from=2026-01-01&to=2027-12-31",
                                        headers: [("Authorization", "Bearer \(server.writerToken)")])
        #expect(list.status == 200, "\(list.text)")
        let items = try #require(try list.json()["notifications"]?.arrayValue)
        #expect(items.count == 1)
        #expect(items.first?["notificationType"] == .string("TEST"))
        #expect(items.first?["notificationUUID"] == .string(test.notificationUUID))
        #expect(items.first?["productId"] == .null && items.first?["subscription"] == .null)
        #expect(items.first?["signedDate"] == .string(RFC3339.string(milliseconds: test.signedDate)))
    }

    @Test func aBodyPast64KiBIsRefusedOnItsHeadUnread() async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        // The head alone; the server answers without waiting for a byte of the body.
        let head = "POST /v1/appstore/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: 65537\r\n\r\n"
        let raw = try await offPool { try RawHTTP.exchange(port: server.port, bytes: Array(head.utf8)) }
        let response = try RawHTTP.parse(raw, method: "POST")
        #expect(response.status == 413)
        #expect(try response.errorCode() == "body_too_large")
        // 64 KiB itself is read (and refused as the JSON it is not).
        let large = try await server.postNotification(Array(repeating: 0x20, count: 65536))
        #expect(try large.status == 400 && (large.errorCode()) == "invalid_json")
    }

    @Test func withoutARootTheReceiverIsOff() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let fixture = try AppStoreFixture()
        let response = try await server.postNotification(try fixture.body(AppStoreTestNotification()))
        #expect(response.status == 404)
        #expect(try response.errorCode() == "appstore_receiver_off")
        let empty = try await RawHTTP.request(port: server.port, method: "POST", path: "/v1/appstore/notifications")
        #expect(empty.status == 404)
        #expect(try server.store.notifications(signedFrom: 0, to: Int64.max).isEmpty)
        #expect(server.logLines.all.filter { $0.contains("event=appstore_receiver_off") }.count == 1)
    }

    @Test func aCommitThatFailsIs503AndTheRetryIsStored() async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options, busyTimeout: .milliseconds(200))
        defer { server.stop() }
        #expect(try await server.postNotification(try fixture.body(AppStoreTestNotification())).status == 200)
        // Another process holds the write lock past the busy timeout: nothing is stored, Apple must send it again.
        let holder = try Database(path: server.databasePath)
        try holder.execute("BEGIN IMMEDIATE")
        let notification = AppStoreTestNotification()
        let failed = try await server.postNotification(try fixture.body(notification))
        #expect(failed.status == 503, "\(failed.text)")
        #expect(failed.header("Retry-After") != nil)
        try holder.execute("ROLLBACK")
        holder.close()
        let retried = try await server.postNotification(try fixture.body(notification))
        #expect(try retried.status == 200 && (retried.json()["stored"]) == .bool(true), "\(retried.text)")
    }
}
