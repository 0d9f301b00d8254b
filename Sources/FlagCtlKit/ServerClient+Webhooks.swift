import FlagKit
import Foundation

/// Webhooks (`/v1/webhooks`, an unscoped admin token). Replies are handed on as the server's JSON: the
/// commands print them as tables or, with `--json`, as they came.
extension ServerClient {
    /// `GET /v1/webhooks`: the active webhooks.
    public func webhooks() throws(ServerError) -> [JSONValue] {
        let url = try url(["v1", "webhooks"])
        return try array(try object(try successful(.get, url), from: url), "webhooks", url)
    }

    /// `POST /v1/webhooks`: the webhook created, with its secret (shown this once).
    public func addWebhook(url target: String, events: [String], environments: [String]?, secret: String?) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "webhooks"])
        var body: [String: JSONValue] = ["url": .string(target), "events": .array(events.map(JSONValue.string))]
        if let environments { body["environments"] = .array(environments.map(JSONValue.string)) }
        if let secret { body["secret"] = .string(secret) }
        return try object(try successful(.post, url, body: Data(JSONValue.object(body).canonicalBytes)), from: url)
    }

    /// `DELETE /v1/webhooks/{id}`: the webhook as it was deleted.
    public func removeWebhook(_ id: Int64) throws(ServerError) -> [String: JSONValue] {
        let url = try url(["v1", "webhooks", String(id)])
        return try object(try successful(.delete, url), from: url)
    }

    /// `GET /v1/webhooks/{id}/deliveries?limit=N`: the newest deliveries, each with its attempts.
    public func webhookDeliveries(_ id: Int64, limit: Int) throws(ServerError) -> [JSONValue] {
        let url = try url(["v1", "webhooks", String(id), "deliveries"], query: "limit=\(limit)")
        return try array(try object(try successful(.get, url), from: url), "deliveries", url)
    }
}
