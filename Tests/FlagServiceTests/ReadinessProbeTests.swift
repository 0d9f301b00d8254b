import FlagServiceTestSupport
import FlagStore
import Foundation
import Synchronization
import Testing
@testable import FlagService

/// `/readyz`'s ping, answered within its patience whatever the ping does.
@Suite struct ReadinessProbeTests {
    /// A ping that blocks until released, counting how often it ran.
    final class Gate: Sendable {
        let released = DispatchSemaphore(value: 0)
        let runs = Atomic<Int>(0)
        let failing = Atomic<Bool>(false)
        func ping() throws {
            runs.add(1, ordering: .relaxed)
            released.wait()
            if failing.load(ordering: .relaxed) { throw FlagStoreError.invalidArgument(name: "ping", reason: "failing") }
        }
    }

    @Test func aPingThatHangsIsNoAnswerWithinThePatienceAndChecksDoNotPileUp() {
        let gate = Gate()
        let probe = ReadinessProbe(patience: .milliseconds(200)) { try gate.ping() }
        let began = ContinuousClock.now
        guard case .noAnswer(let patience) = probe.check() else {
            Issue.record("a hanging ping must be no answer")
            return
        }
        #expect(patience == .milliseconds(200))
        #expect(ContinuousClock.now - began < .seconds(2))
        // While it hangs, later checks wait for the same ping: no second thread, no second ping.
        guard case .noAnswer = probe.check() else {
            Issue.record("still hanging")
            return
        }
        #expect(gate.runs.load(ordering: .relaxed) == 1)
        // Released (and a second ping let through too, should the check start one): an answer.
        gate.released.signal()
        gate.released.signal()
        guard case .answered = probe.check() else {
            Issue.record("a ping that returns is an answer")
            return
        }
    }

    @Test func aFailingPingIsItsError() {
        let gate = Gate()
        gate.failing.store(true, ordering: .relaxed)
        gate.released.signal()
        let probe = ReadinessProbe(patience: .seconds(10)) { try gate.ping() }
        guard case .failed(FlagStoreError.invalidArgument(name: "ping", _)) = probe.check() else {
            Issue.record("expected the ping's error")
            return
        }
    }
}
