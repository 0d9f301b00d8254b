import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagStore
import Foundation
import Synchronization
import TestSupport
@testable import FlagService

/// A clock the guards' job reads, stepped by hand (ms since 1970 UTC).
final class GuardTestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func set(_ milliseconds: Int64) { value.withLock { $0 = milliseconds } }
}

/// An in-process server whose receiver trusts a throw-away App Store chain and whose guards read a hand-stepped clock;
/// production's version 2 published by the test writer (`showIntroFreeSubscriptionBanner` off), the hours around it.
struct GuardHarness {
    static let hour: Int64 = 3_600_000
    let fixture: AppStoreFixture
    let clock: GuardTestClock
    let server: TestServer
    /// When version 2 was published, and the start of its hour.
    let published: Int64
    var hourStart: Int64 { published - published % Self.hour }

    init() async throws {
        fixture = try AppStoreFixture()
        clock = GuardTestClock(ServiceMetrics.wallMilliseconds())
        var options = fixture.options
        options.guardClock = { [clock] in clock.now }
        server = try TestServer(options: options)
        let write = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false")
        guard write.status == 200 else { throw TestFailure("PUT: \(write.status) \(write.text)") }
        published = try server.store.version(environment: "production", number: 2).createdAtMilliseconds
        clock.set(published)
    }

    func stop() { server.stop() }

    /// One `REFUND` record signed at `signedDate`, stored directly (the history a guard compares with).
    static func refund(_ signedDate: Int64) -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: UUID().uuidString.lowercased(), notificationType: "REFUND",
                                        signedDate: signedDate, receivedAt: signedDate, environment: "Production")
        record.productID = "app.symi.plus.monthly"
        return record
    }

    /// One refund each hour of the week before publication, and of `after` hours from the hour of publication.
    func storeNormalRefunds(after: Int = 0) throws {
        var records = (1...168).map { Self.refund(hourStart - Int64($0) * Self.hour + 30 * 60_000) }
        records += (0..<after).map { Self.refund(hourStart + Int64($0) * Self.hour + 30 * 60_000) }
        _ = try server.store.storeNotifications(records)
    }

    /// `count` refunds signed in the hour `hoursAfter` publication's hour, posted through the receiver as Apple does.
    func postRefundSpike(count: Int, hoursAfter: Int64 = 1) async throws {
        for index in 0..<count {
            var notification = AppStoreTestNotification()
            notification.notificationType = "REFUND"
            notification.subtype = nil
            notification.signedDate = hourStart + hoursAfter * Self.hour + Int64(index) * 60_000
            notification.transaction?.revocationReason = 1
            notification.transaction?.originalTransactionID = "20000001\(1000 + index)"
            let response = try await server.postNotification(try fixture.body(notification))
            guard response.status == 200 else { throw TestFailure("receiver: \(response.status) \(response.text)") }
        }
    }

    /// Steps the guards' clock to `hours` (and `minutes`) after the hour of publication and runs a pass.
    func pass(hours: Int64, minutes: Int64 = 1) {
        clock.set(hourStart + hours * Self.hour + minutes * 60_000)
        server.service.runGuards()
    }

    /// `POST /v1/environments/production/guards` with `body`, as `token` (the test writer when nil).
    func addGuard(_ body: String, token: String? = nil) async throws -> RawHTTPResponse {
        try await server.change("POST", "/v1/environments/production/guards", json: body, token: token ?? server.writerToken)
    }

    /// The audit lines of `action` about guard `id`, newest first.
    func audit(_ action: String, guard id: Int64) throws -> [AuditEntry] {
        try server.store.auditEntries(query: AuditQuery(action: action, limit: 1000)).entries.filter { $0.target == String(id) }
    }
}
