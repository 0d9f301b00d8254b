import Testing
@testable import FlagKit

/// One flag's policy: members, encoding and the decoder's collected issues.
@Suite struct FlagPolicyTests {
    @Test func encodesOnlyWhatIsSet() {
        #expect(FlagPolicy().jsonValue == [:])
        #expect(FlagPolicy(isProtected: true).jsonValue == ["protected": true])
        #expect(FlagPolicy(owner: "growth", removeAfter: CalendarDate(year: 2027, month: 6, day: 1)).jsonValue
            == ["owner": "growth", "removeAfter": "2027-06-01"])
    }

    @Test func decodesAllMembers() {
        var issues: [ValidationIssue] = []
        let policy = FlagPolicy.decode(["protected": true, "owner": "monetization", "removeAfter": "2028-02-29"],
                                       at: "/flags/x", issues: &issues)
        #expect(issues.isEmpty)
        #expect(policy == FlagPolicy(isProtected: true, owner: "monetization",
                                     removeAfter: CalendarDate(year: 2028, month: 2, day: 29)))
    }

    /// Issues are appended to what the caller collected so far; a refused member gives nil.
    @Test func appendsEveryIssueAndKeepsEarlierOnes() {
        var issues = [ValidationIssue(path: "/earlier", message: "kept")]
        let policy = FlagPolicy.decode(["owner": .string(String(repeating: "a", count: 201)), "removeAfter": "soon"],
                                       at: "/flags/x", issues: &issues)
        #expect(policy == nil)
        #expect(issues.map(\.path) == ["/earlier", "/flags/x/owner", "/flags/x/removeAfter"])
    }
}
