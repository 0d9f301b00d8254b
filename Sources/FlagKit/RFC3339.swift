/// RFC 3339 date-times: parsing an instant with its offset, and the one UTC formatter with milliseconds that
/// every time the API sends uses (`publishedAt`, a change's `applyAt`, an audit entry's `at`, webhook events).
///
/// Instants are milliseconds since 1970-01-01T00:00:00Z, as the store keeps them. Platform-neutral: no
/// `DateFormatter`, no `gmtime`, so the server, flagctl and the app agree byte for byte.
public enum RFC3339 {
    /// Parses an RFC 3339 §5.6 `date-time` to the instant it names:
    /// `YYYY-MM-DD "T" hh:mm:ss [ "." 1*DIGIT ] ( "Z" / ("+" / "-") hh:mm )`.
    ///
    /// - `T` and `Z` may be lowercase (the ABNF's literals are case-insensitive, RFC 3339 §5.6 note).
    /// - Every field is range-checked: month 01-12, the day against the month's length in that year
    ///   (`2027-02-29` is refused, `2028-02-29` accepted), hour 00-23, minute 00-59, second 00-59.
    /// - A leap second (`:60`) is refused: Unix time has none, so it names no instant we could store. A caller
    ///   that only checks the grammar (OFREP's `flagConfigLastModified`) passes `allowingLeapSecond`, and then
    ///   `:60` is read as the last second of the minute (as HTTP-dates are).
    /// - Fraction digits after the third are dropped (the instant is truncated to the millisecond).
    /// - The offset is required: a time without one is ambiguous, and a schedule must never depend on the
    ///   server's time zone. `-00:00` ("offset unknown", §4.3) is accepted as UTC.
    ///
    /// Throws `.invalid` with one issue at `path` (`/at`, ...) saying what is wrong.
    public static func milliseconds(parsing text: String, path: String = "",
                                    allowingLeapSecond: Bool = false) throws(FlagDocumentError) -> Int64 {
        func refuse(_ problem: String) -> FlagDocumentError {
            .invalid([ValidationIssue(path: path, message: "must be an RFC 3339 date-time with an offset, "
                + "such as 2027-03-01T00:00:00+01:00 or 2027-02-28T23:00:00Z: \(problem) (got \"\(text)\")")])
        }
        var reader = DigitReader(text)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
              let day = reader.digits(2) else {
            throw refuse("the date is not YYYY-MM-DD")
        }
        guard reader.skip("Tt") else { throw refuse(reader.isAtEnd ? "the time is missing" : "expected T after the date") }
        guard let hour = reader.digits(2), reader.skip(":"), let minute = reader.digits(2), reader.skip(":"),
              let second = reader.digits(2) else {
            throw refuse("the time is not hh:mm:ss")
        }
        var millisecond = 0
        if reader.skip(".") {
            var count = 0
            while let digit = reader.digits(1) {
                if count < 3 { millisecond = millisecond * 10 + digit }
                count += 1
            }
            guard count > 0 else { throw refuse("a fraction needs at least one digit after the dot") }
            for _ in count..<max(count, 3) { millisecond *= 10 }
        }
        let offsetMinutes: Int
        if reader.skip("Zz") {
            offsetMinutes = 0
        } else if let sign = reader.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            _ = reader.skip("+-")
            guard let offsetHour = reader.digits(2), reader.skip(":"), let offsetMinute = reader.digits(2) else {
                throw refuse("the offset is not ±hh:mm")
            }
            guard offsetHour <= 23, offsetMinute <= 59 else { throw refuse("the offset is out of range") }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else if reader.isAtEnd {
            throw refuse("the offset is missing (add Z for UTC or ±hh:mm)")
        } else {
            throw refuse("expected a fraction, Z or ±hh:mm after the seconds")
        }
        guard reader.isAtEnd else { throw refuse("unexpected text after the offset") }
        let date: CalendarDate
        do {
            date = try CalendarDate.checked(year: year, month: month, day: day, text: text, path: path)
        } catch {
            throw refuse(month < 1 || month > 12 ? "month \(month) is not 01-12" : "that month has no day \(day)")
        }
        guard hour <= 23 else { throw refuse("hour \(hour) is not 00-23") }
        guard minute <= 59 else { throw refuse("minute \(minute) is not 00-59") }
        guard second <= 59 || (second == 60 && allowingLeapSecond) else {
            throw refuse(second == 60 ? "a leap second names no Unix time" : "second \(second) is not 00-59")
        }
        let secondsOfDay = Int64(hour * 3600 + minute * 60 + min(second, 59) - offsetMinutes * 60)
        return date.daysSince1970 * CalendarDate.millisecondsPerDay + secondsOfDay * 1000 + Int64(millisecond)
    }

    /// The instant as RFC 3339 UTC with exactly three fraction digits: `2027-02-28T23:00:00.000Z`.
    ///
    /// The one formatter for times the API sends. Instants before 1970 format correctly; years outside
    /// 0000...9999 cannot be written in RFC 3339 and come out with more digits or a sign.
    public static func string(milliseconds: Int64) -> String {
        let days = CalendarDate.floorDivide(milliseconds, CalendarDate.millisecondsPerDay)
        let (year, month, day) = CalendarDate.civil(fromDays: days)
        let ofDay = Int(milliseconds - days * CalendarDate.millisecondsPerDay)
        let hour = ofDay / 3_600_000
        let minute = ofDay / 60_000 % 60
        let second = ofDay / 1000 % 60
        let pad = CalendarDate.pad
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))."
            + "\(pad(ofDay % 1000, 3))Z"
    }
}
