import FlagKit
import FlagService
import FlagServiceTestSupport
import Testing

/// Reading a preview request's body and the answer's members, without a server.
@Suite struct ChangePreviewTests {
    @Test func readsEachKindOfProposalAndItsOptions() throws {
        let value = try ChangePreview(body: ["flag": "a", "value": true, "sample": 10, "seed": 3, "base": 0, "impact": false])
        #expect(value.proposal == .flag(key: "a", edit: .value(true)))
        #expect((value.sampleSize, value.seed, value.base, value.impact) == (10, 3, 0, false))
        // A value that looks like a definition is still a value when sent as `value` (json flags).
        let object: JSONValue = ["type": "boolean", "default": true]
        #expect(try ChangePreview(body: ["flag": "a", "value": object]).proposal == .flag(key: "a", edit: .value(object)))
        #expect(try ChangePreview(body: ["flag": "a", "definition": object]).proposal == .flag(key: "a", edit: .definition(object)))
        let defaults = try ChangePreview(body: ["document": ["flags": [:]]])
        #expect((defaults.sampleSize, defaults.seed, defaults.base, defaults.impact) == (100_000, ImpactSample.defaultSeed, nil, true))
    }

    static let refused: [(body: JSONValue, path: String)] = [
        (["flag": "a", "definition": 1], "/definition"),
        (["flag": 3, "value": 1], "/flag"),
        (["flag": "a", "value": 1, "impact": "yes"], "/impact"),
        (["flag": "a", "value": 1, "seed": -1], "/seed"),
        (["flag": "a", "value": 1, "base": 1.5], "/base"),
        (["document": ["flags": [:]], "flag": "a"], "/flag"),
    ]

    @Test(arguments: refused)
    func refusesAtThePathOfTheMember(body: JSONValue, path: String) {
        do {
            _ = try ChangePreview(body: body)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.status.code == 422)
            #expect(error.details.map(\.path) == [path], "\(error)")
        }
    }

    @Test func anUnchangedDocumentHasNoLinesAndNoImpact() throws {
        let document = try FlagDocument.decode(#"{"flags": {"a": {"type": "boolean", "default": false}}}"#)
        let preview = try ChangePreview(body: ["document": document.jsonValue])
        let answer = preview.answer(from: document, to: try preview.proposedDocument(base: document), samples: ImpactSampleCache())
        #expect(answer["changed"] == false)
        #expect(answer["lines"] == .array([]))
        #expect(answer["impact"] == .null)
        #expect(answer["contentHash"] == .string(document.contentHash))
    }
}
