import Testing
@testable import FlagKit

/// The stored and shown form of a change set: canonical encoding, strict decoding with JSON paths.
@Suite struct ChangeSetJSONTests {
    @Test func encodesCanonicallyWithBothMembers() {
        let changeSet = ChangeSet(flags: ["showIntroFreeSubscriptionBanner": ["type": "boolean", "default": false], "old": nil])
        #expect(String(decoding: changeSet.canonicalBytes, as: UTF8.self)
            == #"{"cohorts":{},"flags":{"old":null,"showIntroFreeSubscriptionBanner":{"default":false,"type":"boolean"}}}"#)
        #expect(String(decoding: ChangeSet().canonicalBytes, as: UTF8.self) == #"{"cohorts":{},"flags":{}}"#)
    }

    @Test func decodesWhatItEncodes() throws {
        let changeSet = ChangeSet(flags: ["a": ["type": "integer", "default": 1], "b": nil],
                                  cohorts: ["internal": ["installId": ["in": ["x"]]], "gone": nil])
        #expect(try ChangeSet.decode(changeSet.canonicalBytes) == changeSet)
        #expect(try ChangeSet.decode(Array(changeSet.jsonValue.prettyString.utf8)) == changeSet)
    }

    @Test(arguments: [
        (#"[]"#, ["": "must be an object with \"flags\" and \"cohorts\" (got array)"]),
        (#"{"flags": {}}"#, ["/cohorts": "is required"]),
        (#"{"cohorts": {}, "flags": {}, "extra": 1}"#, ["/extra": "unknown key (expected one of: cohorts, flags)"]),
        (#"{"cohorts": [], "flags": "x"}"#, ["/cohorts": "must be an object of cohorts (got array)",
                                             "/flags": "must be an object of flags (got string)"]),
        (#"{"cohorts": {}, "flags": {"bad key": null, "n": 3}}"#,
         ["/flags/bad key": "flag key must be 1-128 characters of A-Z a-z 0-9 . _ -",
          "/flags/n": "must be a definition (an object) or null for a removal (got integer)"]),
        (#"{"cohorts": {"c/d": {}}, "flags": {}}"#, ["/cohorts/c~1d": "cohort name must be 1-128 characters of A-Z a-z 0-9 . _ -"]),
        (#"{"cohorts": {}, "flags": {"a": null, "a": {}}}"#, ["/flags/a": "duplicate key"]),
    ])
    func refusesWithEveryProblemAtItsPath(json: String, expected: [String: String]) {
        do {
            _ = try ChangeSet.decode(Array(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(Dictionary(error.issues.map { ($0.path, $0.message) }, uniquingKeysWith: { $0 + "; " + $1 }) == expected)
            #expect(error.issues.count == expected.count)
        }
    }

    @Test func malformedJSONHasLineAndColumn() {
        #expect {
            _ = try ChangeSet.decode(Array("{\"flags\": {},\n \"cohorts\": }".utf8))
        } throws: { error in
            guard case FlagDocumentError.malformedJSON(let syntax) = error else { return false }
            return syntax.line == 2
        }
    }
}
