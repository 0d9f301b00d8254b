import Foundation
import Testing
@testable import SymiPlus

/// The system clock waits until a date and no longer.
@Suite struct PurchaseClockTests {
    @Test func sleepsUntilTheDate() async throws {
        let clock = SystemPurchaseClock()
        let start = Date()
        try await clock.sleep(until: start.addingTimeInterval(-60))
        #expect(Date().timeIntervalSince(start) < 1, "a past date returns at once")
        try await clock.sleep(until: start.addingTimeInterval(0.05))
        #expect(clock.now() >= start.addingTimeInterval(0.05))
    }

    @Test func cancellationEndsTheWait() async throws {
        let task = Task { try await SystemPurchaseClock().sleep(until: Date().addingTimeInterval(3_600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
