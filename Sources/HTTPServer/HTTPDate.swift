/// HTTP dates in IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`. The one formatter of the
/// server modules: each loop's `Date` header line, cached per second, and other date fields such as the
/// flag API's `Last-Modified` (`HTTPDate.imfFixdate(epochSeconds:)`).
public struct HTTPDate {
    private(set) var second: Int64 = -1
    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n`
    private(set) var line: [UInt8] = []
    /// Recomputes `line` when the wall-clock second has changed.
    mutating func update(now: Int64) {
        guard now != second else { return }
        second = now
        line = HTTPDate.headerLine(epochSeconds: now)
    }

    static let days: [String] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months: [String] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate of `epochSeconds` (seconds since 1970 UTC).
    public static func imfFixdate(epochSeconds: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(29)
        append(epochSeconds: epochSeconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func headerLine(epochSeconds: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(37)
        out.append(contentsOf: HTTPHeaderName.date.rawValue.utf8)
        out.append(contentsOf: EventLoop.colonSpace)
        append(epochSeconds: epochSeconds, to: &out)
        out.append(contentsOf: EventLoop.crlf)
        return out
    }

    /// Appends the IMF-fixdate bytes of `epochSeconds`.
    static func append(epochSeconds: Int64, to out: inout [UInt8]) {
        let parts = System.utc(epochSeconds)
        out.append(contentsOf: days[Int(parts.tm_wday) % 7].utf8)
        out.append(contentsOf: ", ".utf8)
        two(Int(parts.tm_mday), &out)
        out.append(0x20)
        out.append(contentsOf: months[Int(parts.tm_mon) % 12].utf8)
        out.append(0x20)
        let year = Int(parts.tm_year) + 1900
        two(year / 100, &out)
        two(year % 100, &out)
        out.append(0x20)
        two(Int(parts.tm_hour), &out)
        out.append(0x3A)
        two(Int(parts.tm_min), &out)
        out.append(0x3A)
        two(Int(parts.tm_sec), &out)
        out.append(contentsOf: " GMT".utf8)
    }

    private static func two(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(0x30 + (n / 10) % 10))
        out.append(UInt8(0x30 + n % 10))
    }
}
