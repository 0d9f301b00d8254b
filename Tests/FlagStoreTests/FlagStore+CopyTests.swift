import AppStoreNotifications
import FlagKit
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagStore

/// `copy(toPostgres:actor:)`: a SQLite store filled through the real API, copied into databases of the tests'
/// PostgreSQL cluster; compared table by table with SQL of its own and through the store's API; refusals and
/// failures half-way leave the target as it was.
@Suite struct FlagStoreCopyTests {
    /// Rows of `table` in the PostgreSQL database at `uri`.
    static func count(_ uri: String, _ table: String) throws -> Int {
        let database = try Database(postgres: uri)
        defer { database.close() }
        return try database.queryFirst("SELECT count(*) FROM \(table)") { $0.int(0) } ?? -1
    }

    /// Every change of every environment.
    static func changes(_ store: FlagStore) throws -> [ChangeRecord] {
        try store.environments().flatMap { try store.changes(query: ChangeQuery(environment: $0, limit: 1000)) }
    }

    /// Whether the database at `uri` has the store's schema at all.
    static func hasSchema(_ uri: String) throws -> Bool {
        let database = try Database(postgres: uri)
        defer { database.close() }
        return try database.queryFirst("SELECT to_regclass('flagstore_schema') IS NOT NULL") { $0.int(0) } == 1
    }

    @Test func everyTableArrivesRowForRowAndTheCopyServesWhatTheSourceServed() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"))
        let uri = try PostgresTestCluster.shared().createDatabase()
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let report = try source.copy(toPostgres: uri, actor: "tester")

        // Table by table, with SQL of its own: the same rows, the same values; the copy adds one audit line, last.
        let contents = try CopyFixture.tableContents(sqlite: fixture.path, postgres: uri)
        #expect(Set(contents.map(\.table)) == ["appstore_keys", "appstore_notifications", "audit", "changes", "environments", "guards", "meta", "policies", "tokens", "versions",
                                                "webhook_attempts", "webhook_deliveries", "webhooks"])
        for table in contents {
            var copied = table.postgres
            if table.table == "audit", let action = table.columns.firstIndex(of: "action") {
                #expect(copied.last?[action] == "database.copy")
                copied.removeLast()
            }
            #expect(!table.sqlite.isEmpty, "\(table.table) has rows in the fixture")
            #expect(copied.count == table.sqlite.count, "\(table.table)")
            #expect(copied == table.sqlite, "\(table.table)")
            #expect(report.rows[table.table] == table.sqlite.count, "\(table.table)")
        }
        #expect(report.verifiedHashes == report.rows["versions"] && report.revokedTokens == 2)
        #expect(report.target == FlagStore.displayName(of: uri) && report.source == fixture.path)

        // Through the store's API, as the server reads it.
        let copy = try FlagStore.open(location: uri)
        defer { copy.close() }
        #expect(try copy.epoch() == source.epoch())
        #expect(try copy.environments() == source.environments())
        for environment in CopyFixture.environments {
            #expect(try copy.versions(environment: environment, limit: 1000) == source.versions(environment: environment, limit: 1000))
        }
        #expect(try copy.latestVersions() == source.latestVersions())
        #expect(try copy.damagedVersions().isEmpty)
        #expect(try copy.listTokens(includeRevoked: true) == source.listTokens(includeRevoked: true))
        for (name, secret) in fixture.activeSecrets { #expect(try copy.authenticate(secret: secret)?.name == name) }
        for secret in fixture.revokedSecrets { #expect(try copy.authenticate(secret: secret) == nil) }
        #expect(try copy.policies() == source.policies())
        #expect(try Self.changes(copy) == Self.changes(source))
        #expect(Set(try Self.changes(source).map(\.status)) == Set(ChangeStatus.allCases))
        // Guards with their rules, decisions and actions, and the schedule one holds.
        #expect(try copy.guards() == source.guards() && (try source.guards()).count == 2)
        #expect(try Self.changes(copy).contains { $0.heldByGuard != nil })
        let webhooks = try source.webhooks(includeDeleted: true)
        #expect(try copy.webhooks(includeDeleted: true) == webhooks && webhooks.count == 3)
        for webhook in webhooks {
            #expect(try copy.webhookEndpoint(id: webhook.id) == source.webhookEndpoint(id: webhook.id))
            #expect(try copy.webhookDeliveries(webhookID: webhook.id) == source.webhookDeliveries(webhookID: webhook.id))
        }
        #expect(try Array(copy.auditEntries(limit: 10_000).dropFirst()) == source.auditEntries(limit: 10_000))
        // The notifications and the subscription hash's key arrive: hashes made before the copy still match after it.
        #expect(try copy.notifications(signedFrom: 0, to: .max) == CopyFixture.notifications)
        #expect(try copy.subscriptionHashKey() == source.subscriptionHashKey())
        #expect(try copy.storeNotifications(CopyFixture.notifications) == [false, false])
        #expect(report.summary.contains("2 App Store notifications with the subscription hash's key"))
        let line = try #require(try copy.auditEntries(limit: 1).first)
        #expect(line.action == "database.copy" && line.actor == "tester" && line.detail.hasPrefix("copied from \(fixture.path): "))
    }

    @Test func newRowsAfterTheCopyContinueTheNumbersAndIds() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let uri = try PostgresTestCluster.shared().createDatabase()
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        _ = try source.copy(toPostgres: uri, actor: "tester")
        let copy = try FlagStore.open(location: uri)
        defer { copy.close() }
        let head = try #require(try copy.currentVersion(environment: "qa")).number
        let published = try copy.publish(environment: "qa", document: CopyFixture.document("qa", 99), author: "ops",
                                         expectedCurrentVersion: head)
        let epoch = try source.epoch()
        #expect(published.record.number == head + 1 && published.record.epoch == epoch)
        let tokens = try source.listTokens(includeRevoked: true).map(\.id)
        #expect(try copy.createToken(name: "new", role: .reader).record.id == (tokens.max() ?? 0) + 1)
        let changes = try Self.changes(source).map(\.id)
        let change = try copy.createChange(NewChange(
            environment: "qa", kind: .flags, changeSet: ChangeSet(flags: ["n": ["type": "boolean", "default": true]]),
            baseVersion: head + 1, author: "a", message: "m", applyAtMilliseconds: 1, needsApproval: false, touchedFlags: ["n"]))
        #expect(change.id == (changes.max() ?? 0) + 1)
        let webhooks = try source.webhooks(includeDeleted: true).map(\.id)
        #expect(try copy.createWebhook(url: "https://new.example", secret: "s", events: ["*"], actor: "ops").id == (webhooks.max() ?? 0) + 1)
        try copy.createEnvironment(name: "new-env", actor: "ops")
        #expect(try copy.environments().contains("new-env"))
        let copiedDeliveries = try Self.count(uri, "webhook_deliveries")
        let deliveries = try copy.enqueueWebhookEvent(WebhookEvent(id: "evt_after_copy", type: "version.published", environment: "qa",
                                                                   payload: [1], createdAtMilliseconds: 1))
        #expect(!deliveries.isEmpty && deliveries.allSatisfy { $0.id > Int64(copiedDeliveries) })
    }

    @Test func aTargetThatHoldsAnythingIsRefusedAndKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let uri = try PostgresTestCluster.shared().createDatabase()
        let used = try FlagStore.open(location: uri)
        _ = try used.createToken(name: "somebody", role: .reader)
        used.close()
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let before = try StoreEngine.postgres.everythingStored(uri)
        let error = #expect(throws: FlagStoreError.self) { try source.copy(toPostgres: uri, actor: "tester") }
        #expect(error == .copyTargetNotEmpty(target: FlagStore.displayName(of: uri), holds: "audit: 1 row, tokens: 1 row"))
        #expect(error?.description.contains("is not empty (it holds audit: 1 row, tokens: 1 row)") == true)
        #expect(try StoreEngine.postgres.everythingStored(uri) == before)
    }

    @Test func aDatabaseWithOnlyWhatTheMigrationsInsertCountsAsEmpty() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let uri = try PostgresTestCluster.shared().createDatabase()
        try FlagStore.open(location: uri).close()
        #expect(try Self.count(uri, "environments") == 2)
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let report = try source.copy(toPostgres: uri, actor: "tester")
        #expect(report.rows["environments"] == 4 && report.rows["meta"] == 1)
        #expect(try Self.count(uri, "environments") == 4 && Self.count(uri, "meta") == 1)
    }

    @Test func aDamagedSourceIsRefusedBeforeTheTargetIsTouched() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        try tamper(fixture.path, "UPDATE versions SET document = ? WHERE id IN (3, 5)", [.blob(Array("{}".utf8))])
        let uri = try PostgresTestCluster.shared().createDatabase()
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let error = #expect(throws: FlagStoreError.self) { try source.copy(toPostgres: uri, actor: "tester") }
        guard case .copySourceDamaged(let path, let problems)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(path == fixture.path && problems.count == 2 && problems[0].contains("is damaged"))
        #expect(error?.description.contains("(and 1 more problem); nothing was written") == true)
        #expect(try !Self.hasSchema(uri))
    }

    @Test func aFailureHalfWayRollsEverythingBackAndTheCopyCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let uri = try PostgresTestCluster.shared().createDatabase()
        let target = try FlagStore.open(location: uri)
        let epoch = try target.epoch()
        target.close()
        // The last table copied refuses its rows: environments, versions, tokens, audit, ... are in by then.
        let cluster = try PostgresTestCluster.shared()
        let database = String(uri.split(separator: "?")[0].dropFirst("postgresql:///".count))
        try cluster.psql("""
            CREATE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'injected failure'; END $$;
            CREATE TRIGGER injected BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION injected_failure();
            """, database: database)
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let error = #expect(throws: FlagStoreError.self) { try source.copy(toPostgres: uri, actor: "tester") }
        #expect(error?.description.contains("copying webhook_attempts, rows 1-") == true, "\(String(describing: error))")
        #expect(error?.description.contains("injected failure") == true)
        for table in ["versions", "tokens", "audit", "changes", "policies", "webhooks", "webhook_deliveries", "webhook_attempts",
                      "appstore_notifications", "appstore_keys", "guards"] {
            #expect(try Self.count(uri, table) == 0, "\(table)")
        }
        let after = try FlagStore.open(location: uri)
        #expect(try after.environments() == ["production", "staging"] && after.epoch() == epoch)
        after.close()

        try cluster.psql("DROP TRIGGER injected ON webhook_attempts", database: database)
        let report = try source.copy(toPostgres: uri, actor: "tester")
        #expect(report.rows["webhook_attempts"] == (try Self.count(uri, "webhook_attempts")) && report.rows["webhook_attempts"] ?? 0 > 0)
    }

    @Test func aConnectionLostHalfWayLeavesTheTargetAsItWas() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let uri = try PostgresTestCluster.shared().createDatabase()
        try FlagStore.open(location: uri).close()
        // The copy's own session is terminated by the server while it inserts the last table, as when PostgreSQL
        // is restarted or fails over in the middle: the transaction dies with the session.
        let cluster = try PostgresTestCluster.shared()
        let database = String(uri.split(separator: "?")[0].dropFirst("postgresql:///".count))
        try cluster.psql("""
            CREATE FUNCTION lose_connection() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$;
            CREATE TRIGGER lose BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION lose_connection();
            """, database: database)
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let error = #expect(throws: FlagStoreError.self) { try source.copy(toPostgres: uri, actor: "tester") }
        guard case .unavailable? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        for table in ["versions", "tokens", "audit", "changes", "webhook_deliveries", "webhook_attempts", "appstore_notifications",
                      "appstore_keys", "guards"] {
            #expect(try Self.count(uri, table) == 0, "\(table)")
        }
        #expect(try Self.count(uri, "environments") == 2)
        try cluster.psql("DROP TRIGGER lose ON webhook_attempts", database: database)
        #expect(try source.copy(toPostgres: uri, actor: "tester").rows["versions"] == (try Self.count(uri, "versions")))
    }

    @Test func aValuePostgreSQLCannotHoldStopsTheCopyAndLeavesNoSchemaBehind() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 3)
        let editor = try Database(path: fixture.path)
        try editor.run("UPDATE webhook_attempts SET error = ? WHERE id = 1", [.text("bad\u{0}byte")])
        editor.close()
        let uri = try PostgresTestCluster.shared().createDatabase()
        let source = try FlagStore.open(location: fixture.path)
        defer { source.close() }
        let error = #expect(throws: FlagStoreError.self) { try source.copy(toPostgres: uri, actor: "tester") }
        #expect(error == .copyMismatch("webhook_attempts.error of the row with id 1 holds text that is not valid UTF-8 or contains NUL, "
            + "which PostgreSQL's text cannot store"))
        #expect(try !Self.hasSchema(uri))
    }

    @Test func onlyASQLiteStoreCopiesAndOnlyIntoAURI() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { sqlite.close() }
        #expect(throws: FlagStoreError.invalidArgument(name: "to", reason: "must be a postgresql:// or postgres:// URI")) {
            try sqlite.copy(toPostgres: directory.file("other.sqlite"), actor: "tester")
        }
        let postgres = try FlagStore.open(location: try PostgresTestCluster.shared().createDatabase())
        defer { postgres.close() }
        let error = #expect(throws: FlagStoreError.self) { try postgres.copy(toPostgres: "postgresql:///x", actor: "tester") }
        #expect(error?.description.contains("pg_dump and pg_restore") == true)
    }
}
