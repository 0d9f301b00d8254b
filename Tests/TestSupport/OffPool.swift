import Foundation

/// Runs blocking `body` on a new thread and awaits its result without holding a cooperative thread: a test that waits
/// on a process or a socket must not take one of the pool's few threads (one per core) that every other test needs.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Calls `condition` every `interval` until it holds or `timeout` passes; true when it held. For what a test waits for
/// (a node installing a version, a lease moving), instead of a fixed sleep that is too short on a loaded machine and
/// too long elsewhere.
package func eventually(within timeout: Duration, every interval: Duration = .milliseconds(20),
                        _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// `eventually` for a test that blocks its thread (no `await`).
package func poll(within timeout: Duration, every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
    return try condition()
}
