import Glibc

/// The `Date` header line in IMF-fixdate (RFC 9110 §5.6.7), cached per second by each loop.
struct HTTPDate {
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

    static func headerLine(epochSeconds: Int64) -> [UInt8] {
        var t = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(37)
        out.append(contentsOf: "Date: ".utf8)
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
        out.append(contentsOf: " GMT\r\n".utf8)
        return out
    }

    private static func two(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(0x30 + (n / 10) % 10))
        out.append(UInt8(0x30 + n % 10))
    }
}
