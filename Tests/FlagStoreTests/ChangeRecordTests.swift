import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// A change's API form and the reading of damaged rows.
@Suite struct ChangeRecordTests {
    @Test(arguments: StoreEngine.allCases) func theJSONFormOfTheDesign(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        var new = scheduledChange("showIntroFreeSubscriptionBanner", applyAt: 1_803_855_600_000, author: "ops-alice",
                                  message: "the free intro period is over")
        new.baseVersion = 7
        let change = try store.createChange(new)
        var members = try #require(change.jsonValue.objectValue)
        #expect(members.removeValue(forKey: "createdAt")?.stringValue?.hasSuffix("Z") == true)
        #expect(members == [
            "id": .integer(change.id), "environment": "production", "kind": "flags", "status": "scheduled",
            "author": "ops-alice", "message": "the free intro period is over", "baseVersion": 7,
            "applyAt": "2027-02-28T23:00:00.000Z", "expiresAt": nil,
            "changes": ["flags": ["showIntroFreeSubscriptionBanner": ["type": "boolean", "default": false]], "cohorts": [:]],
            "touchedFlags": ["showIntroFreeSubscriptionBanner"], "protectedFlags": [], "needsApproval": false,
            "approvedBy": nil, "decidedBy": nil, "decidedAt": nil, "decisionMessage": nil,
            "appliedAt": nil, "appliedVersion": nil, "conflicts": [], "reason": nil, "details": nil,
            "heldByGuard": nil,
        ])
    }

    @Test func aDamagedRowIsReportedAsCorruptionNotGuessed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        let change = try store.createChange(scheduledChange())
        let editor = try Database(path: path)
        for (sql, text) in [
            (#"UPDATE changes SET change_set = '{"flags": 1}'"#, "unreadable change set"),
            (#"UPDATE changes SET change_set = '{"flags": {}, "cohorts": {}}', conflicts = '["/rules/x"]'"#, "names no flag"),
            (#"UPDATE changes SET conflicts = '[1]'"#, "holds a integer"),
        ] {
            try editor.run(sql)
            #expect {
                try store.change(id: change.id)
            } throws: { error in
                guard case FlagStoreError.database(let cause) = error else { return false }
                return cause.isCorruption && cause.message.contains(text)
            }
        }
    }
}
