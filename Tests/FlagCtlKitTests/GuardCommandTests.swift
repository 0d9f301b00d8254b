import FlagKit
import Foundation
import OutcomeAnalysis
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl guard list|show|add|remove|override`: the command lines, the rendering, and a real `flagserver`.
@Suite struct GuardCommandTests {
    private func parsed<T: Command>(_ type: T.Type, _ arguments: [String]) -> T? {
        if case .run(let command, _) = FlagCtl.parse(["guard"] + arguments) { return command as? T }
        return nil
    }

    private func usageError(_ arguments: [String]) -> String? {
        if case .usageError(let error) = FlagCtl.parse(["guard"] + arguments) { return error.message }
        return nil
    }

    @Test func addTakesARuleFromItsOptionsCheckedAsAFileWouldBe() throws {
        let add = try #require(parsed(GuardCommand.Add.self, ["add", "production", "--change", "12", "--metric", "refunds", "--action", "rollback",
                                                              "--window-hours", "48", "--product", "symi_plus_monthly",
                                                              "--appstore-environment", "Sandbox"]))
        #expect(add.environment == "production" && add.target == .change(12) && add.file == nil)
        #expect(add.requests == [GuardRequest(rule: try GuardRule(metric: .refunds, windowHours: 48, action: .rollback),
                                              product: "symi_plus_monthly", appStoreEnvironment: "Sandbox")])
        let ceiling = try #require(parsed(GuardCommand.Add.self, ["add", "staging", "--version", "43", "--metric", "billingProblems",
                                                                  "--action", "notify", "--baseline", "ceiling", "--threshold", "2.5",
                                                                  "--measure", "perActive", "--minimum-count", "3", "--alpha", "0.05",
                                                                  "--minimum-relative-change", "1"]))
        #expect(ceiling.target == .version(43))
        #expect(ceiling.requests.first?.rule == (try GuardRule(metric: .billingProblems, measure: .perActive, baseline: .ceiling(2.5),
                                                               minimumCount: 3, action: .notify, alpha: 0.05, minimumRelativeChange: 1)))
        let file = try #require(parsed(GuardCommand.Add.self, ["add", "production", "--version", "3", "--file", "g.json"]))
        #expect(file.file == "g.json" && file.requests.isEmpty)

        #expect(usageError(["add", "production", "--metric", "refunds", "--action", "notify"])
                == "missing --change ID or --version N: what the guard watches")
        #expect(usageError(["add", "production", "--change", "1", "--version", "2", "--metric", "refunds", "--action", "notify"])
                == "give either --change ID or --version N, not both")
        #expect(usageError(["add", "production", "--change", "1"]) == "missing --file RULE.json or --metric M --action A: the guard's rule")
        #expect(usageError(["add", "production", "--change", "1", "--file", "g.json", "--window-hours", "24"])
                == "give either --file or the rule's options (--window-hours), not both")
        #expect(usageError(["add", "production", "--change", "1", "--metric", "refunds"]) == "action: is required")
        #expect(usageError(["add", "production", "--change", "1", "--metric", "refunds", "--action", "notify", "--baseline", "floor"])
                == "threshold: a floor needs a threshold")
        #expect(usageError(["add", "production", "--change", "1", "--metric", "refunds", "--action", "notify", "--alpha", "0.5"])
                == "alpha: must be in (0, 0.5)")
        #expect(usageError(["add", "production", "--change", "1", "--metric", "refunds", "--action", "notify", "--appstore-environment", "prod"])
                == "appStoreEnvironment: must be one of Production, Sandbox, Xcode, LocalTesting")
        #expect(usageError(["add", "production", "--change", "x", "--metric", "refunds", "--action", "notify"])
                == "--change 'x' is not a change id (a positive whole number)")
        #expect(usageError(["add", "production", "--version", "1", "--metric", "refunds", "--action", "notify", "--minimum-count", "2.5"])
                == "--minimum-count '2.5' is not a whole number")
        #expect(usageError(["add", "production", "--version", "1", "--metric", "refunds", "--action", "notify", "--threshold", "lots"])
                == "--threshold 'lots' is not a number")
    }

    @Test func theOtherCommandLines() throws {
        let list = try #require(parsed(GuardCommand.List.self, ["list", "production", "--status", "watching, tripped", "--json"]))
        #expect(list.environment == "production" && list.statuses == ["watching", "tripped"] && list.json)
        #expect(parsed(GuardCommand.List.self, ["list", "production"])?.statuses == nil)
        #expect(usageError(["list", "production", "--status", "asleep"])
                == "--status 'asleep' is not one of waiting, watching, tripped, overridden, closed, cancelled, removed")
        #expect(usageError(["list", "Production"]) == "'Production' is not an environment name (lowercase letters, digits and '-')")
        #expect(parsed(GuardCommand.Show.self, ["show", "7", "--json"])?.json == true)
        #expect(usageError(["show", "0"]) == "'0' is not a guard id (a positive whole number)")
        #expect(parsed(GuardCommand.Remove.self, ["remove", "7"])?.id == 7)
        let override = try #require(parsed(GuardCommand.Override.self, ["override", "7", "-m", "the spike was a store outage"]))
        #expect(override.id == 7 && override.message == "the spike was a store outage")
        #expect(usageError(["override", "7"]) == "missing -m/--message: say why, it is recorded with the change")
        #expect(usageError(["override", "7", "-m", " "]) == "the message must not be blank")
        #expect(usageError([])?.hasPrefix("missing guard command") == true)
    }

    @Test func theRenderingSaysWhatARuleDoesAndWhatTheGuardDid() throws {
        let rule = GuardRequest(rule: try GuardRule(metric: .refunds, action: .rollback)).ruleJSON
        #expect(GuardRendering.rule(rule) == "refunds per hour against the previous week (+50 %, at least 5, 72 h, alpha 0.01): rollback")
        let fall = GuardRequest(rule: try GuardRule(metric: .started, action: .notify, minimumRelativeChange: 1)).ruleJSON
        #expect(GuardRendering.rule(fall) == "started per hour against the previous week (-100 %, at least 5, 72 h, alpha 0.01): notify")
        let ceiling = GuardRequest(rule: try GuardRule(metric: .refunds, measure: .perStarted, baseline: .ceiling(0.08), action: .notify)).ruleJSON
        #expect(GuardRendering.rule(ceiling) == "refunds per started subscription above a ceiling of 0.08 (at least 5, 72 h, alpha 0.01): notify")
        let tripped: JSONValue = [
            "id": 7, "environment": "production", "status": "tripped", "change": 12, "version": 43, "previousVersion": 42,
            "product": .null, "appStoreEnvironment": "Production", "rule": rule, "createdBy": "alice", "createdAt": "2027-03-01T08:00:00.000Z",
            "publishedAt": "2027-03-01T09:00:00.000Z", "windowEndsAt": "2027-03-04T09:00:00.000Z",
            "lastDecision": ["verdict": "tripped", "message": "guard on refunds tripped: 6 per hour", "at": "2027-03-01T15:00:30.000Z"],
            "trippedAt": "2027-03-01T15:00:30.000Z",
            "action": ["kind": "rollback", "outcome": "done", "version": 44, "changes": [], "reason": .null],
            "overriddenBy": .null, "overriddenAt": .null, "overrideMessage": .null,
            "decisions": [["verdict": "tripped", "message": "guard on refunds tripped: 6 per hour", "at": "2027-03-01T15:00:30.000Z"]],
        ]
        #expect(GuardRendering.row(tripped) == ["7", "tripped", "change 12 -> v43", GuardRendering.rule(rule), "2027-03-04T09:00:00.000Z",
                                                "guard on refunds tripped: 6 per hour"])
        let details = GuardRendering.details(tripped)
        #expect(details.contains("  on:            change 12 -> v43 (before it: v42)\n"))
        #expect(details.contains("  reads:         every product, Production\n"))
        #expect(details.contains("  action:        rollback done: version 44\n"))
        #expect(details.contains("override (another writer, not its author): flagctl guard override 7 -m MESSAGE\n"))
        #expect(details.contains("2027-03-01T15:00:30.000Z  tripped  guard on refunds tripped: 6 per hour"))
        #expect(GuardRendering.action(["kind": "pauseSchedules", "outcome": "done", "version": .null, "changes": [15, 16], "reason": .null])
                == "pauseSchedules done: changes 15, 16")
        #expect(GuardRendering.target(["change": 12, "version": .null]) == "change 12")
        #expect(GuardRendering.target(["change": .null, "version": 43]) == "version 43")
    }
}
