import FlagClient
import FlagKit
import Foundation
import SymiPlus
import SymiSchema

/// The paid day, rehearsed: every install of a ``Population`` through every ``RunbookStep``, evaluating exactly what
/// the app would (the step's document through `FlagSnapshot`, the App Store's facts through ``SymiPlusAccess``), and
/// counting who gains and who loses access to the premium features at each step.
public enum PaidDayRehearsal {
    /// Installs, how many of them can use every premium feature, and how many gained or lost that with the step.
    public struct Counts: Sendable, Equatable {
        /// Installs in the group.
        public var installs = 0
        /// Of them, with access to every premium feature after the step.
        public var withAccess = 0
        /// Of them, without access before the step and with it after.
        public var gained = 0
        /// Of them, with access before the step and without it after.
        public var lost = 0

        mutating func add(before: Bool?, after: Bool) {
            installs += 1
            if after { withAccess += 1 }
            guard let before else { return }
            if after && !before { gained += 1 }
            if before && !after { lost += 1 }
        }
    }

    /// One step's counts, by standing, by origin, for the offline installs and for all.
    public struct StepResult: Sendable {
        /// The step.
        public var name: String
        /// By Symi Plus standing.
        public var byStanding: [SyntheticInstall.Standing: Counts] = [:]
        /// By install origin.
        public var byOrigin: [SyntheticInstall.Origin: Counts] = [:]
        /// Subscribers (``SyntheticInstall/Standing/isSubscriber``) whatever their origin.
        public var subscribers = Counts()
        /// Installs offline with the old cache.
        public var offline = Counts()
        /// Everyone.
        public var total = Counts()
    }

    /// Runs `steps` for `population` at `now` (every step is evaluated on that day; offline installs keep the first
    /// step's document from their cache, and their last online decision from two days earlier).
    public static func run(_ population: Population, steps: [RunbookStep], now: Date) -> [StepResult] {
        guard let cached = steps.first else { return [] }
        let cacheEnvelope = envelope(cached, version: 1)
        var previous = [Bool?](repeating: nil, count: population.installs.count)
        // The store's facts do not depend on the step; only the flags' courtesy window can: one decision per install
        // and window length.
        var decisions: [Int: [AccessDecision]] = [:]
        var results: [StepResult] = []
        for (index, step) in steps.enumerated() {
            let stepEnvelope = envelope(step, version: index + 1)
            var result = StepResult(name: step.name)
            for (number, install) in population.installs.enumerated() {
                let snapshot = install.offlineWithOldCache
                    ? FlagSnapshot(envelope: cacheEnvelope, safeDefaults: SymiSafeDefaults.document,
                                   source: .cache(version: 1, writtenAt: now), context: install.evaluationContext)
                    : FlagSnapshot(envelope: stepEnvelope, safeDefaults: SymiSafeDefaults.document,
                                   source: .server(version: index + 1, fetchedAt: now), context: install.evaluationContext)
                let flags = SymiFlagValues(snapshot)
                let days = flags.billingRetryAccessDays
                if decisions[days] == nil {
                    decisions[days] = population.installs.enumerated().map { access($1, number: $0, at: now, billingRetryAccessDays: days) }
                }
                let decision = decisions[days]?[number] ?? access(install, number: number, at: now, billingRetryAccessDays: days)
                let hasAccess = flags.premiumFeatures.allSatisfy { flags.isAvailable($0, entitled: decision.isEntitled) }
                let before = previous[number]
                result.byStanding[install.standing, default: Counts()].add(before: before, after: hasAccess)
                result.byOrigin[install.origin, default: Counts()].add(before: before, after: hasAccess)
                if install.standing.isSubscriber { result.subscribers.add(before: before, after: hasAccess) }
                if install.offlineWithOldCache { result.offline.add(before: before, after: hasAccess) }
                result.total.add(before: before, after: hasAccess)
                previous[number] = hasAccess
            }
            results.append(result)
        }
        return results
    }

    /// The access decision the app makes for `install` at `now`: from the store's facts when online; offline, the store
    /// fails and the decision of its last online launch (two days earlier) stands, as ``SymiPlusAccess`` keeps it.
    static func access(_ install: SyntheticInstall, number: Int, at now: Date, billingRetryAccessDays: Int) -> AccessDecision {
        guard install.offlineWithOldCache else {
            return SymiPlusAccess.decide(StoreFacts.input(for: install, at: now, billingRetryAccessDays: billingRetryAccessDays,
                                                          number: number))
        }
        let lastOnline = now.addingTimeInterval(-2 * StoreFacts.day)
        let earlier = SymiPlusAccess.decide(StoreFacts.input(for: install, at: lastOnline,
                                                             billingRetryAccessDays: billingRetryAccessDays, number: number))
        return SymiPlusAccess.decide(AccessInput(storeFailed: true, billingRetryAccessDays: billingRetryAccessDays, now: now,
                                                 earlier: earlier))
    }

    /// The step's document as the server would serve it (the content hash is not checked by a snapshot).
    static func envelope(_ step: RunbookStep, version: Int) -> FlagEnvelope {
        FlagEnvelope(metadata: VersionMetadata(environment: "production", version: version, contentHash: "rehearsal"),
                     document: step.document)
    }
}
