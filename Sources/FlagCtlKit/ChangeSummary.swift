import FlagKit
import Foundation

/// A change (a schedule or a change request) as the server describes it: `docs/governance.md`, "The JSON
/// form". Only what flagctl prints is read; `json` keeps the whole object for `--json`.
public struct ChangeSummary: Sendable, Equatable {
    /// The change's id (`flagctl approve 12`, `flagctl unschedule 12`).
    public var id: Int64
    /// The environment it changes.
    public var environment: String
    /// `flags`, `document` or `rollback`.
    public var kind: String
    /// `pending`, `scheduled`, `approved`, `applied`, `conflicted`, `stale`, `failed`, `rejected`, `expired`, `cancelled`.
    public var status: String
    /// Who proposed it.
    public var author: String
    /// Why.
    public var message: String
    /// When it was made (RFC 3339).
    public var createdAt: String
    /// When it is to be published, if it waits for a time.
    public var applyAt: String?
    /// When a pending request expires.
    public var expiresAt: String?
    /// The flags and cohorts it sets (`/flags/KEY`, `/cohorts/NAME` become `KEY`, `cohort NAME`).
    public var items: [String]
    /// The protected flags it touches.
    public var protectedFlags: [String]
    /// Who approved it.
    public var approvedBy: String?
    /// Who decided it (approved, rejected, cancelled; `scheduler` for an expiry).
    public var decidedBy: String?
    /// The decider's message.
    public var decisionMessage: String?
    /// When it was really published.
    public var appliedAt: String?
    /// The version that published it.
    public var appliedVersion: Int?
    /// What someone changed since (JSON pointers), for `conflicted` and `stale`.
    public var conflicts: [String]
    /// Why it failed.
    public var reason: String?
    /// The object as received.
    public var json: JSONValue

    /// Reads the change at `path` of a reply from `url`; a missing or mistyped member names its path.
    init(_ value: JSONValue?, url: URL, path: String = "/change") throws(ServerError) {
        func fail(_ member: String, _ expected: String) -> ServerError {
            .unreadableReply(url: url.absoluteString, reason: "\(path)/\(member): expected \(expected)")
        }
        guard let object = value?.objectValue else { throw .unreadableReply(url: url.absoluteString, reason: "\(path): expected an object") }
        func text(_ member: String) throws(ServerError) -> String {
            guard let text = object[member]?.stringValue else { throw fail(member, "a string") }
            return text
        }
        func optionalText(_ member: String) throws(ServerError) -> String? {
            switch object[member] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw fail(member, "a string or null")
            }
        }
        func strings(_ member: String) throws(ServerError) -> [String] {
            guard let array = object[member]?.arrayValue else { throw fail(member, "an array") }
            return array.compactMap(\.stringValue)
        }
        guard let id = object["id"]?.integerValue else { throw fail("id", "an integer") }
        self.id = id
        environment = try text("environment")
        kind = try text("kind")
        status = try text("status")
        author = try text("author")
        message = try text("message")
        createdAt = try text("createdAt")
        applyAt = try optionalText("applyAt")
        expiresAt = try optionalText("expiresAt")
        protectedFlags = try strings("protectedFlags")
        approvedBy = try optionalText("approvedBy")
        decidedBy = try optionalText("decidedBy")
        decisionMessage = try optionalText("decisionMessage")
        appliedAt = try optionalText("appliedAt")
        appliedVersion = object["appliedVersion"]?.integerValue.map { Int($0) }
        conflicts = try strings("conflicts")
        reason = try optionalText("reason")
        let changes = object["changes"]?.objectValue
        let flags = (changes?["flags"]?.objectValue?.keys).map { Array($0) } ?? []
        let cohorts = (changes?["cohorts"]?.objectValue?.keys).map { Array($0) } ?? []
        items = cohorts.sorted(by: JSONValue.utf8Order).map { "cohort \($0)" } + flags.sorted(by: JSONValue.utf8Order)
        json = .object(object)
    }

    /// What it sets, for one column: `showIntroFreeSubscriptionBanner`, or `a, b, cohort beta`.
    public var itemList: String { items.isEmpty ? "-" : items.joined(separator: ", ") }
}

/// A change recorded instead of a publish: `201` (a schedule) or `202` (a change request, nothing published),
/// with the diff's printed lines and the impact's.
public struct ChangeProposal: Sendable, Equatable {
    /// The change.
    public var change: ChangeSummary
    /// The lines `flagctl diff` prints for it.
    public var lines: [String]
    /// The impact's printed lines (empty when the server measured none).
    public var impactLines: [String]
    /// The whole reply.
    public var json: JSONValue

    /// Reads a 201 or 202 reply.
    init(_ object: [String: JSONValue], url: URL) throws(ServerError) {
        change = try ChangeSummary(object["change"], url: url)
        lines = (object["lines"]?.arrayValue ?? []).compactMap { $0.objectValue?["text"]?.stringValue }
        impactLines = (object["impact"]?.objectValue?["lines"]?.arrayValue ?? []).compactMap(\.stringValue)
        json = .object(object)
    }

    /// Whether it waits for a second person (`202`).
    public var needsApproval: Bool { change.status == "pending" }
}

/// What a write answered: published (or already current), or recorded as a change request.
public enum WriteAnswer: Sendable, Equatable {
    /// `200`: the version now current.
    case written(WriteResult)
    /// `202`: nothing was published; a second person must approve the change request.
    case requested(ChangeProposal)
}
