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
        if let refusal = throttled(client) { throw refusal }
        do {
            return fresh ? try authenticator.requireFresh(request, role: role) : try authenticator.requireCached(request, role: role)
        } catch {
            if error.status == .unauthorized { recordFailure(error, client: client, request, context) }
            throw error
        }
    }

    /// The head check of the write routes (runs on the loop before the body is read, see
    /// `HTTPHandler.checkHead`): a throttled client gets 429 and a request without a usable `Authorization`
    /// 401 (logged and counted), so neither makes the server hold a body. A token is checked against the
    /// store only once the body is there (off the loop).
    func writeHeadCheck(_ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        let client = clientAddress(request, context)
        if let refusal = throttled(client) { return refusal.response }
        do {
            _ = try Authenticator.secret(request, needed: .writer)
            return nil
        } catch {
            recordFailure(error, client: client, request, context)
            return error.response
        }
    }

    /// The 429 response for a throttled client (OFREP's `admit`), or nil.
    func throttledResponse(_ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        throttled(clientAddress(request, context))?.response
    }

    /// 429 with `Retry-After` while `client` is past the failure limit.
    private func throttled(_ client: String) -> ServiceError? {
        guard let seconds = authThrottle.retryAfter(client) else { return nil }
        return ServiceError(.tooManyRequests, code: "too_many_failed_authentications",
                            message: "too many failed authentications from \(client); retry in \(seconds) s",
                            headers: [.retryAfter: String(seconds)])
    }

    /// Counts a 401 against `client` and logs it (the reason, never the token).
    private func recordFailure(_ error: ServiceError, client: String, _ request: HTTPRequest, _ context: HTTPRequestContext) {
        recordFailure(reason: error.message, client: client, request, context)
    }

    /// Counts a failed authentication against `client` and logs it with `reason`.
    func recordFailure(reason: String, client: String, _ request: HTTPRequest, _ context: HTTPRequestContext) {
        let failures = authThrottle.recordFailure(client)
        logger.log(.warning, "auth_failed", [
            "client": client, "peer": context.peer.description, "method": request.method.rawValue,
            "path": request.path, "reason": reason, "failures": "\(failures)",
        ])
    }
}
