import FlagStore
import HTTPServer

/// Authentication as the routes see it: the failed-authentication throttle first, then the token check,
/// and a log line for every failure (never the token itself).
extension FlagService {
    /// The client's address: the TCP peer, or what a trusted proxy forwarded (`Options.trustedProxies`).
    public func clientAddress(_ request: HTTPRequest, _ context: HTTPRequestContext) -> String {
        options.trustedProxies.clientAddress(request, peer: context.peer)
    }

    /// The token of `request` if it allows `role`: from the store (`fresh`, for writes) or the in-memory
    /// table (reads). A client past the failure limit gets 429 with `Retry-After` before its token is looked
    /// at; a 401 is logged (`event=auth_failed` with the client address, the route and the reason) and counted
    /// against the client.
    func authenticate(_ request: HTTPRequest, _ context: HTTPRequestContext, role: TokenRole,
                      fresh: Bool) throws(ServiceError) -> TokenRecord {
        let client = clientAddress(request, context)
        if let seconds = authThrottle.retryAfter(client) {
            throw ServiceError(.tooManyRequests, code: "too_many_failed_authentications",
                               message: "too many failed authentications from \(client); retry in \(seconds) s",
                               headers: ["Retry-After": String(seconds)])
        }
        do {
            return fresh ? try authenticator.requireFresh(request, role: role) : try authenticator.requireCached(request, role: role)
        } catch {
            if error.status == .unauthorized {
                let failures = authThrottle.recordFailure(client)
                logger.log(.warning, "auth_failed", [
                    "client": client, "peer": context.peer.description, "method": request.method.rawValue,
                    "path": request.path, "reason": error.message, "failures": "\(failures)",
                ])
            }
            throw error
        }
    }
}
