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
