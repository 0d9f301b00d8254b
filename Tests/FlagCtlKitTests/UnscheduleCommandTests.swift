import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl unschedule`: cancels what has not run; refuses what has.
@Suite struct UnscheduleCommandTests {
    @Test func theCommandLine() throws {
        let parsed = try TestSupport.parse(UnscheduleCommand.self, ["7", "-m", "wrong day"]).get()
        #expect(parsed.id == 7 && parsed.message == "wrong day")
        #expect(try TestSupport.parse(UnscheduleCommand.self, ["7"]).get().message == nil)
        #expect(TestSupport.usageError(UnscheduleCommand.self, []) != nil)
    }

    @Test func cancelsOnceAndSaysWhyNotAfter() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        #expect(try server.flagctl(["schedule", "staging", "showIntroFreeSubscriptionBanner", "false", "--at", TestSupport.time(in: 3_600),
                                    "-m", "m"]).status == 0)
        let cancelled = try server.flagctl(["unschedule", "1", "-m", "wrong day"])
        #expect(cancelled.status == 0)
        #expect(cancelled.stdout.hasPrefix("cancelled staging change 1 (showIntroFreeSubscriptionBanner, was due "))
        let twice = try server.flagctl(["unschedule", "1"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("409 not_cancellable: change 1 is cancelled; only pending or scheduled changes can be cancelled"))
        let missing = try server.flagctl(["unschedule", "99"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("404 change_not_found: there is no change 99"))
    }
}
