import Foundation
import Testing
@testable import ClientHTTP

/// The client modules' one lock: every change made under it by concurrent threads is kept.
@Suite struct LockedTests {
    @Test func concurrentIncrementsAreNotLost() {
        let counter = Locked(0)
        let threads = 8
        let increments = 20_000
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            Thread {
                // A read, then a write of what was read: without mutual exclusion two threads would overwrite each other.
                for _ in 0..<increments { counter.withLock { value in let read = value; value = read &+ 1 } }
                finished.signal()
            }.start()
        }
        for _ in 0..<threads { finished.wait() }
        #expect(counter.withLock { $0 } == threads * increments)
    }

    @Test func returnsWhatTheBodyReturnsAndRethrows() {
        let table = Locked([String: Int]())
        #expect(table.withLock { $0["a"] = 1; return $0.count } == 1)
        struct Refused: Error {}
        #expect(throws: Refused.self) { try table.withLock { _ in throw Refused() } }
        #expect(table.withLock { $0 } == ["a": 1])
    }
}
