import Dispatch

/// A command-line tool's way to wait for an async exchange (flagctl's calls, `flagserver appstore backfill`'s pages) on
/// the calling thread.
package enum BlockingExchange {
    /// Runs `operation` to completion and waits for it on the calling thread. The task runs on `ExchangeExecutor`,
    /// never on the concurrency pool: a caller that is itself a pool thread (a test, an async caller of a command)
    /// would otherwise block a thread its own task may need, and with every pool thread waiting so (two on a 2-core
    /// machine) nothing would ever run again.
    package static func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let box = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let body: @Sendable () async -> Void = {
            let value = await operation()
            box.withLock { $0 = value }
            done.signal()
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            Task(executorPreference: ExchangeExecutor.shared) { await body() }
        } else {
            // Task executors (SE-0417) came with macOS 15; before, the task runs on the pool, which is safe for the
            // tools themselves: their main thread is not a pool thread.
            Task { await body() }
        }
        done.wait()
        // The task stored before signalling; the loop only satisfies the type checker without a force unwrap.
        while true {
            if let value = box.withLock({ $0 }) { return value }
            done.wait()
        }
    }
}

/// Where `BlockingExchange.run` runs its tasks: a serial dispatch queue of its own (SE-0417 task executor preference),
/// outside the concurrency pool. Its jobs only start a transfer and take its result (the transport's own threads do
/// the waiting), so one queue serves every caller. (macOS 15 and later, like `TaskExecutor`; the package deploys to
/// macOS 13, where `run` uses the pool.)
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class ExchangeExecutor: TaskExecutor {
    /// The one executor.
    static let shared = ExchangeExecutor()

    private let queue = DispatchQueue(label: "client-http.blocking-exchange")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
