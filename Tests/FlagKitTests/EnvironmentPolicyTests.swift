import Testing
@testable import FlagKit

/// Environment policies: strict decoding with JSON paths, canonical encoding, protection.
@Suite struct EnvironmentPolicyTests {
    static let production = """
        {"protected": false, "requestTTLHours": 48,
         "flags": {"premiumFeaturesLocked": {"protected": true, "owner": "monetization"},
                   "showIntroFreeSubscriptionBanner": {"owner": "growth", "removeAfter": "2027-06-01"}}}
        """

    @Test func decodesTheDesignExample() throws {
        let policy = try EnvironmentPolicy.decode(Array(Self.production.utf8))
        #expect(!policy.isProtected && policy.requestTTLHours == 48)
        #expect(policy.flags["premiumFeaturesLocked"] == FlagPolicy(isProtected: true, owner: "monetization"))
        #expect(policy.flags["showIntroFreeSubscriptionBanner"]
            == FlagPolicy(owner: "growth", removeAfter: CalendarDate(year: 2027, month: 6, day: 1)))
        #expect(policy.requestTTLMilliseconds == 48 * 3_600_000)
    }

    @Test func theDefaultPolicyProtectsNothingAndIsWhatAnEmptyObjectMeans() throws {
        #expect(try EnvironmentPolicy.decode(Array("{}".utf8)) == .default)
        #expect(EnvironmentPolicy.default.requestTTLHours == 72)
        #expect(!EnvironmentPolicy.default.isProtected(flag: "premiumFeaturesLocked"))
        #expect(String(decoding: EnvironmentPolicy.default.canonicalBytes, as: UTF8.self)
            == #"{"flags":{},"protected":false,"requestTTLHours":72}"#)
    }

    @Test func canonicalFormRoundTripsAndDropsDefaultFalse() throws {
        let policy = try EnvironmentPolicy.decode(Array(Self.production.utf8))
        #expect(String(decoding: policy.canonicalBytes, as: UTF8.self) == """
            {"flags":{"premiumFeaturesLocked":{"owner":"monetization","protected":true},\
            "showIntroFreeSubscriptionBanner":{"owner":"growth","removeAfter":"2027-06-01"}},\
            "protected":false,"requestTTLHours":48}
            """)
        #expect(try EnvironmentPolicy.decode(policy.canonicalBytes) == policy)
        let explicitFalse = try EnvironmentPolicy.decode(Array(#"{"flags": {"a": {"protected": false}}}"#.utf8))
        #expect(String(decoding: explicitFalse.canonicalBytes, as: UTF8.self)
            == #"{"flags":{"a":{}},"protected":false,"requestTTLHours":72}"#)
    }

    @Test func protectionByFlagAndByEnvironment() throws {
        let policy = try EnvironmentPolicy.decode(Array(Self.production.utf8))
        #expect(policy.isProtected(flag: "premiumFeaturesLocked"))
        #expect(!policy.isProtected(flag: "showIntroFreeSubscriptionBanner"))
        #expect(!policy.isProtected(flag: "notInThePolicy"))
        #expect(policy.protectedFlags(in: ["showIntroFreeSubscriptionBanner", "premiumFeaturesLocked", "premiumFeaturesLocked"])
            == ["premiumFeaturesLocked"])
        #expect(policy.protectedFlags(in: [String]()).isEmpty)
        let everything = EnvironmentPolicy(isProtected: true)
        #expect(everything.isProtected(flag: "anything"))
        #expect(everything.protectedFlags(in: ["b", "a"]) == ["a", "b"])
    }

    @Test(arguments: [
        (#"[]"#, ["": "must be a policy object (got array)"]),
        (#"{"protect": true}"#, ["/protect": "unknown key (expected one of: flags, protected, requestTTLHours)"]),
        (#"{"protected": "yes"}"#, ["/protected": "must be true or false (got string)"]),
        (#"{"requestTTLHours": 0}"#, ["/requestTTLHours": "must be an integer from 1 to 720 (got 0)"]),
        (#"{"requestTTLHours": 721}"#, ["/requestTTLHours": "must be an integer from 1 to 720 (got 721)"]),
        (#"{"requestTTLHours": 1.5}"#, ["/requestTTLHours": "must be an integer from 1 to 720 (got 1.5)"]),
        (#"{"requestTTLHours": "72"}"#, ["/requestTTLHours": "must be an integer from 1 to 720 (got \"72\")"]),
        (#"{"flags": []}"#, ["/flags": "must be an object of flag policies (got array)"]),
        (#"{"flags": {"a b": {}}}"#, ["/flags/a b": "flag key must be 1-128 characters of A-Z a-z 0-9 . _ -"]),
        (#"{"flags": {"a": true}}"#,
         ["/flags/a": "must be an object with optional \"protected\", \"owner\" and \"removeAfter\" (got boolean)"]),
        (#"{"flags": {"a": {"ownr": "x", "protected": 1}}}"#,
         ["/flags/a/ownr": "unknown key (expected one of: owner, protected, removeAfter)",
          "/flags/a/protected": "must be true or false (got integer)"]),
        (#"{"flags": {"a": {"owner": ""}}}"#, ["/flags/a/owner": "must be 1-200 bytes (got 0)"]),
        (#"{"flags": {"a": {"owner": 7}}}"#, ["/flags/a/owner": "must be a string (got integer)"]),
        (#"{"flags": {"a": {"removeAfter": "2027-02-29"}}}"#,
         ["/flags/a/removeAfter": "2027-02 has no day 29 (got \"2027-02-29\")"]),
        (#"{"flags": {"a": {"removeAfter": "2027-06-01T00:00:00Z"}}}"#,
         ["/flags/a/removeAfter": "must be a date YYYY-MM-DD (got \"2027-06-01T00:00:00Z\")"]),
        (#"{"flags": {"a": {"removeAfter": 20270601}}}"#, ["/flags/a/removeAfter": "must be a date YYYY-MM-DD (got integer)"]),
        (#"{"protected": true, "protected": false}"#, ["/protected": "duplicate key"]),
    ])
    func refusesWithEveryProblemAtItsPath(json: String, expected: [String: String]) {
        do {
            _ = try EnvironmentPolicy.decode(Array(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(Dictionary(error.issues.map { ($0.path, $0.message) }, uniquingKeysWith: { $0 + "; " + $1 }) == expected)
        }
    }

    @Test func ownerLengthIsCountedInBytes() throws {
        let longest = String(repeating: "ü", count: 100)
        #expect(try EnvironmentPolicy.decode(Array(#"{"flags": {"a": {"owner": "\#(longest)"}}}"#.utf8)).flags["a"]?.owner == longest)
        #expect(throws: FlagDocumentError.self) {
            try EnvironmentPolicy.decode(Array(#"{"flags": {"a": {"owner": "\#(longest)x"}}}"#.utf8))
        }
    }

    @Test func malformedJSONIsReportedAsSuch() {
        #expect(throws: FlagDocumentError.self) { try EnvironmentPolicy.decode(Array("{".utf8)) }
        do {
            _ = try EnvironmentPolicy.decode(Array("{\"protected\": tru}".utf8))
            Issue.record("accepted")
        } catch {
            guard case .malformedJSON = error else { Issue.record("\(error)"); return }
        }
    }
}
