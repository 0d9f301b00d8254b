import AppStoreNotifications
import FlagKit
import OutcomeAnalysis
import Testing
@testable import FlagService

/// The body of `POST .../guards`: exactly one of change and version, the rule validated by `GuardRule`, every refusal
/// 422 `invalid_guard` naming its field.
@Suite struct GuardRequestTests {
    static func parse(_ text: String) throws -> GuardRequest {
        try GuardRequest(body: try JSONParser.parse(Array(text.utf8)).value)
    }

    static func field(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as ServiceError {
            #expect(error.code == "invalid_guard" && error.status == .unprocessableContent)
            return error.extra["field"]?.stringValue
        } catch {
            return "\(error)"
        }
    }

    @Test func aVersionOrAChangeWithARuleAndTheDefaults() throws {
        let request = try Self.parse(#"{"version": 43, "rule": {"metric": "refunds", "action": "rollback"}}"#)
        #expect(request.version == 43 && request.change == nil && request.product == nil)
        #expect(request.appStoreEnvironment == .production)
        #expect(request.rule == (try GuardRule(metric: .refunds, action: .rollback)))
        let onChange = try Self.parse(#"{"change": 12, "rule": {"metric": "started", "action": "notify", "baseline": "floor", "threshold": 2},"#
                                      + #" "product": "symi_plus_monthly", "appStoreEnvironment": "Sandbox"}"#)
        #expect(onChange.change == 12 && onChange.version == nil && onChange.product == "symi_plus_monthly")
        #expect(onChange.appStoreEnvironment == .sandbox && onChange.rule.baseline == .floor(2))
    }

    @Test func everyRefusalNamesItsField() {
        let rule = #""rule": {"metric": "refunds", "action": "notify"}"#
        #expect(Self.field("[]") == "body")
        #expect(Self.field("{\(rule)}") == "change")
        #expect(Self.field(#"{"change": 1, "version": 2, "# + rule + "}") == "change")
        #expect(Self.field(#"{"change": 0, "# + rule + "}") == "change")
        #expect(Self.field(#"{"version": "2", "# + rule + "}") == "version")
        #expect(Self.field(#"{"version": 2}"#) == "rule")
        #expect(Self.field(#"{"version": 2, "rule": 5}"#) == "rule")
        #expect(Self.field(#"{"version": 2, "rule": {"metric": "refunds", "action": "notify", "windowHours": 200}}"#) == "windowHours")
        #expect(Self.field(#"{"version": 2, "rule": {"metric": "started", "measure": "perStarted", "action": "notify"}}"#) == "measure")
        #expect(Self.field(#"{"version": 2, "product": "", "# + rule + "}") == "product")
        #expect(Self.field(#"{"version": 2, "appStoreEnvironment": "prod", "# + rule + "}") == "appStoreEnvironment")
        #expect(Self.field(#"{"version": 2, "guard": 1, "# + rule + "}") == "guard")
    }

    @Test func theStoredRuleHasEveryField() throws {
        let rule = try Self.parse(#"{"version": 1, "rule": {"metric": "refunds", "action": "notify"}}"#).rule
        #expect(rule.jsonValue.objectValue?.keys.sorted() == ["action", "alpha", "baseline", "measure", "metric", "minimumCount",
                                                              "minimumRelativeChange", "windowHours"])
        #expect(try GuardRule.decoding(rule.jsonValue) == rule)
    }
}
