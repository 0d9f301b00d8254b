import AppStoreNotifications
import Testing

/// UTC hours and days as milliseconds: floored and ceiled to their boundaries.
@Suite struct OutcomeBucketTests {
    /// 2026-12-01T00:00:00Z.
    static let day: Int64 = 1_796_083_200_000

    @Test func boundariesAreUTCHoursAndMidnights() {
        #expect(OutcomeBucket.hour.milliseconds == 3_600_000 && OutcomeBucket.day.milliseconds == 86_400_000)
        let time = Self.day + 13 * 3_600_000 + 59 * 60_000 + 59_999 // 13:59:59.999Z
        #expect(OutcomeBucket.hour.floor(time) == Self.day + 13 * 3_600_000)
        #expect(OutcomeBucket.hour.ceil(time) == Self.day + 14 * 3_600_000)
        #expect(OutcomeBucket.day.floor(time) == Self.day && OutcomeBucket.day.ceil(time) == Self.day + 86_400_000)
        #expect(OutcomeBucket.day.floor(Self.day) == Self.day && OutcomeBucket.day.ceil(Self.day) == Self.day, "a boundary stays")
        #expect(OutcomeBucket.hour.floor(Self.day + 1) == Self.day && OutcomeBucket.hour.ceil(Self.day - 1) == Self.day)
    }

    @Test func timesBefore1970AndAtTheEndsOfInt64() {
        #expect(OutcomeBucket.hour.floor(-1) == -3_600_000 && OutcomeBucket.hour.ceil(-1) == 0)
        #expect(OutcomeBucket.day.floor(-86_400_000) == -86_400_000)
        let top = OutcomeBucket.hour.floor(.max)
        #expect(top <= .max && top % 3_600_000 == 0 && OutcomeBucket.hour.ceil(.max) == top)
        #expect(OutcomeBucket(rawValue: "day") == .day && OutcomeBucket(rawValue: "week") == nil)
    }
}
