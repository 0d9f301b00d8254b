import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Epochs on real SQLite files: every record carries the current one, a new one is always larger, and a restore
/// from a backup brings the backup's content back in an epoch larger than both.
@Suite struct FlagStoreEpochTests {
    static let documentA = Array(#"{"cohorts":{},"flags":{"a":{"default":true,"type":"boolean"}}}"#.utf8)
    static let documentB = Array(#"{"cohorts":{},"flags":{"a":{"default":false,"type":"boolean"}}}"#.utf8)

    @Test(arguments: StoreEngine.allCases) func aNewDatabaseHasAnEpochThatRecordsCarry(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        let epoch = try store.epoch()
        #expect(epoch > 1_700_000_000_000, "milliseconds since 1970 when the line began")
        _ = try store.publish(environment: "production", document: Self.documentA, author: "t")
        #expect(try store.currentVersion(environment: "production")?.epoch == epoch)
        #expect(try store.versions(environment: "production").map(\.epoch) == [epoch])
    }

    @Test(arguments: StoreEngine.allCases) func aNewEpochIsLargerAndAudited(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        let first = try store.epoch()
        let second = try store.startNewEpoch(actor: "ops", atLeast: first + 10_000_000, reason: "test")
        #expect(second > first + 10_000_000)
        #expect(try store.epoch() == second)
        #expect(try store.startNewEpoch(actor: "ops", reason: "again") > second, "larger even when the clock is behind")
        #expect(try store.auditEntries().contains { $0.action == "epoch.start" && $0.actor == "ops" })
    }

    @Test func restoreBringsTheBackupBackInALargerEpoch() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { store.close() }
        _ = try store.publish(environment: "production", document: Self.documentA, author: "t")
        try store.backup(to: directory.file("backup.sqlite"))
        _ = try store.publish(environment: "production", document: Self.documentB, author: "t")
        let before = try store.startNewEpoch(actor: "ops", atLeast: try store.epoch() + 5_000_000, reason: "far ahead")
        let epoch = try store.restore(from: directory.file("backup.sqlite"), actor: "ops")
        #expect(epoch > before)
        let current = try #require(try store.currentVersion(environment: "production"))
        #expect(current.number == 1 && current.document == Self.documentA && current.epoch == epoch)
        // Publishing goes on from the restored line.
        _ = try store.publish(environment: "production", document: Self.documentB, author: "t")
        #expect(try store.currentVersion(environment: "production")?.number == 2)
        // The backup file itself is untouched.
        let backup = try FlagStore.open(location: directory.file("backup.sqlite"))
        defer { backup.close() }
        #expect(try backup.currentVersion(environment: "production")?.number == 1)
    }

    @Test func aDamagedOrMissingBackupChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { store.close() }
        _ = try store.publish(environment: "production", document: Self.documentA, author: "t")
        let epoch = try store.epoch()
        #expect(throws: FlagStoreError.self) { try store.restore(from: directory.file("missing.sqlite"), actor: "ops") }
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: directory.file("garbage.sqlite")))
        #expect(throws: FlagStoreError.self) { try store.restore(from: directory.file("garbage.sqlite"), actor: "ops") }
        #expect(try store.epoch() == epoch)
        #expect(try store.currentVersion(environment: "production")?.document == Self.documentA)
    }

    /// A backup made by a schema-2 release, restored into a server of this build: migrated after the copy, so
    /// the governance tables exist again (empty: the backup's content replaces everything).
    @Test func restoringASchema2BackupMigratesIt() throws {
        let directory = try TemporaryDirectory()
        let backupPath = directory.file("old-backup.sqlite")
        try makeSchema2Database(backupPath)
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { store.close() }
        _ = try store.createChange(scheduledChange())
        try store.setPolicy(environment: "production", policy: EnvironmentPolicy(isProtected: true), actor: "admin")
        let epoch = try store.restore(from: backupPath, actor: "ops")
        #expect(try SQLiteConnection(path: store.location, mode: .readOnly).userVersion() == Schema.latestVersion)
        #expect(try store.currentVersion(environment: "production")?.author == "seed")
        #expect(try store.currentVersion(environment: "production")?.epoch == epoch)
        #expect(try store.changes(query: ChangeQuery(environment: "production")).isEmpty)
        #expect(try store.policy(environment: "production") == .default)
        #expect(try store.auditEntries().map(\.action) == ["epoch.start", "token.create", "publish"])
        #expect(try store.auditEntries().allSatisfy { $0.outcome == .ok })
        // The migrated store takes the new kinds of rows, and its checks pass.
        let change = try store.createChange(scheduledChange(applyAt: 1))
        _ = try store.applyChange(id: change.id, document: document("new"), expectedCurrentVersion: 1)
        #expect(try store.integrityCheck() == ["ok"] && store.damagedVersions().isEmpty)
        #expect(try SQLiteConnection(path: backupPath, mode: .readOnly).userVersion() == 2, "the backup itself is only read")
    }
}
