import Testing
@testable import ServerLock

@Suite struct PThreadMutexTests {
    struct Boom: Error {}

    @Test func incrementsFromManyThreadsAreNeitherLostNorTorn() {
        let counter = PThreadMutex((count: 0, pairs: 0))
        let threads = 8
        let perThread = 20_000
        onThreads(threads) { _ in
            for _ in 0..<perThread {
                // Two fields updated together: a lock that let two threads in would make them differ.
                counter.withLock { value in
                    value.count += 1
                    value.pairs = value.count * 2
                }
            }
        }
        let final = counter.withLock { $0 }
        #expect(final.count == threads * perThread)
        #expect(final.pairs == final.count * 2)
    }

    @Test func aThrowingBodyReleasesTheLockAndKeepsItsWrites() {
        let lock = PThreadMutex([Int]())
        #expect(throws: Boom.self) {
            try lock.withLock { (value: inout [Int]) throws(Boom) in
                value.append(1)
                throw Boom()
            }
        }
        // Not deadlocked: the lock was released by the throw, and the write before it stands.
        #expect(lock.withLock { $0 } == [1])
    }
}
