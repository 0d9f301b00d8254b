import FlagKit
import FlagServiceTestSupport
import Foundation
import Testing
@testable import FlagService

/// Stale flags from a history fed newest first: past the removal date, and constant for N days.
@Suite struct StaleFlagScanTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000

    /// A document of boolean flags: key to (default, rule values).
    static func document(_ flags: [String: (Bool, [Bool])]) throws -> FlagDocument {
        var members: [String: JSONValue] = [:]
        for (key, (value, rules)) in flags {
            members[key] = ["type": "boolean", "default": .bool(value),
                            "rules": .array(rules.map { ["cohort": "beta", "value": .bool($0)] })]
        }
        return try FlagDocument(validating: ["flags": .object(members), "cohorts": ["beta": ["channel": ["in": ["testflight"]]]]])
    }

    /// Feeds `history` (newest first: days ago and document) as far as the scan wants it; returns how many it read.
    static func scan(_ history: [(daysAgo: Int64, document: FlagDocument)], days: Int) -> (StaleFlagScan, read: Int) {
        var scan = StaleFlagScan(now: now, days: days)
        var read = 0
        for entry in history where scan.needsMore {
            scan.add(publishedAt: now - entry.daysAgo * day, document: entry.document)
            read += 1
        }
        return (scan, read)
    }

    @Test func aFlagIsConstantWhenEveryVersionOfThePeriodGaveOneValue() throws {
        let history = [
            (daysAgo: Int64(1), document: try Self.document(["steady": (true, []), "ruled": (false, [false]), "flipped": (true, []),
                                                             "split": (true, [false])])),
            (daysAgo: 10, document: try Self.document(["steady": (true, []), "ruled": (false, []), "flipped": (false, []),
                                                       "split": (true, [false])])),
            (daysAgo: 40, document: try Self.document(["steady": (true, []), "ruled": (false, []), "flipped": (false, []),
                                                       "split": (true, [false])])),
            (daysAgo: 50, document: try Self.document(["steady": (false, []), "ruled": (false, []), "flipped": (false, []),
                                                       "split": (true, [false])])),
            (daysAgo: 60, document: try Self.document(["steady": (false, []), "ruled": (false, []), "flipped": (false, []),
                                                       "split": (true, [false])])),
        ]
        let (scan, read) = Self.scan(history, days: 30)
        #expect(read == 5, "past the version current 30 days ago (40 days old): 'ruled' is constant to the first version")
        let stale = scan.staleFlags(current: history[0].document, policy: .default, today: CalendarDate(utcDayOf: Self.now))
        #expect(stale.map(\.key) == ["ruled", "steady"])
        let steady = try #require(stale.last)
        #expect(steady.reasons == [.constant])
        #expect(steady.value == .bool(true))
        #expect(steady.constantSince == Self.now - 40 * Self.day, "constant since the oldest version of its run")
        #expect(stale.first?.constantSince == Self.now - 60 * Self.day, "a rule giving the default's value is still one value")
        // Without 'ruled', the scan stops at the version that ended the last open run ('steady', 50 days old).
        let steadyOnly = try [(1, true), (10, true), (40, true), (50, false), (60, false)].map { daysAgo, value in
            (daysAgo: Int64(daysAgo), document: try Self.document(["steady": (value, [])]))
        }
        #expect(Self.scan(steadyOnly, days: 30).read == 4)
    }

    @Test func aHistoryShorterThanThePeriodMakesNothingConstant() throws {
        let document = try Self.document(["steady": (true, [])])
        let (scan, read) = Self.scan([(daysAgo: 1, document: document), (daysAgo: 5, document: document)], days: 30)
        #expect(read == 2)
        #expect(!scan.reachedCutoff)
        #expect(scan.staleFlags(current: document, policy: .default, today: CalendarDate(utcDayOf: Self.now)).isEmpty)
        // Zero days: the current version alone decides.
        let (today, _) = Self.scan([(daysAgo: 0, document: document)], days: 0)
        #expect(today.staleFlags(current: document, policy: .default, today: CalendarDate(utcDayOf: Self.now)).map(\.key) == ["steady"])
    }

    @Test func aRemovalDateInThePastListsTheFlagWithItsOwner() throws {
        let document = try Self.document(["old": (true, [false]), "due": (true, [false]), "gone": (true, [false])])
        let policy = EnvironmentPolicy(flags: [
            "old": FlagPolicy(owner: "growth", removeAfter: CalendarDate(year: 2027, month: 1, day: 14)),
            "due": FlagPolicy(owner: "growth", removeAfter: CalendarDate(year: 2027, month: 1, day: 15)),
            "absent": FlagPolicy(removeAfter: CalendarDate(year: 2020, month: 1, day: 1)),
        ])
        let (scan, _) = Self.scan([(daysAgo: 0, document: document)], days: 30)
        let today = try #require(CalendarDate(year: 2027, month: 1, day: 15))
        let stale = scan.staleFlags(current: document, policy: policy, today: today)
        #expect(stale.map(\.key) == ["old"], "the day itself is not past it; a flag not in the document is not listed")
        #expect(stale.first?.reasons == [.pastRemovalDate])
        #expect(stale.first?.owner == "growth")
        #expect(stale.first?.jsonValue == ["key": "old", "owner": "growth", "removeAfter": "2027-01-14", "reasons": ["past_removal_date"],
                                           "value": nil, "constantSince": nil])
    }
}
