import FlagKit
import Foundation
import OutcomeAnalysis
import Testing
@testable import FlagCtlKit

/// Guard files: one rule or `{"guards": [...]}`, each checked by `OutcomeAnalysis` as the server checks it, and the
/// paid-day runbook's lock guard.
@Suite struct GuardFileTests {
    private func parse(_ text: String) throws(GuardFileError) -> [GuardRequest] { try GuardFile.parse(Array(text.utf8)) }

    private func failure(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func oneRuleTakesTheDefaultsForWhatItLeavesOut() throws {
        let requests = try parse(#"{"metric": "refunds", "action": "rollback"}"#)
        #expect(requests == [GuardRequest(rule: try GuardRule(metric: .refunds, action: .rollback))])
        let rule = try #require(requests.first?.ruleJSON.objectValue)
        #expect(rule["baseline"] == "previousWeek" && rule["minimumCount"] == .integer(5) && rule["windowHours"] == .integer(72)
                && rule["alpha"] == .number(0.01) && rule["minimumRelativeChange"] == .number(0.5) && rule["measure"] == "perHour",
                "every field is sent, so the stored rule reads the same after a default changes")
        #expect(requests.first?.body["product"] == nil && requests.first?.body["appStoreEnvironment"] == nil)
    }

    @Test func anArrayOfGuardsEachWithWhatItReads() throws {
        let requests = try parse("""
            {"guards": [
              {"metric": "refunds", "action": "notify", "product": "symi_plus_monthly"},
              {"metric": "started", "measure": "perActive", "baseline": "floor", "threshold": 0.02, "action": "pauseSchedules",
               "appStoreEnvironment": "Sandbox", "windowHours": 24}
            ]}
            """)
        #expect(requests.count == 2)
        #expect(requests[0].product == "symi_plus_monthly" && requests[0].appStoreEnvironment == nil && requests[0].rule.action == .notify)
        #expect(requests[1].rule == (try GuardRule(metric: .started, measure: .perActive, baseline: .floor(0.02), windowHours: 24,
                                                   action: .pauseSchedules)))
        #expect(requests[1].appStoreEnvironment == "Sandbox" && requests[1].product == nil)
        #expect(requests[1].body["appStoreEnvironment"] == "Sandbox")
        #expect(requests[1].body["rule"]?.objectValue?["threshold"] == .number(0.02))
    }

    @Test func aBadFieldIsNamedWithTheRulesOwnWordsAndItsPlace() {
        #expect(failure(#"{"metric": "refunds", "baseline": "ceiling", "action": "rollback"}"#) == "threshold: a ceiling needs a threshold")
        #expect(failure(#"{"guards": [{"metric": "refunds", "action": "notify"}, {"metric": "refunds", "action": "explode"}]}"#)
                == "/guards/1: action: must be notify, pauseSchedules or rollback")
        #expect(failure(#"{"metric": "started", "measure": "perStarted", "action": "notify"}"#)
                == "measure: started per started is always 1: use perHour or perActive")
        #expect(failure(#"{"metric": "renewals", "action": "notify"}"#)
                == "metric: must be one of refunds, autoRenewOff, billingProblems, started, introConversions")
        #expect(failure(#"{"metric": "refunds"}"#) == "action: is required")
        #expect(failure(#"{"metric": "refunds", "action": "notify", "windowHours": 200}"#)
                == "windowHours: a previousWeek baseline watches at most 168 hours (one week before publication)")
        #expect(failure(#"{"metric": "refunds", "action": "notify", "minimumCount": "5"}"#) == "minimumCount: has the wrong type")
        #expect(failure(#"{"metric": "refunds", "action": "notify", "minimumcount": 3}"#)?.hasPrefix("minimumcount: not a guard field (") == true,
                "a misspelt field is never silently the default")
        #expect(failure(#"{"metric": "refunds", "action": "notify", "appStoreEnvironment": "production"}"#)
                == "appStoreEnvironment: must be one of Production, Sandbox, Xcode, LocalTesting")
        #expect(failure(#"{"metric": "refunds", "action": "notify", "product": ""}"#) == "product: must be a product id of 1 to 200 bytes, or null for every product")
        #expect(failure(#"{"guards": []}"#) == "/guards: expected a non-empty array of guards")
        #expect(failure(#"{"guards": [1]}"#) == "/guards/0: expected an object, got integer")
        #expect(failure(#"{"guards": [{"metric": "refunds", "action": "notify"}], "metric": "refunds"}"#)
                == #"a file with "guards" has no other members (metric)"#)
        #expect(failure("[]") == "expected an object, got array")
        #expect(failure("{")?.hasPrefix("not JSON: ") == true)
    }

    @Test func anUnreadableOrInvalidFileIsTroubleNamingIt() throws {
        let directory = try TestSupport.directory(with: ["bad.json": #"{"metric": "refunds", "action": "rollback", "alpha": 0.7}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.json").path
        #expect(throws: CommandFailure.invalidGuard(source: path, GuardFileError(path: "", message: "alpha: must be in (0, 0.5)"))) {
            try GuardFile.load(path)
        }
        #expect(CommandFailure.invalidGuard(source: "g.json", GuardFileError(path: "/guards/0", message: "alpha: must be in (0, 0.5)")).description
                == "g.json is not a valid guard file: /guards/0: alpha: must be in (0, 0.5); nothing was sent")
        #expect(throws: CommandFailure.self) { try GuardFile.load(directory.appendingPathComponent("missing.json").path) }
    }

    /// The runbook's lock step (docs/monetization.md, "The lock's guard"): refunds and auto-renew off per hour against
    /// the previous week, rolled back, on the production App Store's notifications.
    @Test func thePaidDayLockGuardIsValid() throws {
        let requests = try GuardFile.parse(try TestSupport.bytes("flags/paid-day/4-lock.guard.json"))
        #expect(requests.map(\.rule.metric) == [.refunds, .autoRenewOff])
        for request in requests {
            #expect(request.rule == (try GuardRule(metric: request.rule.metric, action: .rollback)), "the defaults, written out")
            #expect(request.rule.tripsOnRise && request.appStoreEnvironment == "Production" && request.product == nil)
        }
    }
}
