import AppStoreNotifications
import FlagKit
import FlagStore
import Foundation

/// A SQLite store filled through the store's own API with every kind of row `flagserver copy` must carry: four
/// environments with many versions (a rollback, a 300 KB old version, texts with quotes, `?`, backslashes and
/// non-ASCII), a new epoch, tokens (scoped, revoked, a revoked name reused), a policy, changes in all ten statuses,
/// webhooks (one deleted) with deliveries delivered, pending and failed and their attempts, audit lines of
/// every outcome, App Store notifications (every field set, and every optional one nil) and the subscription hash's key. For the copy's tests in FlagStoreTests, FlagServerCLITests and FlagServerProcessTests.
package struct CopyFixture: Sendable {
    /// The SQLite file.
    package let path: String
    /// Secrets of active tokens (they must authenticate after a copy), by token name.
    package let activeSecrets: [String: String]
    /// Secrets of revoked tokens (they must not).
    package let revokedSecrets: [String]
    /// The environments, sorted.
    package static let environments = ["eu-west-1", "production", "qa", "staging"]

    /// A document for `environment`'s version `number`: valid flag JSON with a string flag whose value is unusual text.
    package static func document(_ environment: String, _ number: Int) -> [UInt8] {
        let text = "v\(number) of \(environment): \\\"quoted\\\" ? \\\\x41 ünïcödé ✓"
        return Array("{\"flags\":{\"copy\":{\"type\":\"string\",\"default\":\"\(text)\"}},\"cohorts\":{}}".utf8)
    }

    /// Fills a new store at `path` (which must not exist); `versions` per environment (at least 3).
    package static func make(path: String, versions: Int = 12) throws -> CopyFixture {
        let store = try FlagStore.open(location: path)
        defer { store.close() }
        try store.createEnvironment(name: "qa", actor: "ops")
        try store.createEnvironment(name: "eu-west-1", actor: "ops")
        // Version 1 of staging is 300 KB (history only: the server decodes current versions, and this one is no flag document).
        let large = "{\"flags\":{},\"cohorts\":{},\"pad\":\"" + String(repeating: "x", count: 300_000) + "\"}"
        _ = try store.publish(environment: "staging", document: Array(large.utf8), author: "ops", message: "large")
        for number in 1...max(versions, 3) {
            for environment in environments {
                _ = try store.publish(environment: environment, document: document(environment, number),
                                      author: number % 3 == 0 ? "o'brien" : "ops-ålice",
                                      message: "change \(number): \"quoted\" ? \\x41 ✓")
            }
        }
        _ = try store.rollback(environment: "production", to: 2, author: "ops", message: "back to 2")
        try store.startNewEpoch(actor: "ops", reason: "fixture")

        var active: [String: String] = [:]
        active["admin"] = try store.createToken(name: "admin", role: .admin, actor: "cli").secret
        active["ci"] = try store.createToken(name: "ci", role: .writer, environments: ["staging", "qa"]).secret
        active["app"] = try store.createToken(name: "app", role: .reader).secret
        var revoked = [try store.createToken(name: "reused", role: .writer).secret]
        _ = try store.revokeToken(name: "reused", actor: "ops", client: "192.0.2.7")
        active["reused"] = try store.createToken(name: "reused", role: .writer).secret
        revoked.append(try store.createToken(name: "gone", role: .admin).secret)
        _ = try store.revokeToken(name: "gone")

        try store.setPolicy(environment: "production", policy: EnvironmentPolicy(
            isProtected: true, requestTTLHours: 48, flags: ["copy": FlagPolicy(isProtected: true, owner: "growth")]), actor: "ops")
        try fillChanges(store)
        try fillWebhooks(store)
        try store.appendAudit([
            AuditRecord(actor: "-", action: "publish", environment: "production", target: "copy", outcome: .refused, status: 401,
                        reason: "invalid_token", client: "203.0.113.9"),
            AuditRecord(actor: "ci", action: "publish", environment: "qa", outcome: .failed, status: 500, reason: "storage_error",
                        detail: "disk full"),
        ])
        _ = try store.storeNotifications(notifications)
        _ = try store.subscriptionHashKey()
        try fillGuards(store)
        return CopyFixture(path: path, activeSecrets: active, revokedSecrets: revoked)
    }

    /// Guards: one watching a version (a product, a tripped decision and action), one waiting for a change, one held
    /// schedule.
    static func fillGuards(_ store: FlagStore) throws {
        let rule: JSONValue = ["metric": "refunds", "measure": "perHour", "baseline": "ceiling", "threshold": 0.5, "minimumCount": 5,
                               "windowHours": 72, "action": "pauseSchedules", "alpha": 0.01, "minimumRelativeChange": 0.5]
        let watched = try store.createGuard(NewGuard(environment: "qa", version: 3, publishedAtMilliseconds: 1_764_000_000_000,
                                                     product: "symi.plus.yearly", appStoreEnvironment: "Sandbox", rule: rule,
                                                     createdBy: "o'brien"))
        _ = try store.tripGuard(id: watched.id, decision: ["verdict": "tripped", "message": "guard on refunds tripped: \"ü\""],
                                at: 1_764_000_100_000, audit: AuditRecord(actor: "guard", action: "guard.tripped", environment: "qa"))
        _ = try store.recordGuardAction(id: watched.id, action: ["kind": "pauseSchedules", "outcome": "done", "changes": []],
                                        audit: AuditRecord(actor: "guard", action: "guard.acted", environment: "qa"))
        let change = try store.createChange(NewChange(environment: "qa", kind: .flags,
                                                      changeSet: ChangeSet(flags: ["held": ["type": "boolean", "default": true]]),
                                                      baseVersion: 1, author: "ops", message: "held by a guard",
                                                      applyAtMilliseconds: 4_102_444_800_000, needsApproval: false, touchedFlags: ["held"]))
        _ = try store.holdScheduledChanges(environment: "qa", guardID: watched.id)
        _ = try store.createGuard(NewGuard(environment: "qa", changeID: change.id, rule: rule, createdBy: "ops"))
    }

    /// Two App Store notifications: a renewal with every field set (texts with quotes and non-ASCII) and a TEST
    /// notification with every optional field nil.
    package static let notifications: [NotificationRecord] = {
        var renewal = NotificationRecord(notificationUUID: "0f1e2d3c-4b5a-6978-8a9b-acbdcedf0011", notificationType: "DID_RENEW",
                                         subtype: "BILLING_RECOVERY", signedDate: 1_764_000_000_123, receivedAt: 1_764_000_000_456,
                                         environment: "Production")
        renewal.productID = "symi.plus.yearly"
        renewal.offerType = 1
        renewal.offerIdentifier = "intro 'ü' ?"
        renewal.offerDiscountType = "FREE_TRIAL"
        renewal.price = 39_990
        renewal.currency = "EUR"
        renewal.storefront = "DEU"
        renewal.transactionReason = "RENEWAL"
        renewal.expiresDate = 1_795_536_000_000
        renewal.expirationIntent = 2
        renewal.revocationReason = 0
        renewal.priceIncreaseStatus = 1
        renewal.autoRenewStatus = 1
        renewal.isInBillingRetryPeriod = false
        renewal.gracePeriodExpiresDate = 1_795_622_400_000
        renewal.subscription = String(repeating: "ab", count: 32)
        let test = NotificationRecord(notificationUUID: "f0000000-0000-4000-8000-000000000001", notificationType: "TEST",
                                      signedDate: 1_764_000_001_000, receivedAt: 1_764_000_001_001, environment: "Sandbox")
        return [renewal, test]
    }()

    /// One change in each of the ten statuses.
    private static func fillChanges(_ store: FlagStore) throws {
        let later = Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
        func change(_ key: String, _ environment: String = "production", approval: Bool, at: Int64? = nil) throws -> Int64 {
            let created = try store.createChange(NewChange(
                environment: environment, kind: .flags, changeSet: ChangeSet(flags: [key: ["type": "boolean", "default": true]]),
                baseVersion: 1, author: "alice", message: "change \(key) ✓", applyAtMilliseconds: at,
                expiresAtMilliseconds: approval ? later : nil, needsApproval: approval, touchedFlags: [key],
                protectedFlags: approval ? [key] : [], client: "198.51.100.1"))
            return created.id
        }
        _ = try change("pending", approval: true)
        _ = try change("scheduled", "staging", approval: false, at: later)
        _ = try store.approveChange(id: try change("approved", approval: true), actor: "bob", message: "go")
        let applied = try change("applied", "qa", approval: true)
        _ = try store.approveChange(id: applied, actor: "bob")
        let qa = try store.currentVersion(environment: "qa")?.number ?? 0
        _ = try store.applyChange(id: applied, document: document("qa", 1000), expectedCurrentVersion: qa)
        _ = try store.rejectChange(id: try change("rejected", approval: true), actor: "bob", message: "not now")
        _ = try store.cancelChange(id: try change("cancelled", approval: false, at: later), actor: "alice")
        _ = try store.expireChange(id: try change("expired", approval: true))
        _ = try store.markChangeStale(id: try change("stale", approval: true), conflicts: [ChangeSet.Item(kind: .flag, name: "stale")])
        _ = try store.markChangeConflicted(id: try change("conflicted", approval: false, at: later),
                                           conflicts: [ChangeSet.Item(kind: .flag, name: "conflicted")])
        _ = try store.markChangeFailed(id: try change("failed", approval: false, at: later), reason: "invalid document",
                                       details: ["issues": [["path": "$.flags.failed", "message": "bad"]]])
    }

    /// Three webhooks (one deleted afterwards) and deliveries in every status, with attempts.
    private static func fillWebhooks(_ store: FlagStore) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try store.createWebhook(url: "https://hooks.example/all", secret: "whsec_all_1", events: ["*"], actor: "ops")
        try store.createWebhook(url: "https://hooks.example/staging", secret: "whsec_staging_2", events: ["version.published"],
                                environments: ["staging"], actor: "ops")
        let gone = try store.createWebhook(url: "https://hooks.example/gone", secret: "whsec_gone_3", events: ["*"], actor: "ops")
        let deliveries = try store.enqueueWebhookEvents((0..<3).map { index in
            WebhookEvent(id: WebhookEvent.makeID(atMilliseconds: now + Int64(index)), type: "version.published", environment: "staging",
                         payload: Array("{\"id\":\(index),\"data\":\"ü\"}".utf8), createdAtMilliseconds: now + Int64(index))
        })
        for (index, delivery) in deliveries.enumerated() {
            let first = WebhookAttempt(number: 1, atMilliseconds: now, responseStatus: 500, error: "HTTP 500", durationMilliseconds: 12)
            switch index % 3 {
            case 0:
                try store.recordWebhookAttempt(deliveryID: delivery.id, first, outcome: .retry(atMilliseconds: now + 1000))
                try store.recordWebhookAttempt(deliveryID: delivery.id, WebhookAttempt(number: 2, atMilliseconds: now + 1000,
                                               responseStatus: 204, durationMilliseconds: 3), outcome: .delivered)
            case 1:
                try store.recordWebhookAttempt(deliveryID: delivery.id, WebhookAttempt(number: 1, atMilliseconds: now, error: "timeout",
                                               durationMilliseconds: 5000), outcome: .retry(atMilliseconds: now + 2000))
            default:
                try store.recordWebhookAttempt(deliveryID: delivery.id, first, outcome: .failed)
            }
        }
        _ = try store.deleteWebhook(id: gone.id, actor: "ops")
    }

    /// Every row of every table on both sides, each value as text (blobs and `bytea` as lowercase hex, NULL as nil),
    /// in primary-key order; read with SQL of its own, not with the copy's code. Tables on one side only appear with
    /// no rows on the other. PostgreSQL's `flagstore_schema` is left out.
    package static func tableContents(sqlite path: String, postgres uri: String)
        throws -> [(table: String, columns: [String], sqlite: [[String?]], postgres: [[String?]])] {
        let sqlite = try Database(path: path, mode: .readOnly)
        defer { sqlite.close() }
        let postgres = try Database(postgres: uri)
        defer { postgres.close() }
        let sqliteTables = try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'") { $0.text(0) }
        let postgresTables = try postgres.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'flagstore_schema'") { $0.text(0) }
        var result: [(String, [String], [[String?]], [[String?]])] = []
        for table in Set(sqliteTables).union(postgresTables).sorted() {
            let info = try sqlite.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) { ($0.text(0), $0.int(1)) }
            let types = Dictionary(try postgres.query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ?",
                [.text(table)]) { ($0.text(0), $0.text(1)) }, uniquingKeysWith: { first, _ in first })
            let columns = info.isEmpty ? types.keys.sorted() : info.map(\.0)
            let keys = info.filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }.map(\.0)
            // Qualified: a bare name in ORDER BY would sort by the output column, the text.
            let order = keys.isEmpty ? "1" : keys.map { "\"\(table)\".\"\($0)\"" }.joined(separator: ", ")
            // Names come from the two catalogs (test code); identifiers cannot be bound.
            let sqliteRows = !sqliteTables.contains(table) ? [] : try sqlite.query(
                "SELECT " + columns.map { "CASE typeof(\"\($0)\") WHEN 'blob' THEN lower(hex(\"\($0)\")) ELSE CAST(\"\($0)\" AS TEXT) END" }
                    .joined(separator: ", ") + " FROM \"\(table)\" ORDER BY \(order)") { row in
                (0..<columns.count).map { row.optionalText(Int32($0)) }
            }
            let postgresOrder = keys.isEmpty ? "1" : keys.map { "\"\(table)\".\"\($0)\"" + (types[$0] == "text" ? " COLLATE \"C\"" : "") }
                .joined(separator: ", ")
            let postgresRows = !postgresTables.contains(table) ? [] : try postgres.query(
                "SELECT " + columns.map { types[$0] == "bytea" ? "encode(\"\($0)\", 'hex')" : "\"\($0)\"::text" }.joined(separator: ", ")
                    + " FROM \"\(table)\" ORDER BY \(postgresOrder)") { row in
                (0..<columns.count).map { row.optionalText(Int32($0)) }
            }
            result.append((table, columns, sqliteRows, postgresRows))
        }
        return result
    }
}
