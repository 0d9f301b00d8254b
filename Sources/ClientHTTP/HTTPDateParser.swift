import FlagKit
import Foundation

/// Parses HTTP-date values (RFC 9110 section 5.6.7) in all three formats a recipient must accept:
/// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete RFC 850)
/// and `Sun Nov  6 08:49:37 1994` (obsolete asctime). Hand-written rather than `DateFormatter`: no locale,
/// no time zone database, identical on every platform. The calendar arithmetic is FlagKit's `CalendarDate`
/// (the one proleptic Gregorian day count of the project).
public enum HTTPDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The instant `text` designates, or `nil` when it is not an HTTP-date.
    /// `now` resolves the two-digit years of the RFC 850 format.
    public static func parse(_ text: String, now: Date) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map { $0.lowercased() }
        switch parts.count {
        case 6:  // IMF-fixdate: day-name "," day month year time "GMT"
            guard parts[0].hasSuffix(","), shortDays.contains(String(parts[0].dropLast())), parts[5] == "gmt",
                  parts[1].count == 2, parts[3].count == 4,
                  let day = Int(parts[1]), let month = months.firstIndex(of: parts[2]), let year = Int(parts[3]) else {
                return nil
            }
            return instant(year: year, month: month + 1, day: day, time: parts[4])
        case 4:  // RFC 850: day-name-l "," dd-mon-yy time "GMT"
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts[0].hasSuffix(","), longDays.contains(String(parts[0].dropLast())), parts[3] == "gmt",
                  date.count == 3, date[0].count == 2, date[2].count == 2,
                  let day = Int(date[0]), let month = months.firstIndex(of: String(date[1])), let yy = Int(date[2]) else {
                return nil
            }
            return instant(year: fullYear(twoDigits: yy, now: now), month: month + 1, day: day, time: parts[2])
        case 5:  // asctime: day-name month day time year (day space-padded)
            guard shortDays.contains(parts[0]), let month = months.firstIndex(of: parts[1]),
                  (1...2).contains(parts[2].count), let day = Int(parts[2]),
                  parts[4].count == 4, let year = Int(parts[4]) else {
                return nil
            }
            return instant(year: year, month: month + 1, day: day, time: parts[3])
        default:
            return nil
        }
    }

    /// RFC 9110 section 5.6.7: a two-digit year that appears to be more than 50 years in the future
    /// is the most recent past year with the same last two digits.
    private static func fullYear(twoDigits yy: Int, now: Date) -> Int {
        let currentYear = CalendarDate(utcDayOf: Int64((now.timeIntervalSince1970 * 1000).rounded(.down))).year
        var year = currentYear - currentYear % 100 + yy
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    /// Validates the fields and converts them to an instant (UTC, proleptic Gregorian calendar).
    private static func instant(year: Int, month: Int, day: Int, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              year >= 1, let date = CalendarDate(year: year, month: month, day: day) else {
            return nil
        }
        let days = Int(date.daysSince1970)
        // A leap second (60) is read as the last second of the minute.
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
