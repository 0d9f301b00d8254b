import FlagKit
import Foundation

/// Guards (docs/guards.md; the routes in docs/api.md): a rule that watches what a change does to the App Store outcomes.
/// Replies are handed on as the server's JSON: the commands print them as tables or, with `--json`, as they came.
extension ServerClient {
    /// What a guard rides on: a change (schedule or change request) or a published version.
    public enum GuardTarget: Sendable, Equatable, CustomStringConvertible {
        /// The change's id: the guard waits until it is applied, then watches the version it published.
        case change(Int64)
        /// A published version, watched from its publication.
        case version(Int)

        /// `change 12`, `version 43`.
        public var description: String {
            switch self {
            case .change(let id): "change \(id)"
            case .version(let number): "version \(number)"
            }
        }
    }

    /// `POST /v1/environments/{env}/guards` `{"change" | "version", "rule", "product"?, "appStoreEnvironment"?}`: the guard created.
    public func addGuard(_ environment: String, to target: GuardTarget, _ request: GuardRequest) throws(ServerError) -> JSONValue {
        let url = try url(["v1", "environments", environment, "guards"])
        var body = request.body
        switch target {
        case .change(let id): body["change"] = .integer(id)
        case .version(let number): body["version"] = .integer(Int64(number))
        }
        return Self.guardObject(try object(try successful(.post, url, body: Data(JSONValue.object(body).canonicalBytes)), from: url))
    }

    /// `GET /v1/environments/{env}/guards[?status=...]`: the environment's guards, newest first.
    public func guards(_ environment: String, statuses: [String]? = nil) throws(ServerError) -> [JSONValue] {
        let url = try url(["v1", "environments", environment, "guards"], query: statuses.map { "status=" + $0.joined(separator: ",") })
        return try array(try object(try successful(.get, url), from: url), "guards", url)
    }

    /// `GET /v1/guards/{id}`: the guard with its audited decisions (`decisions`, newest first).
    public func guardDetails(_ id: Int64) throws(ServerError) -> JSONValue {
        let url = try url(["v1", "guards", String(id)])
        let reply = try object(try successful(.get, url), from: url)
        // The decisions may sit beside the guard or inside it; either way the caller reads one object.
        guard case .object(var guardObject)? = reply["guard"] else { return .object(reply) }
        if guardObject["decisions"] == nil, let decisions = reply["decisions"] { guardObject["decisions"] = decisions }
        return .object(guardObject)
    }

    /// `DELETE /v1/guards/{id}`: the guard as it is now (`removed`).
    public func removeGuard(_ id: Int64) throws(ServerError) -> JSONValue {
        let url = try url(["v1", "guards", String(id)])
        return Self.guardObject(try object(try successful(.delete, url), from: url))
    }

    /// `POST /v1/guards/{id}/override` `{"message"}`: the whole reply, `{"guard"}` (`overridden`) with the version that
    /// republished the watched content (`version`, ...), or with `change` (202: the republish touches a protected flag
    /// and became a change request).
    public func overrideGuard(_ id: Int64, message: String) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "guards", String(id), "override"])
        let body: JSONValue = ["message": .string(message)]
        return try object(try successful(.post, url, body: Data(body.canonicalBytes)), from: url)
    }

    /// The guard of a reply: its `guard` member when it has one, else the reply itself.
    static func guardObject(_ reply: [String: JSONValue]) -> JSONValue {
        if let inner = reply["guard"], inner.objectValue != nil { return inner }
        return .object(reply)
    }
}
