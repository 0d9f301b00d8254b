import FlagKit

/// The body of `POST /v1/environments/{env}/schedules` (`docs/governance.md`, "Scheduled changes"):
///
/// ```json
/// {"at": "2027-03-01T00:00:00+01:00", "message": "the free intro period is over",
///  "flags": {"showIntroFreeSubscriptionBanner": false}}
/// ```
///
/// `flags` maps keys to what `PUT .../flags/{key}` takes (a bare value, or a full definition); instead of
/// `flags`, `document` schedules a whole document. `message` may come as `X-Change-Message` instead.
public struct ScheduleRequest: Sendable, Equatable {
    /// When to publish, milliseconds since 1970 UTC.
    public let applyAt: Int64
    /// What to set.
    public let edit: ScheduleEdit
    /// The body's `message`, as given (checked like every write's message by the route).
    public let message: JSONValue?

    /// How far in the past `at` may be (a schedule for "now" sent a little late is still a schedule).
    public static let pastTolerance: Int64 = 60_000
    /// How far ahead `at` may be: two years (a typo in the year must not park a change for a decade).
    public static let horizon: Int64 = 731 * 86_400_000

    /// Reads a parsed body at time `now` (milliseconds since 1970 UTC). 422 `invalid_body` with the member's
    /// path for what it cannot take; `invalid_document` (paths under `/document`) for a document that does not
    /// validate. A flag's value is checked later, against the document it lands in.
    public init(body: JSONValue, now: Int64) throws(ServiceError) {
        guard case .object(let members) = body else {
            throw ServiceError.badRequest("invalid_body", #"expected {"at": "...", "message": "...", "flags": {...}}"#)
        }
        for key in members.keys.sorted(by: JSONValue.utf8Order) where !["at", "message", "flags", "document"].contains(key) {
            throw ChangePreview.invalid(JSONPath.pointer([key]), "unknown member (expected at, message, and flags or document)")
        }
        guard let text = members["at"]?.stringValue else {
            throw ChangePreview.invalid("/at", "must be a time in RFC 3339 with an offset, e.g. 2027-03-01T00:00:00+01:00")
        }
        let at: Int64
        do {
            at = try RFC3339.milliseconds(parsing: text, path: "/at")
        } catch {
            throw ServiceError(.unprocessableContent, code: "invalid_body",
                               message: error.issues.first?.message ?? "/at is not an RFC 3339 time", details: error.issues)
        }
        if at < now - Self.pastTolerance {
            throw ChangePreview.invalid("/at", "\(text) is in the past (now is \(RFC3339.string(milliseconds: now)))")
        }
        if at > now + Self.horizon {
            throw ChangePreview.invalid("/at", "\(text) is more than two years ahead")
        }
        applyAt = at
        if let message = members["message"], message.stringValue == nil {
            throw ChangePreview.invalid("/message", "must be a string")
        }
        message = members["message"]
        switch (members["flags"], members["document"]) {
        case (let flags?, nil):
            guard case .object(let entries) = flags, !entries.isEmpty else {
                throw ChangePreview.invalid("/flags", "must be an object of at least one flag key and its value or definition")
            }
            edit = .flags(entries.mapValues(FlagEdit.init))
        case (nil, let document?):
            do {
                edit = .document(try FlagDocument(validating: document))
            } catch {
                let issues = error.issues.map { ValidationIssue(path: "/document" + $0.path, message: $0.message) }
                throw ServiceError.invalidDocument(issues)
            }
        default:
            throw ChangePreview.invalid("/", "send exactly one of flags or document")
        }
    }
}
