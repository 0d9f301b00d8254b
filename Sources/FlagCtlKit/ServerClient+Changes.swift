import ClientHTTP
import FlagKit
import Foundation

/// The governance calls `flagctl` makes (`docs/governance.md`; the routes in `Sources/FlagService`):
/// schedules, change requests and their decisions, policies, stale flags.
extension ServerClient {
    /// Which changes of an environment to list.
    public enum ChangeListing: String, Sendable {
        /// `GET .../schedules`: changes with a time, by time.
        case schedules
        /// `GET .../requests`: change requests, newest first.
        case requests
    }

    /// `POST .../schedules` with `If-Match` of the version the change was reviewed against (when given):
    /// `{"at", "message", "flags" | "document"}`. A 412 becomes `.conflict`.
    public func schedule(_ environment: String, at: String, message: String, flags: [String: JSONValue]? = nil,
                         document: FlagDocument? = nil, basedOn current: PublishedVersion?) throws(ServerError) -> ChangeProposal {
        let url = try url(["v1", "environments", environment, "schedules"])
        var body: [String: JSONValue] = ["at": .string(at), "message": .string(message)]
        if let flags { body["flags"] = .object(flags) }
        if let document { body["document"] = document.jsonValue }
        var headers = ClientHeaders()
        if let etag = current?.etag { headers.add(name: .ifMatch, value: etag) }
        let response = try exchange(.post, url, headers: headers, body: Data(JSONValue.object(body).canonicalBytes))
        if let conflict = conflict(.post, url, response, environment, basedOn: current) { throw conflict }
        guard (200..<300).contains(response.status) else { throw refusal(.post, url, response) }
        return try ChangeProposal(try object(response, from: url), url: url)
    }

    /// `GET .../schedules` or `.../requests`, with `?status=` when `statuses` is given.
    public func changes(_ environment: String, _ listing: ChangeListing, statuses: [String]? = nil,
                        limit: Int = 1000) throws(ServerError) -> [ChangeSummary] {
        var query = "limit=\(limit)"
        if let statuses { query += "&status=" + statuses.joined(separator: ",") }
        let url = try url(["v1", "environments", environment, listing.rawValue], query: query)
        let response = try successful(.get, url)
        let entries = try array(try object(response, from: url), "changes", url)
        var changes: [ChangeSummary] = []
        for (index, entry) in entries.enumerated() { changes.append(try ChangeSummary(entry, url: url, path: "/changes/\(index)")) }
        return changes
    }

    /// `GET /v1/changes/{id}`.
    public func change(_ id: Int64) throws(ServerError) -> ChangeSummary {
        let url = try url(["v1", "changes", String(id)])
        return try ChangeSummary(try object(try successful(.get, url), from: url)["change"], url: url)
    }

    /// `DELETE /v1/changes/{id}` (`X-Change-Message` says why, when given).
    public func cancel(_ id: Int64, message: String?) throws(ServerError) -> ChangeSummary {
        let url = try url(["v1", "changes", String(id)])
        var headers = ClientHeaders()
        if let message { headers.add(name: ChangeMessage.header, value: ChangeMessage.encode(message)) }
        return try ChangeSummary(try object(try successful(.delete, url, headers: headers), from: url)["change"], url: url)
    }

    /// What an approval answered: the change, and the version it published when it published one.
    public struct Approval: Sendable, Equatable {
        /// The change after the approval (`applied`, or `scheduled` for a time still ahead).
        public var change: ChangeSummary
        /// The version the approval published.
        public var version: PublishedVersion?
    }

    /// `POST /v1/changes/{id}/approve` `{"message": ...}`.
    public func approve(_ id: Int64, message: String?) throws(ServerError) -> Approval {
        let url = try url(["v1", "changes", String(id), "approve"])
        let body: JSONValue = .object(message.map { ["message": .string($0)] } ?? [:])
        let response = try successful(.post, url, body: Data(body.canonicalBytes))
        let object = try object(response, from: url)
        let version = object["version"] == nil ? nil : try PublishedVersion(object, etag: response.headers[.eTag], url: url)
        return Approval(change: try ChangeSummary(object["change"], url: url), version: version)
    }

    /// `POST /v1/changes/{id}/reject` `{"message": ...}`.
    public func reject(_ id: Int64, message: String) throws(ServerError) -> ChangeSummary {
        let url = try url(["v1", "changes", String(id), "reject"])
        let body: JSONValue = ["message": .string(message)]
        return try ChangeSummary(try object(try successful(.post, url, body: Data(body.canonicalBytes)), from: url)["change"], url: url)
    }

    /// `GET .../policy`: `{"environment", "policy", "updatedAt", "updatedBy"}`.
    public func policy(_ environment: String) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "environments", environment, "policy"])
        return try object(try successful(.get, url), from: url)
    }

    /// `PUT .../policy` with the policy's bytes as given (the server validates and answers as `policy(_:)`).
    public func setPolicy(_ environment: String, _ bytes: [UInt8]) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "environments", environment, "policy"])
        return try object(try successful(.put, url, body: Data(bytes)), from: url)
    }

    /// `GET .../stale?days=N`: `{"environment", "days", "version", "asOf", "historyLimited", "flags": [...]}`.
    public func stale(_ environment: String, days: Int) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "environments", environment, "stale"], query: "days=\(days)")
        return try object(try successful(.get, url), from: url)
    }
}
