import Foundation
import Testing
@testable import FlagKit

/// `YYYY-MM-DD` dates: parsing with range checks, day arithmetic, formatting.
@Suite struct CalendarDateTests {
    @Test func parsesAValidDate() throws {
        let date = try CalendarDate.parse("2027-06-01")
        #expect(date.year == 2027 && date.month == 6 && date.day == 1)
        #expect(date.description == "2027-06-01")
        #expect(date.startMilliseconds == 1_811_808_000_000)
    }

    @Test(arguments: [
        ("2027-02-29", "2027-02 has no day 29"), ("2027-04-31", "2027-04 has no day 31"),
        ("2027-13-01", "month 13 is not 01-12"), ("2027-00-10", "month 0 is not 01-12"),
        ("2027-01-00", "2027-01 has no day 0"), ("2027-6-01", "must be a date YYYY-MM-DD"),
        ("2027-06-01T00:00:00Z", "must be a date YYYY-MM-DD"), ("", "must be a date YYYY-MM-DD"),
        ("27-06-01", "must be a date YYYY-MM-DD"), ("2027/06/01", "must be a date YYYY-MM-DD"),
        ("２０２７-06-01", "must be a date YYYY-MM-DD"),
    ])
    func refusesWithTheReasonAtThePath(text: String, reason: String) {
        do {
            _ = try CalendarDate.parse(text, path: "/flags/x/removeAfter")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues.first?.path == "/flags/x/removeAfter")
            #expect(error.issues.first?.message.contains(reason) == true, "\(error)")
        }
    }

    @Test func leapYears() throws {
        #expect(try CalendarDate.parse("2028-02-29").day == 29)
        #expect(try CalendarDate.parse("2000-02-29").day == 29)
        #expect(throws: FlagDocumentError.self) { try CalendarDate.parse("2100-02-29") }
        #expect(CalendarDate.isLeapYear(2024) && CalendarDate.isLeapYear(2000))
        #expect(!CalendarDate.isLeapYear(1900) && !CalendarDate.isLeapYear(2027))
    }

    /// Every day from 1900 to 2100 against Foundation's Gregorian calendar in UTC.
    @Test func dayCountsAgreeWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let start = try #require(CalendarDate(year: 1900, month: 1, day: 1)).daysSince1970
        let end = try #require(CalendarDate(year: 2100, month: 12, day: 31)).daysSince1970
        var mismatches = 0
        for days in start...end {
            let date = CalendarDate(utcDayOf: days * 86_400_000 + 43_200_000)
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            if (parts.year, parts.month, parts.day) != (date.year, date.month, date.day) || date.daysSince1970 != days {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    /// The day count and its inverse over the whole range, years 0000...9999 (moved from ClientHTTPTests when
    /// `HTTPDateParser` gave up its own copy of the arithmetic).
    @Test func dayCountsRoundTripOverTheWholeRange() throws {
        let first = try #require(CalendarDate(year: 0, month: 1, day: 1)).daysSince1970
        let last = try #require(CalendarDate(year: 9999, month: 12, day: 31)).daysSince1970
        #expect(try #require(CalendarDate(year: 1970, month: 1, day: 1)).daysSince1970 == 0)
        var mismatches = 0
        for days in stride(from: first, through: last, by: 997) where CalendarDate(utcDayOf: days * 86_400_000).daysSince1970 != days {
            mismatches += 1
        }
        #expect(mismatches == 0)
    }

    @Test func utcDayOfAnInstantBeforeAndAfterMidnight() throws {
        let midnight = try CalendarDate.parse("2027-03-01").startMilliseconds
        #expect(CalendarDate(utcDayOf: midnight).description == "2027-03-01")
        #expect(CalendarDate(utcDayOf: midnight - 1).description == "2027-02-28")
        #expect(CalendarDate(utcDayOf: -1).description == "1969-12-31")
        #expect(CalendarDate(utcDayOf: .max).description == "9999-12-31")
        #expect(CalendarDate(utcDayOf: .min).description == "0000-01-01")
    }

    @Test func ordersByDay() throws {
        #expect(try CalendarDate.parse("2027-05-31") < CalendarDate.parse("2027-06-01"))
        #expect(try CalendarDate.parse("2026-12-31") < CalendarDate.parse("2027-01-01"))
        #expect(CalendarDate(year: 2027, month: 2, day: 29) == nil)
        #expect(CalendarDate(year: 10_000, month: 1, day: 1) == nil)
    }
}
