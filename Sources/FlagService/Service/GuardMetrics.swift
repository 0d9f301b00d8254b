import FlagStore
import OutcomeAnalysis
import ServerLock

/// The guards' figures for `/metrics`: every evaluation by verdict (`flagserver_guard_decisions_total`), and how many
/// guards are in each status (`flagserver_guards`, a gauge the jobs' node sets at each pass; 0 on a node that does not
/// run the jobs). Under one lock: a pass is once a minute, and the labels are fixed words.
final class GuardMetrics: Sendable {
    struct Counts {
        var decisions: [GuardVerdict: Int] = [:]
        var statuses: [GuardStatus: Int] = [:]
    }

    private let counts = PThreadMutex(Counts())

    /// One evaluation ended with `verdict`.
    func recordDecision(_ verdict: GuardVerdict) {
        counts.withLock { $0.decisions[verdict, default: 0] += 1 }
    }

    /// The guards counted by status at the last pass.
    func setStatuses(_ statuses: [GuardStatus: Int]) {
        counts.withLock { $0.statuses = statuses }
    }

    /// The exposition text (Prometheus text format 0.0.4); every verdict and status is written, also at 0.
    func exposition() -> String {
        let now = counts.withLock { $0 }
        var out = "# HELP flagserver_guard_decisions_total Guard evaluations by the jobs, by verdict (docs/guards.md).\n"
        out += "# TYPE flagserver_guard_decisions_total counter\n"
        for verdict in GuardVerdict.allCases {
            out += "flagserver_guard_decisions_total{verdict=\"\(verdict.rawValue)\"} \(now.decisions[verdict] ?? 0)\n"
        }
        out += "# HELP flagserver_guards Guards by status, counted at the jobs' last pass.\n"
        out += "# TYPE flagserver_guards gauge\n"
        for status in GuardStatus.allCases {
            out += "flagserver_guards{status=\"\(status.rawValue)\"} \(now.statuses[status] ?? 0)\n"
        }
        return out
    }
}
