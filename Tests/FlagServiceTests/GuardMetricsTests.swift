import FlagStore
import OutcomeAnalysis
import Testing
@testable import FlagService

/// The guards' /metrics lines: every verdict and status written, also at 0; the gauge replaced at each pass.
@Suite struct GuardMetricsTests {
    @Test func everyVerdictAndStatusIsWritten() {
        let metrics = GuardMetrics()
        metrics.recordDecision(.held)
        metrics.recordDecision(.held)
        metrics.recordDecision(.tripped)
        metrics.setStatuses([.watching: 3, .tripped: 1])
        let text = metrics.exposition()
        #expect(text.contains("# TYPE flagserver_guard_decisions_total counter\n"))
        #expect(text.contains("flagserver_guard_decisions_total{verdict=\"held\"} 2\n"))
        #expect(text.contains("flagserver_guard_decisions_total{verdict=\"tripped\"} 1\n"))
        #expect(text.contains("flagserver_guard_decisions_total{verdict=\"notEnoughData\"} 0\n"))
        #expect(text.contains("# TYPE flagserver_guards gauge\n"))
        #expect(text.contains("flagserver_guards{status=\"watching\"} 3\n") && text.contains("flagserver_guards{status=\"removed\"} 0\n"))
        metrics.setStatuses([.closed: 4])
        #expect(metrics.exposition().contains("flagserver_guards{status=\"watching\"} 0\n"))
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("flagserver_guards{") }.count == GuardStatus.allCases.count)
    }
}
