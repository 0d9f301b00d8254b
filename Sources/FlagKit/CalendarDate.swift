/// A day of the proleptic Gregorian calendar, written `YYYY-MM-DD` (RFC 3339 §5.6 `full-date`), such as
/// a flag's `removeAfter` in an environment policy.
///
/// Platform-neutral arithmetic (no `Calendar`, no `gmtime`): the day counts use Howard Hinnant's
/// `days_from_civil` algorithms, exact for every year this type accepts (0000...9999).
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 0...9999.
    public let year: Int
    /// 1...12.
    public let month: Int
    /// 1...the month's length in `year`.
    public let day: Int

    /// The date, or nil when a field is out of range (February 29 only in leap years).
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
              (1...Self.daysInMonth(year: year, month: month)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The UTC day that contains the instant `milliseconds` (since 1970-01-01T00:00:00Z).
    ///
    /// Instants outside years 0000...9999 are clamped to the first or last day of that range.
    public init(utcDayOf milliseconds: Int64) {
        let days = Self.floorDivide(milliseconds, Self.millisecondsPerDay)
        let (year, month, day) = Self.civil(fromDays: days)
        let clamped = year < 0 ? (0, 1, 1) : year > 9999 ? (9999, 12, 31) : (year, month, day)
        self.year = clamped.0
        self.month = clamped.1
        self.day = clamped.2
    }

    /// Parses exactly `YYYY-MM-DD` (no time, no offset: a policy date names a day, not an instant).
    ///
    /// Throws `.invalid` with one issue at `path` saying what is wrong: the shape, a month outside 01-12, or a
    /// day the month does not have (`2027-02-29`).
    public static func parse(_ text: String, path: String = "") throws(FlagDocumentError) -> CalendarDate {
        var reader = DigitReader(text)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
              let day = reader.digits(2), reader.isAtEnd else {
            throw .invalid([ValidationIssue(path: path, message: "must be a date YYYY-MM-DD (got \"\(text)\")")])
        }
        return try checked(year: year, month: month, day: day, text: text, path: path)
    }

    /// The date with the checks `parse` reports, shared with `RFC3339`.
    static func checked(year: Int, month: Int, day: Int, text: String, path: String) throws(FlagDocumentError) -> CalendarDate {
        guard (1...12).contains(month) else {
            throw .invalid([ValidationIssue(path: path, message: "month \(month) is not 01-12 (got \"\(text)\")")])
        }
        guard let date = CalendarDate(year: year, month: month, day: day) else {
            throw .invalid([ValidationIssue(path: path, message: "\(Self.pad(year, 4))-\(Self.pad(month, 2)) has no day \(day) (got \"\(text)\")")])
        }
        return date
    }

    /// Whether `year` has a February 29.
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1...12) in `year`.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSince1970: Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * Int64((month + 9) % 12) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Midnight UTC at the start of this day, in milliseconds since 1970.
    public var startMilliseconds: Int64 { daysSince1970 * Self.millisecondsPerDay }

    /// `2027-06-01`.
    public var description: String { "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))" }

    /// Orders by day.
    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }

    static let millisecondsPerDay: Int64 = 86_400_000

    /// `(year, month, day)` of the day `days` after 1970-01-01 (Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// Division rounding towards negative infinity, so instants before 1970 fall on the right day.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// `value` in decimal, zero-padded to `width` digits (negative values keep their sign in front).
    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return value < 0 ? "-" + padded : padded
    }
}
