import Testing
@testable import FlagKit

/// Change sets: computed from a base and a proposal, conflicts against the current document, applying.
@Suite struct ChangeSetTests {
    /// Base: a banner that requires the master switch, a locked flag for `internal`, two cohorts.
    static let base = """
        {"flags": {
            "monetizationEnabled": {"type": "boolean", "default": true},
            "banner": {"type": "boolean", "default": true, "requires": {"monetizationEnabled": true}},
            "locked": {"type": "boolean", "default": false, "rules": [{"cohort": "internal", "value": true}]},
            "copy": {"type": "string", "default": "free"}},
         "cohorts": {"internal": {"installId": {"in": ["a"]}}, "beta": {"channel": {"eq": "testflight"}}}}
        """

    static func document(_ json: String) throws -> FlagDocument { try FlagDocument.decode(json) }

    /// `base` with `edit` applied to its JSON.
    static func edited(_ edit: (inout [String: JSONValue], inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        let root = try document(base).jsonValue.objectValue ?? [:]
        var flags = root["flags"]?.objectValue ?? [:]
        var cohorts = root["cohorts"]?.objectValue ?? [:]
        edit(&flags, &cohorts)
        return try FlagDocument(validating: ["flags": .object(flags), "cohorts": .object(cohorts)])
    }

    @Test func holdsExactlyWhatDiffers() throws {
        let proposed = try Self.edited { flags, cohorts in
            flags["banner"] = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
            flags["copy"] = nil
            flags["newFlag"] = ["type": "integer", "default": 3]
            cohorts["beta"] = nil
            cohorts["english"] = ["locale": ["startsWith": "en"]]
        }
        let changeSet = ChangeSet(base: try Self.document(Self.base), proposed: proposed)
        #expect(changeSet.flags == [
            "banner": ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]],
            "copy": nil, "newFlag": ["type": "integer", "default": 3],
        ])
        #expect(changeSet.cohorts == ["beta": nil, "english": ["locale": ["startsWith": "en"]]])
        #expect(changeSet.items.map(\.pointer) == ["/cohorts/beta", "/cohorts/english", "/flags/banner", "/flags/copy", "/flags/newFlag"])
        #expect(changeSet.flagKeys == ["banner", "copy", "newFlag"] && changeSet.cohortNames == ["beta", "english"])
        #expect(!changeSet.isEmpty)
    }

    @Test func equalDocumentsGiveAnEmptyChangeSet() throws {
        let changeSet = ChangeSet(base: try Self.document(Self.base), proposed: try Self.document(Self.base))
        #expect(changeSet.isEmpty && changeSet.items.isEmpty)
        #expect(changeSet == ChangeSet())
    }

    @Test func itemPointersRoundTripAndRefuseOtherText() {
        let item = ChangeSet.Item(kind: .flag, name: "a/b~c")
        #expect(item.pointer == "/flags/a~1b~0c")
        #expect(ChangeSet.Item(pointer: item.pointer) == item)
        #expect(ChangeSet.Item(pointer: "/cohorts/internal") == ChangeSet.Item(kind: .cohort, name: "internal"))
        #expect(ChangeSet.Item(pointer: "/flags/a~01") == ChangeSet.Item(kind: .flag, name: "a~1"))
        for bad in ["", "/", "/flags", "/flags/", "/flags/a/b", "flags/a", "/rules/a", "/flags/a~2", "/flags/a~"] {
            #expect(ChangeSet.Item(pointer: bad) == nil, "\(bad)")
        }
        #expect(ChangeSet.Item(kind: .cohort, name: "z") < ChangeSet.Item(kind: .flag, name: "a"))
    }

    @Test func conflictsAreItemsChangedSinceAndNotAsProposed() throws {
        let base = try Self.document(Self.base)
        let proposed = try Self.edited { flags, cohorts in
            flags["banner"] = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
            flags["copy"] = nil
            cohorts["internal"] = ["installId": ["in": ["a", "b"]]]
        }
        let changeSet = ChangeSet(base: base, proposed: proposed)
        // Unchanged since: nothing conflicts.
        #expect(changeSet.conflicts(base: base, current: base).isEmpty)
        // Someone else changed the banner differently, the copy, and an unrelated flag.
        let current = try Self.edited { flags, _ in
            flags["banner"] = ["type": "boolean", "default": true, "description": "changed"]
            flags["copy"] = ["type": "string", "default": "paid"]
            flags["locked"] = ["type": "boolean", "default": true]
        }
        #expect(changeSet.conflicts(base: base, current: current).map(\.pointer) == ["/flags/banner", "/flags/copy"])
        // Someone made the same decisions already: no conflict, nothing would be overwritten.
        let same = try Self.edited { flags, cohorts in
            flags["banner"] = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
            flags["copy"] = nil
            cohorts["internal"] = ["installId": ["in": ["a", "b"]]]
        }
        #expect(changeSet.conflicts(base: base, current: same).isEmpty)
        // A cohort changed since, differently.
        let cohortChanged = try Self.edited { _, cohorts in cohorts["internal"] = ["installId": ["in": ["z"]]] }
        #expect(changeSet.conflicts(base: base, current: cohortChanged) == [ChangeSet.Item(kind: .cohort, name: "internal")])
    }

    @Test func appliesToTheCurrentDocumentKeepingWhatWasPublishedSince() throws {
        let base = try Self.document(Self.base)
        let proposed = try Self.edited { flags, cohorts in
            flags["banner"] = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
            flags["copy"] = nil
            cohorts["beta"] = nil
        }
        let current = try Self.edited { flags, _ in flags["locked"] = ["type": "boolean", "default": true] }
        let result = try ChangeSet(base: base, proposed: proposed).apply(to: current)
        #expect(result.flags["banner"]?.defaultValue == false)
        #expect(result.flags["copy"] == nil)
        #expect(result.cohorts["beta"] == nil && result.cohorts["internal"] != nil)
        #expect(result.flags["locked"] == Flag(type: .boolean, defaultValue: true), "the version published since is kept")
        #expect(result.flags["monetizationEnabled"] == base.flags["monetizationEnabled"])
    }

    @Test func aResultThatNoLongerValidatesFailsWithEveryIssueAndItsPath() throws {
        let base = try Self.document(Self.base)
        // The change adds a rule for `beta`...
        let proposed = try Self.edited { flags, _ in
            flags["copy"] = ["type": "string", "default": "free", "rules": [["cohort": "beta", "value": "beta copy"]]]
        }
        let changeSet = ChangeSet(base: base, proposed: proposed)
        // ...but since then someone removed `beta`; and a flag published since requires `copy`, so removing it fails.
        let current = try FlagDocument(validating: ["flags": [
            "copy": ["type": "string", "default": "free"],
            "newer": ["type": "boolean", "default": true, "requires": ["copy": "free"]],
        ]])
        let removal = ChangeSet(flags: ["copy": nil])
        #expect(throws: FlagDocumentError.invalid([
            ValidationIssue(path: "/flags/copy/rules/0/cohort", message: "unknown cohort \"beta\""),
        ])) { try changeSet.apply(to: current) }
        #expect(throws: FlagDocumentError.invalid([
            ValidationIssue(path: "/flags/newer/requires/copy", message: "unknown flag \"copy\""),
        ])) { try removal.apply(to: current) }
    }

    @Test func aDefinitionThatIsNoFlagIsRefusedAtItsPath() throws {
        let changeSet = ChangeSet(flags: ["x": ["type": "boolean", "default": "yes", "color": "red"]])
        let base = try Self.document(Self.base)
        do {
            _ = try changeSet.apply(to: base)
            Issue.record("applied")
        } catch {
            #expect(error.issues.map(\.path) == ["/flags/x/color", "/flags/x/default"])
        }
    }
}
