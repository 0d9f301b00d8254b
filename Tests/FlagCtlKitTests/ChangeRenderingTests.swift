import CommandLineKit
import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// How changes read in a terminal: one sentence per status, and a change request that says how to go on.
@Suite struct ChangeRenderingTests {
    static func summary(_ members: [String: JSONValue]) throws -> ChangeSummary {
        var object = ChangeSummaryTests.change.objectValue ?? [:]
        for (key, value) in members { object[key] = value }
        return try ChangeSummary(.object(object), url: ChangeSummaryTests.url)
    }

    @Test func everyStatusReadsAsOneSentence() throws {
        #expect(ChangeRendering.state(try Self.summary([:])) == "conflicted: /flags/showIntroFreeSubscriptionBanner changed since it was made")
        #expect(ChangeRendering.state(try Self.summary(["status": "applied", "appliedVersion": 9, "appliedAt": "T"])) == "applied as version 9 at T")
        #expect(ChangeRendering.state(try Self.summary(["status": "scheduled"])) == "scheduled for 2027-02-28T23:00:00.000Z")
        #expect(ChangeRendering.state(try Self.summary(["status": "pending", "expiresAt": "E"])) == "pending approval until E")
        #expect(ChangeRendering.state(try Self.summary(["status": "failed", "reason": "invalid"])) == "failed: invalid")
        #expect(ChangeRendering.state(try Self.summary(["status": "rejected", "decidedBy": "ops-bob", "decisionMessage": "no"]))
                == "rejected by ops-bob: no")
    }

    @Test func aChangeRequestSaysWhatIsProtectedAndHowToApprove() throws {
        let output = BufferOutput()
        let context = RunContext(globals: GlobalOptions(), stdout: output, stderr: BufferOutput(), stdoutIsTerminal: false, environment: [:])
        let change = try Self.summary(["status": "pending", "protectedFlags": ["premiumFeaturesLocked"], "expiresAt": "E", "applyAt": nil])
        let proposal = try ChangeProposal(["change": change.json, "lines": [["kind": "changed", "text": "~ flag a"]]], url: ChangeSummaryTests.url)
        ChangeRendering.printRequest(proposal, context)
        #expect(output.text == """
            nothing was published: production change request 12 needs a second person's approval
              protected:  premiumFeaturesLocked
              changes:    cohort beta, a, showIntroFreeSubscriptionBanner
              expires:    E
              ~ flag a
            approve (with another writer's token): flagctl approve 12 -m MESSAGE
            reject:                                flagctl reject 12 -m MESSAGE

            """)
    }
}
