import FlagServiceTestSupport
import Foundation
import Synchronization

/// The loop behind the test clients that load a cluster from a thread of their own (`DocumentReader`, `FlipWriter`):
/// `start` runs `step` one request at a time with `pause` between, until `step` returns false or `stop()`.
final class LoadThread: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Not started yet: the owner starts it once its own properties are set (`step` uses them).
    init() {}

    /// Starts the thread.
    func start(pause: Duration, step: @escaping @Sendable () -> Bool) {
        let seconds = Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                guard step() else { break }
                Thread.sleep(forTimeInterval: seconds)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops after the request in flight; returns when the thread has.
    func stop() {
        stopping.store(true, ordering: .releasing)
        finished.wait()
        finished.signal()
    }
}
