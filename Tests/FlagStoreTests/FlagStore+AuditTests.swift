import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// The audit log: appending (alone and with a publish batch), filters, paging, and the old call.
@Suite struct FlagStoreAuditTests {
    /// A store with 30 lines: actors a/b/c in turn, environments production/staging, every third refused.
    static func filledStore(_ directory: TemporaryDirectory) throws -> FlagStore {
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        var lines: [AuditRecord] = []
        for index in 0..<30 {
            let even = index % 2 == 0
            let refused = index % 3 == 2
            let actor = ["a", "b", "c"][index % 3]
            let at = 1_000 + Int64(index) * 10
            lines.append(AuditRecord(actor: actor, action: even ? "publish" : "change.approve",
                                     environment: even ? "production" : "staging", target: "t\(index)",
                                     outcome: refused ? .refused : .ok, status: refused ? 403 : nil,
                                     reason: refused ? "self_approval" : nil, client: "10.0.0.\(index)",
                                     detail: "line \(index)", atMilliseconds: at))
        }
        try store.appendAudit(lines)
        return store
    }

    @Test func appendedLinesReadBackWithEveryColumn() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.filledStore(directory)
        let newest = try #require(try store.auditEntries(query: AuditQuery(limit: 1)).entries.first)
        #expect(newest.actor == "c" && newest.action == "change.approve" && newest.environment == "staging")
        #expect(newest.outcome == .refused && newest.status == 403 && newest.reason == "self_approval")
        #expect(newest.client == "10.0.0.29" && newest.target == "t29" && newest.detail == "line 29" && newest.version == nil)
        #expect(newest.atMilliseconds == 1_290)
    }

    @Test func filtersCombineAndPagesFollowEachOther() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.filledStore(directory)
        let refused = try store.auditEntries(query: AuditQuery(outcome: .refused, limit: 1000))
        #expect(refused.entries.map(\.target) == stride(from: 29, through: 2, by: -3).map { "t\($0)" })
        #expect(refused.next == nil)
        let query = AuditQuery(environment: "production", actor: "a", limit: 2)
        let first = try store.auditEntries(query: query)
        // production is even, actor a is index % 3 == 0: indexes 24, 18, 12, 6, 0.
        #expect(first.entries.map(\.target) == ["t24", "t18"])
        var second = query
        second.before = first.next
        let page2 = try store.auditEntries(query: second)
        #expect(page2.entries.map(\.target) == ["t12", "t6"])
        second.before = page2.next
        let page3 = try store.auditEntries(query: second)
        #expect(page3.entries.map(\.target) == ["t0"] && page3.next == nil)
        let window = try store.auditEntries(query: AuditQuery(sinceMilliseconds: 1_100, untilMilliseconds: 1_150))
        #expect(window.entries.map(\.target) == ["t14", "t13", "t12", "t11", "t10"], "since inclusive, until exclusive")
        let action = try store.auditEntries(query: AuditQuery(action: "change.approve", outcome: .ok, limit: 3))
        #expect(action.entries.map(\.target) == ["t27", "t25", "t21"])
        #expect(try store.auditEntries(query: AuditQuery(actor: "nobody")).entries.isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func aLimitOutside1To1000IsRefused(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        for limit in [0, -1, 1001] {
            #expect(throws: FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(limit)")) {
                try store.auditEntries(query: AuditQuery(limit: limit))
            }
        }
        // The old call keeps its behaviour: clamped, never refused.
        #expect(try store.auditEntries(limit: 0).isEmpty)
        #expect(try store.auditEntries(limit: 5000).isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func publishWritesItsVersionAndTheBatchCarriesRefusals(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let refusal = AuditRecord(actor: "-", action: "publish", environment: "production", outcome: .refused, status: 401,
                                  reason: "no token", client: "192.0.2.1", atMilliseconds: 42)
        let results = try store.publish(batch: [PublishRequest(environment: "production", document: document("a"), author: "w")],
                                        audit: [refusal])
        #expect(try results[0].get().record.number == 1)
        let lines = try store.auditEntries()
        #expect(lines.map(\.action) == ["publish", "publish"])
        #expect(lines[0].version == 1 && lines[0].outcome == .ok && lines[0].actor == "w")
        #expect(lines[1].outcome == .refused && lines[1].atMilliseconds == 42 && lines[1].status == 401)
        // Refusals alone, with nothing to publish, still get written.
        _ = try store.publish(batch: [], audit: [refusal])
        #expect(try store.auditEntries().count == 3)
    }

    /// The batch and its audit lines are one transaction: when the commit cannot happen, neither is written.
    @Test func aFailedBatchWritesNoAuditLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path, busyTimeout: .milliseconds(50))
        let blocker = try Database(path: path)
        try blocker.execute("BEGIN IMMEDIATE")
        let refusal = AuditRecord(actor: "-", action: "publish", outcome: .refused, status: 403)
        #expect(throws: FlagStoreError.self) {
            try store.publish(batch: [PublishRequest(environment: "production", document: document("a"), author: "w")],
                              audit: [refusal])
        }
        #expect(throws: FlagStoreError.self) { try store.appendAudit([refusal]) }
        try blocker.execute("ROLLBACK")
        #expect(try store.auditEntries().isEmpty)
        #expect(try store.currentVersion(environment: "production") == nil)
    }

    @Test(arguments: StoreEngine.allCases) func longClientTextIsCutOnACharacterBoundary(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        try store.appendAudit([AuditRecord(actor: String(repeating: "ä", count: 150), action: "publish",
                                           target: String(repeating: "k", count: 10_000), outcome: .refused,
                                           detail: String(repeating: "d", count: 50_000))])
        let line = try #require(try store.auditEntries().first)
        #expect(line.actor == String(repeating: "ä", count: 100))
        #expect(line.target?.utf8.count == AuditRecord.maximumTargetBytes)
        #expect(line.detail.utf8.count == AuditRecord.maximumDetailBytes)
    }
}
