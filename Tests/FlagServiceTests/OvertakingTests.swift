import FlagServiceTestSupport
import FlagStore
import Testing
@testable import FlagService

/// The one decision about a write another node's commit overtook (`Overtaking`), as a table; the writer's suites
/// (`WriteQueueBatchTests`, `FlagServerClusterTests`) check what the answers come to.
@Suite struct OvertakingTests {
    static func job(_ precondition: WriteJob.Precondition) -> WriteJob {
        WriteJob(environment: "production", kind: .flag(key: "k", edit: .value(true)), precondition: precondition,
                 author: "t", message: "m") { _ in }
    }

    static let bare = job(.none), ifMatch = job(.ifMatch(["\"1\""]))

    /// The try after `retries` hand-backs.
    static func exhausted(_ topology: StoreTopology) -> Overtaking {
        (0..<Overtaking.retries).reduce(Overtaking(topology)) { overtaking, _ in overtaking.next }
    }

    @Test func aSharedStoreHandsBackSevenTimesThenAnswers() {
        var overtaking = Overtaking(.shared)
        for _ in 0..<Overtaking.retries {
            #expect(overtaking.publishRefused(Self.bare) == .handBack && overtaking.publishRefused(Self.ifMatch) == .handBack)
            #expect(overtaking.rollbackRefused(Self.bare) == .handBack)
            overtaking = overtaking.next
        }
        #expect(overtaking == Self.exhausted(.shared))
        #expect(overtaking.publishRefused(Self.bare) == .busy && overtaking.publishRefused(Self.ifMatch) == .refuse)
        #expect(overtaking.rollbackRefused(Self.bare) == .busy && overtaking.rollbackRefused(Self.ifMatch) == .refuse)
        #expect(Overtaking(.shared).rollbackRefused(Self.ifMatch) == .refuse, "a rollback with If-Match is answered at once")
    }

    /// One process has no other node to catch up with: nothing is handed back. A bare publish refused there is
    /// `503 busy` as on a shared store; a bare rollback gets the store's refusal.
    @Test func aSingleProcessNeverHandsBack() {
        let overtaking = Overtaking(.singleProcess)
        #expect(!overtaking.rebuildsUnderLock && Overtaking(.shared).rebuildsUnderLock)
        #expect(overtaking.publishRefused(Self.bare) == .busy && overtaking.publishRefused(Self.ifMatch) == .refuse)
        #expect(overtaking.rollbackRefused(Self.bare) == .refuse && overtaking.rollbackRefused(Self.ifMatch) == .refuse)
    }

    @Test func onlyAWriteWithoutAPreconditionIsRebuiltUnderTheLock() {
        #expect(Overtaking.mayRebuild(Self.bare))
        #expect(!Overtaking.mayRebuild(Self.ifMatch) && !Overtaking.mayRebuild(Self.job(.ifNoneMatchAny)))
    }
}
