import FlagKit
import Foundation
import Testing
@testable import FlagClient

/// Generic lookups: values, details, and the default with reason ERROR for missing flags and mismatched types.
@Suite struct FlagSnapshotLookupTests {
    static func snapshot() throws -> FlagSnapshot {
        let document = try FlagDocument.decode("""
            {"flags": {
              "b": {"type": "boolean", "default": false, "rules": [{"cohort": "de", "value": true}]},
              "s": {"type": "string", "default": "x"},
              "i": {"type": "integer", "default": 42},
              "n": {"type": "number", "default": 2.5},
              "j": {"type": "json", "default": {"k": [1]}}
            }, "cohorts": {"de": {"locale": {"startsWith": "de"}}}}
            """)
        return try FlagSnapshotTests.snapshot(document)
    }

    @Test func typedValuesAndDetails() throws {
        let snapshot = try Self.snapshot()
        #expect(snapshot.bool("b", default: false) == true)
        let details = snapshot.boolDetails("b", default: false)
        #expect(details.variant == "rule-0" && details.reason == .targetingMatch && details.version == 3 && details.errorCode == nil)
        #expect(snapshot.string("s", default: "d") == "x")
        #expect(snapshot.integer("i", default: 0) == 42)
        #expect(snapshot.number("n", default: 0) == 2.5)
        #expect(snapshot.number("i", default: 0) == 42, "an integer is a number")
        #expect(snapshot.json("j", default: nil) == ["k": [1]])
        #expect(snapshot.json("s", default: nil) == "x", "anything is JSON")
        #expect(snapshot.stringDetails("s", default: "d").reason == .staticValue)
    }

    @Test func typeMismatchGivesTheDefaultWithReasonError() throws {
        let snapshot = try Self.snapshot()
        let asBool = snapshot.boolDetails("s", default: true)
        #expect(asBool.value == true && asBool.reason == .error && asBool.errorCode == .typeMismatch)
        #expect(asBool.result.value == true && asBool.version == 3)
        #expect(asBool.result.errorMessage?.contains("string") == true)
        #expect(snapshot.integerDetails("n", default: 7).value == 7)
        #expect(snapshot.integerDetails("n", default: 7).errorCode == .typeMismatch)
        #expect(snapshot.stringDetails("i", default: "d").value == "d")
        #expect(snapshot.numberDetails("b", default: 1.5).errorCode == .typeMismatch)
    }

    @Test func detailsTellTheCallersDefaultFromTheDocumentsDefault() throws {
        let snapshot = try Self.snapshot()
        #expect(!snapshot.boolDetails("b", default: false).isCallerDefault)
        let fromDocument = snapshot.integerDetails("i", default: 0)
        #expect(fromDocument.value == 42 && fromDocument.variant == "default" && !fromDocument.isCallerDefault)
        #expect(snapshot.boolDetails("nope", default: true).isCallerDefault)
        #expect(snapshot.boolDetails("s", default: true).isCallerDefault, "a type mismatch gives the caller's default")
    }

    @Test func missingFlagGivesTheDefaultWithFlagNotFound() throws {
        let snapshot = try Self.snapshot()
        for details in [snapshot.boolDetails("nope", default: true).result, snapshot.jsonDetails("nope", default: [1]).result] {
            #expect(details.reason == .error && details.errorCode == .flagNotFound)
        }
        #expect(snapshot.bool("nope", default: true) == true)
        #expect(snapshot.json("nope", default: [1]) == [1])
        #expect(snapshot.result("nope").errorCode == .flagNotFound)
    }
}
