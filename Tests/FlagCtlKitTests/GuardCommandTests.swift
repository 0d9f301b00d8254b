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
            "decisions": [
                ["action": "guard.acted", "at": "2027-03-01T15:00:31.000Z", "outcome": "ok",
                 "detail": ["kind": "rollback", "outcome": "done", "version": 44, "changes": [], "reason": .null]],
                ["action": "guard.tripped", "at": "2027-03-01T15:00:30.000Z", "outcome": "ok",
                 "detail": ["verdict": "tripped", "message": "guard on refunds tripped: 6 per hour", "at": "2027-03-01T15:00:30.000Z"]],
            ],
        ]
        #expect(GuardRendering.row(tripped) == ["7", "tripped", "change 12 -> v43", GuardRendering.rule(rule), "2027-03-04T09:00:00.000Z",
                                                "guard on refunds tripped: 6 per hour"])
        let details = GuardRendering.details(tripped)
        #expect(details.contains("  on:            change 12 -> v43 (before it: v42)\n"))
        #expect(details.contains("  reads:         every product, Production\n"))
        #expect(details.contains("  action:        rollback done: version 44\n"))
        #expect(details.contains("override (another writer, not its author): flagctl guard override 7 -m MESSAGE\n"))
        #expect(details.contains("AT                        DECISION  OUTCOME  WHAT\n"))
        #expect(details.contains("2027-03-01T15:00:31.000Z  acted     ok       rollback done: version 44\n"))
        #expect(details.contains("2027-03-01T15:00:30.000Z  tripped   ok       guard on refunds tripped: 6 per hour\n"))
        #expect(GuardRendering.action(["kind": "pauseSchedules", "outcome": "done", "version": .null, "changes": [15, 16], "reason": .null])
                == "pauseSchedules done: changes 15, 16")
        var protected = tripped.objectValue ?? [:]
        protected["action"] = ["kind": "rollback", "outcome": "failed", "version": .null, "changes": [17],
                               "reason": "the rollback touches protected flags: change request 17 waits for a second person"]
        let waiting = GuardRendering.details(.object(protected))
        #expect(waiting.contains("  action:        rollback failed: change request 17 (the rollback touches protected flags: "))
        #expect(waiting.contains("approve the rollback (any writer): flagctl approve 17 -m MESSAGE\n"))
        #expect(!details.contains("approve the rollback"))
        #expect(GuardRendering.target(["change": 12, "version": .null]) == "change 12")
        #expect(GuardRendering.target(["change": .null, "version": 43]) == "version 43")
    }

    /// The whole life of a guard on a real server: added to the version published and to a change request, listed,
    /// shown, its own author refused an override, removed, and refused once removed.
    @Test func aGuardIsAddedListedShownAndRemovedOnARealServer() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["bad.json": #"{"metric": "refunds", "action": "rollback", "windowHours": 0}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let added = try server.flagctl(["guard", "add", "production", "--version", "1", "--metric", "refunds", "--action", "notify"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added guard 1 to production version 1 (watching): "
                + "refunds per hour against the previous week (+50 %, at least 5, 72 h, alpha 0.01): notify\n")
        let request = try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "lock",
                                          "--guard", "flags/paid-day/4-lock.guard.json"])
        #expect(request.status == 3, "a change request, with its guards: \(request.stderr)")
        #expect(request.stdout.contains("added guard 2 to production change 1 (waiting): refunds per hour against the previous week"))
        #expect(request.stdout.contains("added guard 3 to production change 1 (waiting): autoRenewOff per hour against the previous week"))
        let bad = try server.flagctl(["guard", "add", "production", "--change", "1", "--file", directory.appendingPathComponent("bad.json").path])
        #expect(bad.status == 2 && bad.stderr.hasSuffix("bad.json is not a valid guard file: windowHours: must be between 1 and 720; nothing was sent\n"))

        let list = try server.flagctl(["guard", "list", "production"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = list.stdout.split(separator: "\n").map(String.init)
        try #require(rows.count == 4, "a header and three guards:\n\(list.stdout)")
        #expect(rows[0].hasPrefix("ID  STATUS    ON "), "\(list.stdout)")
        #expect(rows[1].hasPrefix("3   waiting   change 1 ") && rows[3].hasPrefix("1   watching  version 1 "), "newest first:\n\(list.stdout)")
        let watching = try server.flagctl(["guard", "list", "production", "--status", "watching", "--json"])
        let ids = try JSONParser.parse(watching.stdout).value.arrayValue?.compactMap { $0.objectValue?["id"]?.integerValue }
        #expect(ids == [1])
        #expect(try server.flagctl(["guard", "list", "staging"]).stdout == "staging: no guards\n")

        let show = try server.flagctl(["guard", "show", "2"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("guard 2 in production: waiting\n  on:            change 1\n"))
        let json = try JSONParser.parse(try server.flagctl(["guard", "show", "2", "--json"]).stdout).value
        #expect(json["rule"]?["metric"] == "refunds" && json["createdBy"] == "ci" && json["appStoreEnvironment"] == "Production")

        let own = try server.flagctl(["guard", "override", "1", "-m", "mine"])
        #expect(own.status == 2 && own.stderr.contains("403") && own.stderr.contains("self_override"), "\(own.stderr)")
        let other = try server.token(name: "bob", role: "writer")
        let notTripped = try server.flagctl(["guard", "override", "1", "-m", "not mine"], environment: server.environment(token: .value(other)))
        #expect(notTripped.status == 2 && notTripped.stderr.contains("409") && notTripped.stderr.contains("not_tripped"), "\(notTripped.stderr)")

        let removed = try server.flagctl(["guard", "remove", "1"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.hasPrefix("removed guard 1 of production version 1: refunds per hour"))
        let again = try server.flagctl(["guard", "remove", "1"])
        #expect(again.status == 2 && again.stderr.contains("409") && again.stderr.contains("not_removable"), "\(again.stderr)")
        #expect(try server.flagctl(["guard", "show", "99"]).status == 2)
    }
}
