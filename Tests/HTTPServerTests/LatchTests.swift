import Glibc
import Synchronization
import Testing
@testable import HTTPServer

@Suite struct LatchTests {
    @Test func waitersBlockUntilOpenAndThenPassAtOnce() throws {
        let latch = Latch()
        let passed = Atomic<Int>(0)
        var threads: [pthread_t] = []
        for _ in 0..<3 {
            threads.append(try System.startThread {
                latch.wait()
                passed.add(1, ordering: .relaxed)
            })
        }
        System.sleep(milliseconds: 100)
        // Nobody got through a closed gate.
        #expect(passed.load(ordering: .relaxed) == 0)
        #expect(!latch.opened)
        latch.open()
        for thread in threads { System.join(thread) }
        #expect(passed.load(ordering: .relaxed) == 3)
        // Open stays open: a late waiter does not block.
        latch.wait()
        #expect(latch.opened)
    }

    @Test func waitUntilStoppedReturnsWhenAnotherThreadShutsTheServerDown() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: try HTTPRouter.Builder().build())
        _ = try server.start()
        let stopper = try System.startThread {
            System.sleep(milliseconds: 50)
            server.shutdown(gracePeriod: .zero)
        }
        server.waitUntilStopped()
        System.join(stopper)
        #expect(server.port == nil)
        // A server never started counts as stopped once shut down, and does not block either.
        let idle = HTTPServer(configuration: HTTPServerConfiguration(port: 0), handler: try HTTPRouter.Builder().build())
        idle.shutdown()
        idle.waitUntilStopped()
    }
}
