import Foundation
import Testing
@testable import ServerLock

@Suite struct PThreadConditionTests {
    @Test func aWaiterSleepsUntilTheValueIsReadyAndThenRunsUnderTheLock() {
        let state = PThreadCondition((ready: false, seen: 0))
        let woke = PThreadMutex(false)
        let done = onThread {
            state.wait(until: { $0.ready }) { value in value.seen += 1 }
            woke.withLock { $0 = true }
        }
        Thread.sleep(forTimeInterval: 0.1)
        // A signal without the value being ready does not let it through.
        state.signal()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!woke.withLock { $0 })
        state.withLock { $0.ready = true }
        state.signal()
        done.wait()
        #expect(state.withLock { $0.seen } == 1)
    }

    @Test func everyItemHandedOverIsTakenOnceInOrder() {
        // The writer thread's pattern: producers append and signal, one consumer waits for work or the end.
        let queue = PThreadCondition((items: [Int](), closed: false))
        let taken = PThreadMutex([Int]())
        let consumer = onThread {
            while true {
                let batch: [Int]? = queue.wait(until: { !$0.items.isEmpty || $0.closed }) { value in
                    if value.items.isEmpty { return nil }
                    defer { value.items.removeAll() }
                    return value.items
                }
                guard let batch else { return }
                taken.withLock { $0.append(contentsOf: batch) }
            }
        }
        for i in 0..<10_000 {
            queue.withLock { $0.items.append(i) }
            queue.signal()
        }
        queue.withLock { $0.closed = true }
        queue.broadcast()
        consumer.wait()
        #expect(taken.withLock { $0 } == Array(0..<10_000))
    }

    @Test func aThrowingBodyAfterTheWaitReleasesTheLock() {
        struct Boom: Error {}
        let state = PThreadCondition(1)
        #expect(throws: Boom.self) {
            try state.wait(until: { $0 == 1 }) { (value: inout Int) throws(Boom) in
                value = 2
                throw Boom()
            }
        }
        #expect(state.withLock { $0 } == 2)
    }

    @Test func aTimedWaitEndsAtItsTimeoutWhenNothingIsReady() {
        let state = PThreadCondition(false)
        let start = ContinuousClock.now
        let timedOut = state.wait(until: { $0 }, timeout: .milliseconds(150)) { _, timedOut in timedOut }
        let waited = ContinuousClock.now - start
        #expect(timedOut)
        #expect(waited >= .milliseconds(150), "a timed wait never ends early: \(waited)")
        #expect(waited < .seconds(5))
    }

    @Test func aTimedWaitEndsAsSoonAsTheValueIsReady() {
        let state = PThreadCondition(false)
        let start = ContinuousClock.now
        let waker = onThread {
            Thread.sleep(forTimeInterval: 0.05)
            state.withLock { $0 = true }
            state.signal()
        }
        let timedOut = state.wait(until: { $0 }, timeout: .seconds(30)) { value, timedOut in
            value = false
            return timedOut
        }
        waker.wait()
        #expect(!timedOut)
        #expect(ContinuousClock.now - start < .seconds(20), "woken by the signal, not by the timeout")
        // Ready at once: no sleep at all, and a zero or negative timeout only checks.
        state.withLock { $0 = true }
        #expect(!state.wait(until: { $0 }, timeout: .zero) { _, timedOut in timedOut })
        #expect(PThreadCondition(false).wait(until: { $0 }, timeout: .seconds(-1)) { _, timedOut in timedOut })
    }
}
