import Testing
@testable import FlagKit

/// `docs/evaluation-vectors.json`, what other platforms implement `before`, `after` and `firstInstallDate` against:
/// FlagKit must give every case's expected value, variant and reason, and refuse every invalid condition at its path.
@Suite struct EvaluationVectorsTests {
    /// One case of the file.
    struct Case {
        let note: String
        let context: [String: JSONValue]
        let flag: String
        let value: JSONValue
        let variant: String
        let reason: String
        let invalidContext: Bool
    }

    /// The file's document, cases and invalid conditions (shared with the OFREP and flagctl tests' own readers).
    static func load() throws -> (document: JSONValue, cases: [Case], invalid: [(condition: JSONValue, path: String)]) {
        let root = try JSONParser.parse(TestSupport.bytes("docs/evaluation-vectors.json")).value
        let document = try #require(root.objectValue?["document"])
        let cases = try (root.objectValue?["cases"]?.arrayValue ?? []).map { entry throws -> Case in
            let members = try #require(entry.objectValue)
            return Case(note: members["note"]?.stringValue ?? "", context: try #require(members["context"]?.objectValue),
                        flag: try #require(members["flag"]?.stringValue), value: try #require(members["value"]),
                        variant: try #require(members["variant"]?.stringValue), reason: try #require(members["reason"]?.stringValue),
                        invalidContext: members["invalidContext"] == true)
        }
        let invalid = try (root.objectValue?["invalidConditions"]?.arrayValue ?? []).map { entry throws in
            (condition: try #require(entry.objectValue?["condition"]), path: try #require(entry.objectValue?["path"]?.stringValue))
        }
        return (document, cases, invalid)
    }

    @Test func everyCaseEvaluatesAsTheFileSays() throws {
        let (json, cases, _) = try Self.load()
        let document = try FlagDocument.decode(json.canonicalBytes)
        #expect(cases.count >= 30)
        #expect(cases.contains { $0.invalidContext } && cases.contains { $0.context["firstInstallDate"] == nil })
        for vector in cases {
            let result = document.evaluate(vector.flag, context: EvaluationContext(attributes: vector.context))
            #expect(result.value == vector.value, "\(vector.note)")
            #expect(result.variant == vector.variant, "\(vector.note)")
            #expect(result.reason.rawValue == vector.reason, "\(vector.note)")
        }
    }

    @Test func invalidContextsAreExactlyTheBadInstallDates() throws {
        for vector in try Self.load().cases {
            let problem = vector.context["firstInstallDate"].flatMap { BuiltInAttribute.firstInstallDate.problem(with: $0) }
            #expect((problem != nil) == vector.invalidContext, "\(vector.note)")
        }
    }

    @Test func everyInvalidConditionIsRefusedAtItsPath() throws {
        let invalid = try Self.load().invalid
        #expect(invalid.count >= 8)
        for (condition, path) in invalid {
            let document: JSONValue = ["flags": [:], "cohorts": ["c": condition]]
            let issues = FlagDocument.problems(in: document.canonicalBytes)
            #expect(issues.map(\.path) == [path], "\(condition.canonicalString): \(issues)")
        }
    }
}
