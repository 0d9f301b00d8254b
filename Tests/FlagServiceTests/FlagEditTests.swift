import FlagKit
import FlagService
import FlagServiceTestSupport
import Testing

/// Bare values versus definitions, and how each changes a document.
@Suite struct FlagEditTests {
    static let document: FlagDocument? = try? FlagDocument.decode("""
        {"flags": {"gate": {"type": "boolean", "default": false, "description": "d", "salt": "s",
                            "requires": {"master": true}, "rules": [{"cohort": "beta", "value": true}]},
                   "master": {"type": "boolean", "default": true}},
         "cohorts": {"beta": {"channel": {"in": ["testflight"]}}}}
        """)

    @Test func readsDefinitionsAndBareValues() {
        #expect(FlagEdit(["type": "boolean", "default": true]) == .definition(["type": "boolean", "default": true]))
        #expect(FlagEdit(true) == .value(true))
        #expect(FlagEdit(["type": "colour", "default": 1]) == .value(["type": "colour", "default": 1]))
        #expect(FlagEdit(["type": "boolean"]) == .value(["type": "boolean"]))
    }

    @Test func bareValueKeepsEverythingButRules() throws {
        let base = try #require(Self.document)
        let edited = try FlagEdit.value(true).apply(to: base, key: "gate")
        let gate = try #require(edited.flags["gate"])
        #expect(gate.defaultValue == true)
        #expect(gate.rules.isEmpty)
        #expect(gate.description == "d")
        #expect(gate.salt == "s")
        #expect(gate.requires == ["master": true])
        #expect(edited.cohorts.count == 1)
        #expect(edited.flags["master"] == base.flags["master"])
    }

    @Test func typeMismatchNamesThePath() throws {
        let base = try #require(Self.document)
        #expect {
            try FlagEdit.value("on").apply(to: base, key: "gate")
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.status.code == 422 && error.code == "type_mismatch" && error.details.first?.path == "/flags/gate/default"
        }
    }

    @Test func bareValueTypesForTheCreateHint() {
        #expect(FlagEdit.inferredType(of: true) == .boolean)
        #expect(FlagEdit.inferredType(of: 3) == .integer)
        #expect(FlagEdit.inferredType(of: 3.5) == .number)
        #expect(FlagEdit.inferredType(of: "x") == .string)
        #expect(FlagEdit.inferredType(of: ["a": 1]) == .json)
        #expect(FlagEdit.inferredType(of: nil) == .json)
    }

    @Test func bareValueForAnUnknownKeyIsRefusedWithTheClosestKeys() throws {
        let base = try #require(Self.document)
        #expect {
            try FlagEdit.value(true).apply(to: base, key: "gaet")
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.status.code == 422 && error.code == "unknown_flag" && error.extra["closest"] == ["gate"]
                && error.extra["key"] == "gaet" && error.message.contains(#"{"type": "boolean", "default": true}"#)
                && error.details.first?.path == "/flags/gaet"
        }
        // No version yet: nothing to flip, nothing to suggest.
        #expect(throws: ServiceError.self) { try FlagEdit.value(5).apply(to: nil, key: "limit") }
        // A definition creates the flag on purpose.
        let created = try FlagEdit.definition(["type": "integer", "default": 5]).apply(to: base, key: "limit")
        #expect(created.flags["limit"]?.type == .integer)
    }

    @Test func invalidDefinitionIsRefusedWithDocumentPaths() throws {
        let base = try #require(Self.document)
        #expect {
            try FlagEdit.definition(["type": "boolean", "default": true, "requires": ["gate": true]]).apply(to: base, key: "master")
        } throws: { error in
            // master requires gate, gate requires master: a cycle.
            (error as? ServiceError)?.code == "invalid_document" && (error as? ServiceError)?.details.isEmpty == false
        }
    }
}
