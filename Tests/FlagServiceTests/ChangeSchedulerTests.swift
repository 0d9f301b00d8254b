import FlagServiceTestSupport
import Foundation
import Testing
@testable import FlagService

/// The scheduler's timekeeping with a pass that only records when it ran (the pass's work is tested in
/// FlagServiceSchedulerTests): real threads and the real clock, short delays, polling rather than sleeping.
@Suite struct ChangeSchedulerTests {
    /// What the passes saw, in order.
    final class Passes: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(at: Int64, published: Set<String>)] = []
        func add(_ published: Set<String>) { lock.withLock { entries.append((ChangeScheduler.wallClock(), published)) } }
        var all: [(at: Int64, published: Set<String>)] { lock.withLock { entries } }
        var count: Int { all.count }

        /// Polls (up to 10 s) until there are at least `count` passes.
        func wait(for count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while self.count < count, Date() < deadline { usleep(2_000) }
            return self.count >= count
        }
    }

    /// A boolean two threads share.
    final class Switch: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isOn: Bool {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    @Test(arguments: [(Int64(1_000), Int64?.none, ChangeScheduler.idleCap), (1_000, 1_300, 300), (1_000, 9_000, ChangeScheduler.dueCap),
                      (1_000, 1_000, ChangeScheduler.dueCap), (1_000, 10, ChangeScheduler.dueCap), (1_000, 1_001, 1)])
    func sleepsUntilTheNextDueTimeAtMostASecond(now: Int64, nextDue: Int64?, expected: Int64) {
        #expect(ChangeScheduler.sleepMilliseconds(now: now, nextDue: nextDue) == expected)
    }

    @Test func aPassRunsAtStartThenAtTheNextDueTimeNotBefore() {
        let scheduler = ChangeScheduler()
        let passes = Passes()
        scheduler.start(initiallyPublished: ["production", "staging"]) { published in
            passes.add(published)
            // The first pass says something is due in 300 ms; later ones that nothing waits.
            return ChangeScheduler.Outcome(nextDue: passes.count == 1 ? ChangeScheduler.wallClock() + 300 : nil)
        }
        defer { scheduler.stop() }
        #expect(passes.wait(for: 2))
        let all = passes.all
        #expect(all[0].published == ["production", "staging"], "the first pass looks at every environment")
        #expect(all[1].published.isEmpty)
        let gap = all[1].at - all[0].at
        #expect(gap >= 295, "woke \(gap) ms after the first pass, before the change was due")
        #expect(gap < 1_000, "woke \(gap) ms after the first pass: late")
        // Nothing waits now: the next pass is the idle one, a minute away, unless woken.
        usleep(300_000)
        #expect(passes.count == 2)
        scheduler.wake()
        #expect(passes.wait(for: 3))
    }

    @Test func publishesWakeItOnlyWhileRequestsArePending() {
        let scheduler = ChangeScheduler()
        let passes = Passes()
        let pending = Switch()
        scheduler.start { published in
            passes.add(published)
            return ChangeScheduler.Outcome(nextDue: nil, pendingRequests: pending.isOn)
        }
        defer { scheduler.stop() }
        #expect(passes.wait(for: 1))
        scheduler.versionPublished("production")
        usleep(200_000)
        #expect(passes.count == 1, "no pending request: a publish costs the writer one atomic load and nothing else")
        // A request recorded: from now on publishes wake it, with the environments that published.
        pending.isOn = true
        scheduler.requestRecorded()
        #expect(passes.wait(for: 2))
        scheduler.versionPublished("staging")
        #expect(passes.wait(for: 3))
        #expect(passes.all[2].published == ["staging"])
    }

    @Test func aClaimedChangeIsHandedOverOnceAndItsEndWakesThePassAfterASuccessOnly() {
        let scheduler = ChangeScheduler()
        let passes = Passes()
        scheduler.start { published in
            passes.add(published)
            return ChangeScheduler.Outcome()
        }
        defer { scheduler.stop() }
        #expect(passes.wait(for: 1))
        #expect(scheduler.claim(7))
        #expect(!scheduler.claim(7), "in flight: a second pass must not queue it again")
        // A failure (the store failed): no immediate retry, the next pass comes at its time.
        scheduler.finished(7, succeeded: false)
        usleep(200_000)
        #expect(passes.count == 1)
        #expect(scheduler.claim(7), "finished: it may be handed over again")
        scheduler.finished(7, succeeded: true)
        #expect(passes.wait(for: 2))
    }

    @Test func stopEndsTheThreadAndNoPassRunsAfter() {
        let scheduler = ChangeScheduler()
        let passes = Passes()
        scheduler.start { published in
            passes.add(published)
            return ChangeScheduler.Outcome(nextDue: ChangeScheduler.wallClock() + 50)
        }
        #expect(passes.wait(for: 3), "a pass every 50 ms while something is due")
        scheduler.stop()
        let count = passes.count
        usleep(200_000)
        #expect(passes.count == count)
        scheduler.stop()  // twice is harmless
        // A stopped scheduler does not start again.
        scheduler.start { _ in
            passes.add([])
            return ChangeScheduler.Outcome()
        }
        usleep(100_000)
        #expect(passes.count == count)
    }
}
