import Testing
@testable import FlagService

/// The App Store options: off by default, and where the kept history starts.
@Suite struct FlagServiceAppStoreTests {
    @Test func offByDefaultWithAYearAndAMonthKept() {
        let options = FlagService.Options()
        #expect(options.appStore.verifier == nil)
        #expect(options.appStore.retentionDays == 400 && FlagService.AppStoreOptions.defaultRetentionDays == 400)
    }

    @Test func theRetentionStartsThatManyDaysBeforeNow() {
        let now: Int64 = 1_800_000_000_000
        #expect(FlagService.AppStoreOptions(retentionDays: 10).retentionStart(now: now) == now - 864_000_000)
        #expect(FlagService.AppStoreOptions(retentionDays: 0).retentionStart(now: now) == now)
        #expect(FlagService.AppStoreOptions(retentionDays: -5).retentionStart(now: now) == now, "never a start after now")
    }
}
