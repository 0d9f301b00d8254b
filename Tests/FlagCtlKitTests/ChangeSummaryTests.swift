import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// Reading the server's changes: what flagctl prints, and a reply it cannot read named by its path.
@Suite struct ChangeSummaryTests {
    static let url = URL(fileURLWithPath: "/")

    static let change: JSONValue = [
        "id": 12, "environment": "production", "kind": "flags", "status": "conflicted", "author": "ops-alice",
        "message": "the free intro period is over", "createdAt": "2027-02-20T09:00:00.000Z", "baseVersion": 7,
        "applyAt": "2027-02-28T23:00:00.000Z", "expiresAt": nil,
        "changes": ["flags": ["showIntroFreeSubscriptionBanner": ["type": "boolean", "default": false], "a": nil], "cohorts": ["beta": nil]],
        "touchedFlags": ["showIntroFreeSubscriptionBanner"], "protectedFlags": [], "needsApproval": false, "approvedBy": nil,
        "decidedBy": nil, "decidedAt": nil, "decisionMessage": nil, "appliedAt": nil, "appliedVersion": nil,
        "conflicts": ["/flags/showIntroFreeSubscriptionBanner"], "reason": nil, "details": nil,
    ]

    @Test func readsTheDesignsJSONForm() throws {
        let summary = try ChangeSummary(Self.change, url: Self.url)
        #expect(summary.id == 12)
        #expect(summary.items == ["cohort beta", "a", "showIntroFreeSubscriptionBanner"])
        #expect(summary.applyAt == "2027-02-28T23:00:00.000Z")
        #expect(summary.expiresAt == nil)
        #expect(summary.appliedVersion == nil)
        let proposal = try ChangeProposal(["change": Self.change, "lines": [["kind": "changed", "text": "~ flag a"]],
                                           "impact": ["lines": ["a: 1.0% of sampled installs change"]]], url: Self.url)
        #expect(proposal.lines == ["~ flag a"])
        #expect(proposal.impactLines == ["a: 1.0% of sampled installs change"])
        #expect(!proposal.needsApproval)
    }

    @Test(arguments: [("id", JSONValue.string("12"), "/change/id: expected an integer"),
                      ("status", .null, "/change/status: expected a string"),
                      ("applyAt", .integer(5), "/change/applyAt: expected a string or null"),
                      ("conflicts", .null, "/change/conflicts: expected an array")])
    func namesTheMemberItCannotRead(member: String, value: JSONValue, reason: String) {
        var object = Self.change.objectValue ?? [:]
        object[member] = value
        #expect(throws: ServerError.unreadableReply(url: Self.url.absoluteString, reason: reason)) {
            try ChangeSummary(.object(object), url: Self.url)
        }
    }
}
