import Foundation

/// The `Retry-After` response field (RFC 9110 section 10.2.3): either delta-seconds or an HTTP-date.
public enum RetryAfter {
    /// The instant before which the server asks not to be contacted again, or `nil` when `value` is neither
    /// form. A date in the past yields `now` (no wait). Absurd delays are bounded later by ``RefreshPolicy/maxRetryAfter``.
    public static func parse(_ value: String, now: Date) -> Date? {
        let text = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // delta-seconds = 1*DIGIT; more than ten digits is centuries, so saturate rather than overflow.
            let seconds = text.utf8.count > 10 ? 9_999_999_999 : Int(text) ?? 9_999_999_999
            return now.addingTimeInterval(TimeInterval(seconds))
        }
        guard let date = HTTPDateParser.parse(text, now: now) else { return nil }
        return max(date, now)
    }

    /// Whether RFC 9110 gives `Retry-After` a meaning the client honours for this status:
    /// 503 (section 15.6.4) and 429 (RFC 6585 section 4).
    public static func applies(toStatus status: Int) -> Bool {
        status == 429 || status == 503
    }
}
