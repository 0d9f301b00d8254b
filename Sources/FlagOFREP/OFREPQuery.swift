import FlagKit

/// The bulk endpoint's optional query parameters (`flagConfigEtag`, `flagConfigLastModified`; spec
/// ADR-0008), sent by a provider when an event triggered the re-fetch; `sseEtag`/`sseLastModified` are
/// the names in older drafts of the spec, and are accepted and ignored the same way. The answer is
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

    /// RFC 3339 §5.6 `date-time`, by FlagKit's one parser: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, every field
    /// in range (the day against its month). A leap second (`:60`) is a valid date-time and is accepted here:
    /// the value is only checked, never used.
    static func isDateTime(_ text: String) -> Bool {
        (try? RFC3339.milliseconds(parsing: text, allowingLeapSecond: true)) != nil
    }
}
