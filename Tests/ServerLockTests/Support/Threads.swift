import Foundation

/// Runs `body` on `count` new threads at once and returns when all of them have finished.
/// Real threads, not the cooperative pool: a lock test needs threads that contend and block.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            body(index)
            done.signal()
        }
        thread.start()
    }
    for _ in 0..<count { done.wait() }
}

/// Starts `body` on a new thread and returns a semaphore signalled when it has finished.
func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done
}
