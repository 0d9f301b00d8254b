import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// What a transition and an application report.
@Suite struct ChangeTransitionTests {
    @Test(arguments: StoreEngine.allCases) func doneHappenedRefusedDidNotAndBothCarryTheRecord(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let record = try store.createChange(scheduledChange())
        #expect(ChangeTransition.done(record).happened && ChangeTransition.done(record).record == record)
        #expect(!ChangeTransition.refused(record).happened && ChangeTransition.refused(record).record == record)
        #expect(ChangeApplication.notApplicable(record).record == record)
    }
}
