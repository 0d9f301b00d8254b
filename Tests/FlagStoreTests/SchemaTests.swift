import CSQLite
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Migrations by `user_version`, and the schema's own guarantees.
@Suite struct SchemaTests {
    @Test func migratesFromEmptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        store.close()
        let database = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try database.userVersion() == Schema.latestVersion)
        let tables = try database.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") { $0.text(0) }
        #expect(tables == ["appstore_keys", "appstore_notifications", "audit", "changes", "environments", "guards", "meta", "policies",
                           "tokens", "versions", "webhook_attempts", "webhook_deliveries", "webhooks"])
        #expect(try database.queryFirst("PRAGMA journal_mode") { $0.text(0) } == "wal")
    }

    @Test func reopeningDoesNotMigrateAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let store = try FlagStore.open(location: path)
        #expect(try store.environments() == ["production", "staging"])
    }

    @Test func newerSchemaIsRefusedAtOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        try SQLiteConnection(path: path).setUserVersion(Schema.latestVersion + 1)
        let error = try #require(throws: FlagStoreError.self) { try FlagStore.open(location: path) }
        #expect(error == .schemaTooNew(location: path, found: Schema.latestVersion + 1, supported: Schema.latestVersion))
    }

    @Test func migrationIsUsedByTheVersionsIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let database = try Database(path: path, mode: .readOnly)
        let plan = try database.query("""
            EXPLAIN QUERY PLAN SELECT number FROM versions WHERE environment_id = 1 ORDER BY number DESC LIMIT 1
            """) { $0.text(3) }
        #expect(plan.contains { $0.contains("USING COVERING INDEX") || $0.contains("USING INDEX") })
    }

    @Test func versionsCannotBeChangedOrDeleted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        let database = try Database(path: path)
        let update = try #require(throws: DatabaseError.self) { try database.run("UPDATE versions SET author = 'mallory'") }
        #expect(update.extendedResultCode == CSQLITE_CONSTRAINT_TRIGGER)
        let delete = try #require(throws: DatabaseError.self) { try database.run("DELETE FROM versions") }
        #expect(delete.message.contains("never deleted"))
        #expect(try store.version(environment: "production", number: 1).author == "alice")
    }
}
