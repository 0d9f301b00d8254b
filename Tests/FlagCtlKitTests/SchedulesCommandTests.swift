import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl schedules`: the next change first; the table's columns.
@Suite struct SchedulesCommandTests {
    @Test func theCommandLine() throws {
        let parsed = try TestSupport.parse(SchedulesCommand.self, ["staging"]).get()
        #expect(parsed.options == ChangeListingOptions(environment: "staging", all: false, json: false))
    }

    @Test func theTableListsTheNextChangeFirst() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        // Relative times (a fixed date would pass into the past one day); the later one is scheduled first.
        let later = TestSupport.time(in: 7_200)
        let sooner = TestSupport.time(in: 3_600)
        #expect(try server.flagctl(["schedule", "production", "showIntroFreeSubscriptionBanner", "false", "--at", later,
                                    "-m", "the free intro period is over"]).status == 0)
        #expect(try server.flagctl(["schedule", "production", "subscriptionPriceIncreaseMessagingEnabled", "true",
                                    "--at", sooner, "-m", "notice first"]).status == 0)
        let listed = try server.flagctl(["schedules", "production"])
        #expect(listed.stdout == """
            ID  STATUS     APPLY AT                  AUTHOR  CHANGES                                    MESSAGE
            2   scheduled  \(sooner)  ci      subscriptionPriceIncreaseMessagingEnabled  notice first
            1   scheduled  \(later)  ci      showIntroFreeSubscriptionBanner            the free intro period is over

            """)
    }
}
