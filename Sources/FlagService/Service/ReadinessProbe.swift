import FlagStore
import Foundation
import ServerLock

/// `/readyz`'s question to the database, answered within `patience` whatever the database does.
///
/// The ping (`FlagStore.ping()`) runs on a thread of its own, one at a time. A check waits for the answer of the ping
/// running when it came, or of one it starts, for at most `patience`; a ping still running then is the answer
/// "the database does not answer". So a database that is gone or hangs (a connect that waits `connect_timeout` per
/// host, the read connection's lock held by another read across such a connect, a query to a server that stopped
/// answering) never holds `/readyz` longer than `patience`, and probes do not pile up threads: while one ping hangs,
/// every later check waits for that one.
final class ReadinessProbe: Sendable {
    /// What a check found.
    enum Answer: Sendable {
        /// The ping succeeded.
        case answered
        /// The ping failed with this error.
        case failed(any Error)
        /// No answer within `patience` (the ping still runs).
        case noAnswer(Duration)
    }

    private struct State: Sendable {
        var running = false
        /// Pings started and finished so far; a check waits until `finished` reaches the ping it counts on.
        var started = 0
        var finished = 0
        var last: Answer = .answered
    }

    private let state = PThreadCondition(State())
    private let ping: @Sendable () throws -> Void
    /// How long a check waits for the ping.
    let patience: Duration

    /// A probe running `ping`, waited for at most `patience`.
    init(patience: Duration = .seconds(1), ping: @escaping @Sendable () throws -> Void) {
        self.patience = patience
        self.ping = ping
    }

    /// The answer of the ping running now or of a new one, or `.noAnswer` after `patience`.
    func check() -> Answer {
        let (awaited, start) = state.withLock { state -> (Int, Bool) in
            if state.running { return (state.started, false) }
            state.running = true
            state.started += 1
            return (state.started, true)
        }
        if start {
            let thread = Thread { [self] in
                let answer: Answer
                do {
                    try ping()
                    answer = .answered
                } catch {
                    answer = .failed(error)
                }
                state.withLock { state in
                    state.running = false
                    state.finished += 1
                    state.last = answer
                }
                state.broadcast()
            }
            thread.name = "flagserver-readiness"
            thread.start()
        }
        let deadline = MonotonicClock.nanoseconds() + MonotonicClock.nanoseconds(patience)
        return state.wait(until: { $0.finished >= awaited }, deadline: deadline) { state, answered in
            answered ? state.last : .noAnswer(patience)
        }
    }
}
