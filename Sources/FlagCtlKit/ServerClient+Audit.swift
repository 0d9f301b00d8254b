import FlagKit
import Foundation

/// What `flagctl audit` asks for: `GET /v1/audit`'s filters.
public struct AuditFilter: Sendable, Equatable {
    /// Only this environment.
    public var environment: String?
    /// Only lines at or after this instant (milliseconds since 1970 UTC).
    public var sinceMilliseconds: Int64?
    /// Only this actor (a token's name, `-` for requests without a valid token).
    public var actor: String?
    /// Only this action (`publish`, `token.create`, ...).
    public var action: String?
    /// Only this outcome (`ok`, `refused`, `failed`).
    public var outcome: String?

    /// A filter; nothing set: every line.
    public init(environment: String? = nil, sinceMilliseconds: Int64? = nil, actor: String? = nil, action: String? = nil,
                outcome: String? = nil) {
        self.environment = environment
        self.sinceMilliseconds = sinceMilliseconds
        self.actor = actor
        self.action = action
        self.outcome = outcome
    }

    /// The query string of a page of `limit` lines below `before` (each value percent-encoded).
    func query(limit: Int, before: Int64?) -> String {
        var pairs: [(String, String)] = []
        if let environment { pairs.append(("env", environment)) }
        if let sinceMilliseconds { pairs.append(("since", RFC3339.string(milliseconds: sinceMilliseconds))) }
        if let actor { pairs.append(("actor", actor)) }
        if let action { pairs.append(("action", action)) }
        if let outcome { pairs.append(("outcome", outcome)) }
        pairs.append(("limit", String(limit)))
        if let before { pairs.append(("before", String(before))) }
        return ServerClient.queryString(pairs)
    }
}

/// The audit log (`GET /v1/audit`, an unscoped admin token).
extension ServerClient {
    /// The newest `limit` lines matching `filter`, newest first, following the server's `next` page by page
    /// (`pageSize` lines a request).
    public func audit(_ filter: AuditFilter, limit: Int, pageSize: Int = 100) throws(ServerError) -> [JSONValue] {
        var entries: [JSONValue] = []
        var before: Int64?
        while entries.count < limit {
            let url = try url(["v1", "audit"], query: filter.query(limit: min(pageSize, limit - entries.count), before: before))
            let page = try object(try successful(.get, url), from: url)
            let lines = try array(page, "entries", url)
            entries += lines
            guard let next = page["next"]?.integerValue, !lines.isEmpty else { break }
            before = next
        }
        return entries
    }
}
