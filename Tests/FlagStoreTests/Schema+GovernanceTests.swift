import CSQLite
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Migration 3: from a schema-2 file, and the constraints, trigger and indexes it adds.
@Suite struct SchemaGovernanceTests {
    @Test func aSchema2FileIsMigratedKeepingItsData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try makeSchema2Database(path)
        #expect(try SQLiteConnection(path: path, mode: .readOnly).userVersion() == 2)
        let store = try FlagStore.open(location: path)
        // Opening runs every migration after 2: governance (3) and those after it.
        #expect(try SQLiteConnection(path: path, mode: .readOnly).userVersion() == Schema.latestVersion)
        #expect(try store.version(environment: "production", number: 1).author == "seed")
        let token = try #require(try store.listTokens().first)
        #expect(token.name == "ops" && token.environments == nil && token.allows(environment: "staging"))
        let old = try store.auditEntries()
        #expect(old.map(\.action) == ["token.create", "publish"])
        #expect(old.allSatisfy { $0.outcome == .ok && $0.status == nil && $0.target == nil && $0.version == nil })
        // The new tables work on the migrated file.
        let change = try store.createChange(scheduledChange(applyAt: 10))
        #expect(try store.change(id: change.id).status == .scheduled)
        #expect(try store.policy(environment: "production") == .default)
        #expect(try store.integrityCheck() == ["ok"])
        store.close()
        // Reopening runs nothing again.
        #expect(try FlagStore.open(location: path).auditEntries().count == 3)
    }

    /// Every (from, to) pair of statuses against the trigger: allowed exactly when `ChangeStatus.next` says so.
    @Test func theTransitionTriggerAllowsExactlyTheDesignedTransitions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        _ = try store.publish(environment: "production", document: document("v1"), author: "a")
        store.close()
        let database = try Database(path: path)
        try database.execute("PRAGMA foreign_keys=ON")
        var mismatches: [String] = []
        for from in ChangeStatus.allCases {
            for to in ChangeStatus.allCases {
                let applied = from == .applied
                let id = try #require(try database.insert("""
                    INSERT INTO changes (environment_id, kind, change_set, base_version, author, message, created_at, apply_at,
                                         needs_approval, touched_flags, protected_flags, status, applied_version, applied_at)
                    VALUES (1, 'flags', '{"cohorts":{},"flags":{}}', 0, 'a', '', 1, 5, 1, '[]', '[]', ?, ?, ?)
                    """, [.text(from.rawValue), applied ? .integer(1) : .null, applied ? .integer(9) : .null]))
                let allowed: Bool
                do {
                    try database.run("""
                        UPDATE changes SET status = ?, applied_version = ?, applied_at = ? WHERE id = ?
                        """, [.text(to.rawValue), to == .applied ? .integer(1) : .null, to == .applied ? .integer(9) : .null,
                              .integer(id)])
                    allowed = true
                } catch let error as DatabaseError {
                    #expect(error.resultCode == SQLITE_CONSTRAINT, "\(error)")
                    allowed = false
                }
                if allowed != from.next.contains(to) { mismatches.append("\(from) -> \(to): \(allowed)") }
            }
        }
        #expect(mismatches.isEmpty)
        #expect(ChangeStatus.allCases.filter(\.isFinal) == [.applied, .conflicted, .stale, .failed, .rejected, .expired, .cancelled])
    }

    @Test func anAppliedChangeNeedsItsVersionAndChangesAreNeverDeleted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        let change = try store.createChange(scheduledChange())
        let database = try Database(path: path)
        try database.execute("PRAGMA foreign_keys=ON")
        let missingVersion = try #require(throws: DatabaseError.self) {
            try database.run("UPDATE changes SET status = 'applied', applied_version = 7, applied_at = 1 WHERE id = ?",
                             [.integer(change.id)])
        }
        // SQLITE_CONSTRAINT_FOREIGNKEY and _CHECK are macro expressions Swift does not import.
        #expect(missingVersion.extendedResultCode == SQLITE_CONSTRAINT | (3 << 8))
        let withoutVersion = try #require(throws: DatabaseError.self) {
            try database.run("UPDATE changes SET status = 'applied' WHERE id = ?", [.integer(change.id)])
        }
        #expect(withoutVersion.extendedResultCode == SQLITE_CONSTRAINT | (1 << 8))
        let delete = try #require(throws: DatabaseError.self) { try database.run("DELETE FROM changes") }
        #expect(delete.message.contains("never deleted"))
        #expect(try store.change(id: change.id).status == .scheduled)
    }

    /// The store's filtered reads walk an index in id order: no full scan, no sort.
    @Test(arguments: [
        ("SELECT id FROM audit WHERE environment = 'production' ORDER BY id DESC LIMIT 10", "audit_environment"),
        ("SELECT id FROM audit WHERE actor = 'alice' ORDER BY id DESC LIMIT 10", "audit_actor"),
        ("SELECT id FROM audit WHERE action = 'change.approve' AND action <> 'publish' ORDER BY id DESC LIMIT 10", "audit_action"),
        ("SELECT id FROM audit WHERE outcome = 'refused' AND outcome <> 'ok' ORDER BY id DESC LIMIT 10", "audit_not_ok"),
        ("SELECT id FROM changes WHERE environment_id = 1 ORDER BY id DESC LIMIT 10", "changes_environment"),
        ("SELECT id FROM changes WHERE status = 'scheduled' AND apply_at <= 5", "changes_due"),
        ("SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= 5 ORDER BY next_attempt_at",
         "webhook_deliveries_due"),
        ("SELECT id FROM webhook_deliveries WHERE webhook_id = 1 ORDER BY id DESC LIMIT 10", "webhook_deliveries_webhook"),
    ])
    func queriesUseTheirIndex(sql: String, index: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let database = try Database(path: path, mode: .readOnly)
        let plan = try database.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) }
        #expect(plan.contains { $0.contains("INDEX \(index)") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    /// The audit's outcome CHECK refuses other words, and costs a publish no ephemeral table (an IN list of three
    /// constants would build one at every insert).
    @Test func theOutcomeCheckRefusesOtherWordsWithoutAnEphemeralTable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let database = try Database(path: path)
        let insert = "INSERT INTO audit (at, actor, action, detail, outcome) VALUES (1, 'a', 'publish', '', ?)"
        let refused = try #require(throws: DatabaseError.self) { try database.run(insert, [.text("maybe")]) }
        #expect(refused.extendedResultCode == SQLITE_CONSTRAINT | (1 << 8))
        for outcome in AuditOutcome.allCases { try database.run(insert, [.text(outcome.rawValue)]) }
        let opcodes = try database.query("EXPLAIN " + insert, [.text("ok")]) { $0.text(1) }
        #expect(opcodes.contains("Insert") && !opcodes.contains("OpenEphemeral"), "\(opcodes)")
    }
}
