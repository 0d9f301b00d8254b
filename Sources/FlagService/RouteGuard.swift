import FlagStore
import HTTPServer

/// The middleware every route of the API runs through (Hummingbird's idea: authorization declared on the
/// route, not called inside each handler). It enforces the route's `RouteAccess` and hands the handler the
/// authenticated token: the failed-authentication throttle first, then the token check, a log line and a
/// count for every 401 (never the token itself), 403 for a role too low or an environment out of scope.
final class RouteGuard: Sendable {
    let authenticator: Authenticator
    /// Failed authentications per client address (429 past the limit).
    let throttle: FailedAuthThrottle
    let logger: ServiceLogger
    let trustedProxies: HTTPTrustedProxies
    let requireReadToken: Bool

    init(authenticator: Authenticator, throttle: FailedAuthThrottle, logger: ServiceLogger,
         trustedProxies: HTTPTrustedProxies, requireReadToken: Bool) {
        self.authenticator = authenticator
        self.throttle = throttle
        self.logger = logger
        self.trustedProxies = trustedProxies
        self.requireReadToken = requireReadToken
    }

    /// What one route's access comes to under this deployment's options. Resolved once, when the route is
    /// registered, so a request pays a switch rather than a look at the options.
    enum Check: Sendable {
        /// Nothing to check: `public`, `evaluation` (its own authorizer decides), `reader` while reads are public.
        case none
        /// A token allowing the role from the in-memory table (on the loop; never SQLite).
        case cached(TokenRole)
        /// A token allowing the role (or `dryRun`'s with `?dryRun=true`) from the store, off the loop; with
        /// `unscoped`, one not limited to some environments.
        case fresh(TokenRole, dryRun: TokenRole?, unscoped: Bool)
    }

    /// The check `access` needs.
    func check(for access: RouteAccess) -> Check {
        switch access {
        case .public, .evaluation: .none
        case .reader: requireReadToken ? .cached(.reader) : .none
        case .token(let role): .fresh(role, dryRun: nil, unscoped: false)
        case .write(let role, let dryRun): .fresh(role, dryRun: dryRun, unscoped: false)
        case .unscoped(let role): .fresh(role, dryRun: nil, unscoped: true)
        }
    }

    /// The decision on the head of a request with a body, before the body is read (on the loop; see
    /// `HTTPHandler.checkHead`): for a route that checks the store, a throttled client gets 429 and a request
    /// without a usable `Authorization` 401 (logged and counted), so neither makes the server hold a body.
    /// The token itself is checked against the store once the body is there, off the loop.
    func checkHead(_ check: Check, _ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        guard case .fresh(let role, _, _) = check else { return nil }
        let client = clientAddress(request, context)
        if let refusal = throttled(client) { return refusal.response }
        do {
            _ = try Authenticator.secret(request, needed: role)
            return nil
        } catch {
            recordFailure(reason: error.message, client: client, request, context)
            return error.response
        }
    }

    /// The token `check` asks for (nil when it asks for none), or the refusal. `.fresh` reads the store:
    /// call it off the loop.
    @inline(__always)
    func authorize(_ check: Check, _ request: HTTPRequest, _ context: HTTPRequestContext) throws(ServiceError) -> TokenRecord? {
        let token: TokenRecord
        var unscoped = false
        switch check {
        case .none:
            return nil
        case .cached(let role):
            token = try authenticate(request, context, role: role, fresh: false)
        case .fresh(let role, let dryRunRole, let allEnvironments):
            let needed = if let dryRunRole, try FlagService.dryRun(request) { dryRunRole } else { role }
            token = try authenticate(request, context, role: needed, fresh: true)
            unscoped = allEnvironments
        }
        let environment = context.pathParameters["env"]
        guard Self.scopeAllows(token, environment: environment) else {
            var refusal = ServiceError(.forbidden, code: "environment_not_allowed",
                                       message: "this token may not use environment '\(environment ?? "")'")
            refusal.actor = token.name
            throw refusal
        }
        if unscoped, let scope = token.environments {
            var refusal = ServiceError(.forbidden, code: "environment_not_allowed",
                                       message: "this spans every environment and needs a token that is not limited to "
                                           + scope.sorted().joined(separator: ", "))
            refusal.actor = token.name
            throw refusal
        }
        return token
    }

    /// The token of a route that declared a role (`token`, `write`): the middleware has authenticated one, so
    /// nil means a route declared without a role that uses one anyway: 500, never a nameless change.
    static func required(_ token: TokenRecord?) throws(ServiceError) -> TokenRecord {
        guard let token else { throw ServiceError(.internalServerError, code: "internal", message: "internal error") }
        return token
    }

    /// THE environment-scope check, for every route with an `{env}` (`environment` nil for routes without
    /// one): whether `token` may use `environment`. A scoped token (`TokenRecord.environments`,
    /// `docs/governance.md`: a staging writer cannot touch production) gets `403 environment_not_allowed` on
    /// any other environment's route. Routes without an `{env}` pass here; admin routes that span
    /// environments (audit, webhooks) declare `RouteAccess.unscoped` and refuse every scoped token in
    /// `authorize`, and `GET /v1/environments` filters its list by this same check. OFREP: `FlagService.mountOFREP` maps the
    /// scope to `OFREPTokenGrant.environments`, which answers 403 the same way.
    static func scopeAllows(_ token: TokenRecord, environment: String?) -> Bool {
        guard let allowed = token.environments, let environment else { return true }
        return allowed.contains(environment)
    }

    /// The client's address: the TCP peer, or what a trusted proxy forwarded (`Options.trustedProxies`).
    func clientAddress(_ request: HTTPRequest, _ context: HTTPRequestContext) -> String {
        trustedProxies.clientAddress(request, peer: context.peer)
    }

    /// The token of `request` if it allows `role`: from the store (`fresh`) or the in-memory table. A client
    /// past the failure limit gets 429 with `Retry-After` before its token is looked at; a 401 is logged
    /// (`event=auth_failed` with the client address, the route and the reason) and counted against the client.
    private func authenticate(_ request: HTTPRequest, _ context: HTTPRequestContext, role: TokenRole,
                              fresh: Bool) throws(ServiceError) -> TokenRecord {
        let client = clientAddress(request, context)
        if let refusal = throttled(client) { throw refusal }
        do {
            return fresh ? try authenticator.requireFresh(request, role: role) : try authenticator.requireCached(request, role: role)
        } catch {
            if error.status == .unauthorized { recordFailure(reason: error.message, client: client, request, context) }
            throw error
        }
    }

    /// The 429 response for a throttled client (OFREP's `admit`), or nil.
    func throttledResponse(_ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        throttled(clientAddress(request, context))?.response
    }

    /// 429 with `Retry-After` while `client` is past the failure limit.
    private func throttled(_ client: String) -> ServiceError? {
        guard let seconds = throttle.retryAfter(client) else { return nil }
        return ServiceError(.tooManyRequests, code: "too_many_failed_authentications",
                            message: "too many failed authentications from \(client); retry in \(seconds) s",
                            headers: [.retryAfter: String(seconds)])
    }

    /// Counts a failed authentication against `client` and logs it with `reason` (never the token).
    func recordFailure(reason: String, client: String, _ request: HTTPRequest, _ context: HTTPRequestContext) {
        let failures = throttle.recordFailure(client)
        logger.log(.warning, "auth_failed", [
            "client": client, "peer": context.peer.description, "method": request.method.rawValue,
            "path": request.path, "reason": reason, "failures": "\(failures)",
        ])
    }
}
