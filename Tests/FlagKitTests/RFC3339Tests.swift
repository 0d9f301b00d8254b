import Foundation
import Testing
@testable import FlagKit

/// RFC 3339 date-times with offsets to instants, and the UTC millisecond formatter.
@Suite struct RFC3339Tests {
    /// 2027-02-28T23:00:00Z in milliseconds since 1970.
    static let launch: Int64 = 1_803_855_600_000

    @Test(arguments: [
        "2027-03-01T00:00:00+01:00", "2027-02-28T23:00:00Z", "2027-02-28T23:00:00z", "2027-02-28t23:00:00Z",
        "2027-02-28T23:00:00.000Z", "2027-02-28T23:00:00-00:00", "2027-02-28T18:30:00-04:30",
        "2027-03-01T08:59:00+09:59", "2027-02-28T23:00:00.0004Z",
    ])
    func theSameInstantInEveryForm(text: String) throws {
        #expect(try RFC3339.milliseconds(parsing: text) == Self.launch)
    }

    @Test func fractionsAreMillisecondsTruncated() throws {
        #expect(try RFC3339.milliseconds(parsing: "2027-02-28T23:00:00.5Z") == Self.launch + 500)
        #expect(try RFC3339.milliseconds(parsing: "2027-02-28T23:00:00.12Z") == Self.launch + 120)
        #expect(try RFC3339.milliseconds(parsing: "2027-02-28T23:00:00.123999999Z") == Self.launch + 123)
        #expect(try RFC3339.milliseconds(parsing: "1969-12-31T23:59:59.999Z") == -1)
        #expect(try RFC3339.milliseconds(parsing: "1970-01-01T00:00:00Z") == 0)
    }

    @Test(arguments: [
        ("2027-03-01T00:00:00", "the offset is missing"),
        ("2027-03-01 00:00:00Z", "expected T after the date"),
        ("2027-03-01", "the time is missing"),
        ("2027-03-01T00:00Z", "the time is not hh:mm:ss"),
        ("2027-3-01T00:00:00Z", "the date is not YYYY-MM-DD"),
        ("2027-02-29T00:00:00Z", "that month has no day 29"),
        ("2028-02-30T00:00:00Z", "that month has no day 30"),
        ("2027-13-01T00:00:00Z", "month 13 is not 01-12"),
        ("2027-03-01T24:00:00Z", "hour 24 is not 00-23"),
        ("2027-03-01T23:60:00Z", "minute 60 is not 00-59"),
        ("2027-03-01T23:59:61Z", "second 61 is not 00-59"),
        ("2027-06-30T23:59:60Z", "a leap second names no Unix time"),
        ("2027-03-01T00:00:00.Z", "a fraction needs at least one digit"),
        ("2027-03-01T00:00:00+1:00", "the offset is not ±hh:mm"),
        ("2027-03-01T00:00:00+0100", "the offset is not ±hh:mm"),
        ("2027-03-01T00:00:00+24:00", "the offset is out of range"),
        ("2027-03-01T00:00:00+01:60", "the offset is out of range"),
        ("2027-03-01T00:00:00Z ", "unexpected text after the offset"),
        ("2027-03-01T00:00:00UTC", "expected a fraction, Z or ±hh:mm"),
        ("", "the date is not YYYY-MM-DD"),
    ])
    func refusals(text: String, reason: String) {
        do {
            let instant = try RFC3339.milliseconds(parsing: text, path: "/at")
            Issue.record("\(text) was read as \(instant)")
        } catch {
            #expect(error.issues.map(\.path) == ["/at"])
            #expect(error.issues.first?.message.contains(reason) == true, "\(text): \(error)")
            #expect(error.issues.first?.message.contains("must be an RFC 3339 date-time with an offset") == true)
        }
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(RFC3339.string(milliseconds: Self.launch) == "2027-02-28T23:00:00.000Z")
        #expect(RFC3339.string(milliseconds: Self.launch + 12) == "2027-02-28T23:00:00.012Z")
        #expect(RFC3339.string(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.string(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    /// A caller that only checks the grammar may accept a leap second; it reads as the minute's last second.
    @Test func leapSecondOnlyWhenAllowed() throws {
        #expect(throws: FlagDocumentError.self) { try RFC3339.milliseconds(parsing: "2016-12-31T23:59:60Z") }
        let leap = try RFC3339.milliseconds(parsing: "2016-12-31T23:59:60Z", allowingLeapSecond: true)
        #expect(leap == (try RFC3339.milliseconds(parsing: "2016-12-31T23:59:59Z")))
        #expect(throws: FlagDocumentError.self) { try RFC3339.milliseconds(parsing: "2016-12-31T23:59:61Z", allowingLeapSecond: true) }
    }

    /// Random instants from 1900 to 2200: the formatter agrees with Foundation's ISO 8601 formatter (on whole
    /// seconds: Foundation goes through a Double, whose milliseconds may round either way), and parsing what
    /// it wrote gives the instant back to the millisecond.
    @Test func agreesWithFoundationAndRoundTrips() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = .gmt
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let instant = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let whole = CalendarDate.floorDivide(instant, 1000) * 1000
            #expect(RFC3339.string(milliseconds: whole) == formatter.string(from: Date(timeIntervalSince1970: Double(whole) / 1000)))
            let text = RFC3339.string(milliseconds: instant)
            #expect(try RFC3339.milliseconds(parsing: text) == instant, "\(text)")
        }
    }

    /// An offset moves the instant the other way: local time minus the offset is UTC.
    @Test func offsetsAcrossADayAndYearBoundary() throws {
        let newYear = try RFC3339.milliseconds(parsing: "2027-01-01T00:30:00+01:00")
        #expect(RFC3339.string(milliseconds: newYear) == "2026-12-31T23:30:00.000Z")
        let west = try RFC3339.milliseconds(parsing: "2028-02-28T22:00:00-03:00")
        #expect(RFC3339.string(milliseconds: west) == "2028-02-29T01:00:00.000Z")
    }
}
