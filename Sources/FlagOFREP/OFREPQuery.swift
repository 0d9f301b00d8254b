import FlagKit

/// The bulk endpoint's optional query parameters (`flagConfigEtag`, `flagConfigLastModified`; spec
/// ADR-0008), sent by a provider when an event triggered the re-fetch; `sseEtag`/`sseLastModified` are
/// the names in issue #17 and older drafts, and are accepted and ignored the same way. The answer is
/// always the current snapshot, so the values are not used; but a malformed `flagConfigLastModified` is
/// still refused, as the spec types it.
enum OFREPQuery {
    /// Why the query is refused (`PARSE_ERROR`), or nil when it is acceptable.
    static func problem(in items: [(name: String, value: String)]) -> OFREPFailure? {
        for item in items where item.name == "flagConfigLastModified" {
            if !isUnixSeconds(item.value) && !isDateTime(item.value) {
                return OFREPFailure(.parseError, "query parameter flagConfigLastModified must be Unix seconds or an RFC 3339 date-time")
            }
        }
        return nil
    }

    /// A non-negative integer of at most 19 digits (fits Int64).
    static func isUnixSeconds(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return !bytes.isEmpty && bytes.count <= 19 && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// RFC 3339 §5.6 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, fields in range
    /// (a leap second 60 is allowed; days are checked against 31, not the month).
    static func isDateTime(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var value = 0
            for byte in b[from..<(from + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ at: Int, _ allowed: String) -> Bool { at < b.count && allowed.utf8.contains(b[at]) }
        guard number(0, 4) != nil, byte(4, "-"), let month = number(5, 2), (1...12).contains(month), byte(7, "-"),
              let day = number(8, 2), (1...31).contains(day), byte(10, "Tt"),
              let hour = number(11, 2), hour <= 23, byte(13, ":"), let minute = number(14, 2), minute <= 59,
              byte(16, ":"), let second = number(17, 2), second <= 60 else { return false }
        var index = 19
        if byte(index, ".") {
            index += 1
            let start = index
            while index < b.count && b[index] >= 0x30 && b[index] <= 0x39 { index += 1 }
            guard index > start else { return false }
        }
        if byte(index, "Zz") { return index + 1 == b.count }
        guard byte(index, "+-"), let offsetHour = number(index + 1, 2), offsetHour <= 23, byte(index + 3, ":"),
              let offsetMinute = number(index + 4, 2), offsetMinute <= 59 else { return false }
        return index + 6 == b.count
    }
}
