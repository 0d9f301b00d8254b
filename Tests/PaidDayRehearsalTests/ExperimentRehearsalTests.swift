import Foundation
import PaidDayRehearsal
import Testing

/// The CI-sized run of the experiments through the real receiver (the release run is `paid-day-rehearsal
/// --experiments 1000`): every server report equals the analysis of the generated truth, and the rates are sane.
@Suite(.serialized) struct ExperimentRehearsalTests {
    static let flags = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("flags").path
    /// The weeks end before today, inside the receiver's retention.
    static var start: Int64 { Int64(Date().timeIntervalSince1970 * 1000) / NotificationWeek.day * NotificationWeek.day - 8 * NotificationWeek.day }

    @Test func twentyExperimentsThroughTheReceiverMatchTheTruth() throws {
        var settings = ExperimentRehearsal.Settings()
        settings.experiments = 10
        settings.effectExperiments = 10
        settings.perServer = 20
        settings.checkedPerServer = 20
        let figures = try ExperimentRehearsal.run(settings, flagsDirectory: Self.flags, start: Self.start)
        print(ExperimentRehearsal.report(figures, settings), terminator: "")
        #expect(figures.equalExperiments == 10 && figures.effectExperiments == 10)
        #expect(figures.reportsChecked == 20 && figures.reportsEqual == 20, "\(figures.differences)")
        #expect(figures.notifications > 20 * 1_000, "a week of notifications each: \(figures.notifications)")
        // Seeded: at a false-positive rate near 0.02 three of ten is beyond 1 in 1,000; at a power near 0.8 fewer
        // than four of ten detections is beyond 1 in 100; a decision for the dearer arm means the test is broken.
        #expect(figures.falsePositives <= 2, "\(figures.falsePositives) of 10 equal experiments decided")
        #expect(figures.detected >= 4 && figures.wrongDirection == 0, "\(figures.detected) of 10 detected, \(figures.wrongDirection) wrong")
    }
}
