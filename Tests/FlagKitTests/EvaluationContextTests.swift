import Testing
@testable import FlagKit

/// The context's custom attributes as instants: parsed once per context, and kept in step with `custom` however the
/// context was made or changed (a stale parse would put an install in the wrong date cohort).
@Suite struct EvaluationContextTests {
    static let document = """
        {"flags": {"early": {"type": "boolean", "default": false, "rules": [{"cohort": "trialBefore2027", "value": true}]}},
         "cohorts": {"trialBefore2027": {"trialStartedAt": {"before": "2027-01-01T00:00:00Z"}}}}
        """

    func early(_ context: EvaluationContext) throws -> Bool {
        try FlagDocument.decode(Self.document).evaluate("early", context: context).value == true
    }

    @Test func customDateTimesAreParsedWhenTheContextIsMade() throws {
        let context = EvaluationContext(custom: ["trialStartedAt": "2026-05-01T10:00:00+02:00", "plan": "pro", "seats": 3,
                                                 "day": "2026-05-01", "note": "2026-05-01T10:00:00 local time"])
        #expect(context.customInstants == [.init(name: "trialStartedAt", milliseconds: 1_777_622_400_000)])
        #expect(try early(context))
        let fromAttributes = EvaluationContext(attributes: ["targetingKey": "a", "trialStartedAt": "2026-05-01T08:00:00Z"])
        #expect(fromAttributes.customInstants == [.init(name: "trialStartedAt", milliseconds: 1_777_622_400_000)])
        #expect(try early(fromAttributes))
    }

    @Test func changingCustomParsesAgain() throws {
        var context = EvaluationContext(custom: ["trialStartedAt": "2026-05-01T08:00:00Z"])
        #expect(try early(context))
        context.custom["trialStartedAt"] = "2027-05-01T08:00:00Z"
        #expect(context.customInstant("trialStartedAt") == 1_809_158_400_000)
        #expect(try !early(context), "the new date, not the one parsed at creation")
        context.custom = ["trialStartedAt": "unknown"]
        #expect(context.customInstants.isEmpty)
        #expect(try !early(context))
        context.custom["trialStartedAt"] = "2026-12-31T23:59:59.999Z"
        #expect(try early(context))
    }

    @Test func contextsThatDifferOnlyInADateAreNotEqual() {
        #expect(EvaluationContext(custom: ["d": "2026-05-01T08:00:00Z"]) != EvaluationContext(custom: ["d": "2026-05-01T08:00:01Z"]))
        #expect(EvaluationContext(custom: ["d": "2026-05-01T08:00:00Z"]) == EvaluationContext(attributes: ["d": "2026-05-01T08:00:00Z"]))
    }
}
