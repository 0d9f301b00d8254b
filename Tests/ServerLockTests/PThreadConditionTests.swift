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
}

@Suite struct PThreadConditionTimedWaitTests {
    @Test func aTimedWaitEndsAtItsDeadlineAndSaysTheValueIsNotReady() {
        let state = PThreadCondition(false)
        let start = monotonicNow()
        let outcome: (ready: Bool, value: Bool) = state.wait(until: { $0 }, deadline: start + 50_000_000) { value, ready in (ready, value) }
        let elapsed = monotonicNow() - start
        #expect(!outcome.ready)
        #expect(!outcome.value)
        #expect(elapsed >= 50_000_000, "it waited until the deadline")
        #expect(elapsed < 2_000_000_000, "and not much longer")
    }

    @Test func aTimedWaitEndsEarlyWhenTheValueBecomesReady() {
        let state = PThreadCondition(false)
        let start = monotonicNow()
        let setter = onThread {
            Thread.sleep(forTimeInterval: 0.05)
            state.withLock { $0 = true }
            state.signal()
        }
        let ready = state.wait(until: { $0 }, deadline: start + 30_000_000_000) { _, ready in ready }
        setter.wait()
        #expect(ready)
        #expect(monotonicNow() - start < 10_000_000_000, "woken by the signal, not the 30 s deadline")
    }

    @Test func aDeadlineInThePastRunsTheBodyAtOnce() {
        let state = PThreadCondition(1)
        let ready = state.wait(until: { $0 == 2 }, deadline: 0) { value, ready in
            value = 3
            return ready
        }
        #expect(!ready)
        #expect(state.withLock { $0 } == 3)
        #expect(state.wait(until: { $0 == 3 }, deadline: 0) { _, ready in ready }, "a value already ready needs no wait")
    }
}

/// `CLOCK_MONOTONIC` now, in nanoseconds: the clock of a timed wait's deadline.
private func monotonicNow() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
