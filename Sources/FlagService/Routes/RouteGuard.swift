import FlagStore
import HTTPServer

/// The middleware every route of the API runs through (Hummingbird's idea: authorization declared on the
/// route, not called inside each handler). It enforces the route's `RouteAccess` and hands the handler the
/// authenticated token: the token check first, then, only for a failure, the failed-authentication throttle
/// (401 with a log line up to its limit, 429 past it; never the token itself), 403 for a role too low or an
/// environment out of scope.
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
        /// Nothing to check: `public`, `evaluation` (its own authorizer decides), `signedPayload` (the handler verifies
        /// the body's signature), `reader` while reads are public.
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
        case .public, .evaluation, .signedPayload: .none
        case .reader: requireReadToken ? .cached(.reader) : .none
        case .token(let role): .fresh(role, dryRun: nil, unscoped: false)
        case .write(let role, let dryRun): .fresh(role, dryRun: dryRun, unscoped: false)
        case .unscoped(let role): .fresh(role, dryRun: nil, unscoped: true)
        }
    }

    /// The decision on the head of a request with a body, before the body is read (on the loop; see
    /// `HTTPHandler.checkHead`): for a route that checks the store, a request without a usable `Authorization`,
    /// or with a token the in-memory table does not know, is refused (401, or 429 past the failure limit; logged
    /// and counted), so an invented token makes the server hold no body. A known token passes; it is checked
    /// against the store (revocation, role, scope) once the body is there, off the loop. A token missing from the
    /// table while a token was created or revoked since the table was read (`flagserver token create` runs in another
    /// process) passes too unless its address is past the failure limit, and the table is reloaded.
    func checkHead(_ check: Check, _ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        guard case .fresh(let role, _, _) = check else { return nil }
        do throws(ServiceError) {
            let secret = try Authenticator.secret(request, needed: role)
            switch authenticator.headLookup(secret: secret) {
            case .known:
                return nil
            case .unsure where throttle.retryAfter(clientAddress(request, context)) == nil:
                // The database changed since the table was read (a token may have been created by another
                // process): the body is read and the store decides, as for a known token.
                return nil
            case .unsure, .unknown:
                throw ServiceError.unauthorized("unknown or revoked token", invalidToken: true)
            }
        } catch {
            return failed(error, clientAddress(request, context), request, context).response
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
            let needed = if let dryRunRole, try RouteAccess.dryRun(request) { dryRunRole } else { role }
            token = try authenticate(request, context, role: needed, fresh: true)
            unscoped = allEnvironments
        }
        try Self.requireScope(token, environment: context.pathParameters["env"])
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
    /// `authorize`, and `GET /v1/environments` filters its list by this same check. OFREP: `OFREPController` maps the
    /// scope to `OFREPTokenGrant.environments`, which answers 403 the same way.
    static func scopeAllows(_ token: TokenRecord, environment: String?) -> Bool {
        guard let allowed = token.environments, let environment else { return true }
        return allowed.contains(environment)
    }

    /// ``scopeAllows(_:environment:)`` or `403 environment_not_allowed` naming the token: for the route's `{env}`, and
    /// for the environment of a record a route reads by id (a change, a guard). No token (reads are public): allowed.
    static func requireScope(_ token: TokenRecord?, environment: String?) throws(ServiceError) {
        guard let token, !scopeAllows(token, environment: environment) else { return }
        var refusal = ServiceError(.forbidden, code: "environment_not_allowed",
                                   message: "this token may not use environment '\(environment ?? "")'")
        refusal.actor = token.name
        throw refusal
    }

    /// The client's address: the TCP peer, or what a trusted proxy forwarded (`Options.trustedProxies`).
    func clientAddress(_ request: HTTPRequest, _ context: HTTPRequestContext) -> String {
        trustedProxies.clientAddress(request, peer: context.peer)
    }

    /// The token of `request` if it allows `role`: from the store (`fresh`) or the in-memory table. The
    /// throttle is asked only after a failure, so a valid token is served whatever its address did before. A
    /// fresh check of a token the table does not know, from an address already past the failure limit, is
    /// refused without reading the store (a token created since the last table reload may meet that once).
    private func authenticate(_ request: HTTPRequest, _ context: HTTPRequestContext, role: TokenRole,
                              fresh: Bool) throws(ServiceError) -> TokenRecord {
        do throws(ServiceError) {
            if fresh {
                let secret = try Authenticator.secret(request, needed: role)
                // A head already looked the token up (`checkHead`); a request without a body did not.
                if !context.headAccepted, authenticator.cachedRecord(secret: secret) == nil,
                   throttle.retryAfter(clientAddress(request, context)) != nil {
                    throw ServiceError.unauthorized("unknown or revoked token", invalidToken: true)
                }
                return try authenticator.requireFresh(request, role: role)
            }
            return try authenticator.requireCached(request, role: role)
        } catch {
            guard error.status == .unauthorized else { throw error }
            throw failed(error, clientAddress(request, context), request, context)
        }
    }

    /// A failed authentication (`error`, a 401) of `client`: counted by the throttle, and answered with the 401
    /// (logged as `auth_failed` with the reason, never the token) up to the limit, then with 429 and
    /// `Retry-After` (one `auth_throttled` line per address and window, every one counted in `/metrics`).
    func failed(_ error: ServiceError, _ client: String, _ request: HTTPRequest, _ context: HTTPRequestContext) -> ServiceError {
        switch throttle.recordFailure(client) {
        case .unauthorized(let failures):
            log("auth_failed", reason: error.message, failures: failures, client: client, request, context)
            return error
        case .refused(let seconds, let first):
            if first {
                log("auth_throttled", reason: "more than \(throttle.limit) failed authentications; refused with 429 for \(seconds) s",
                    failures: throttle.limit + 1, client: client, request, context)
            }
            return ServiceError(.tooManyRequests, code: "too_many_failed_authentications",
                                message: "too many failed authentications from \(client); retry in \(seconds) s",
                                headers: [.retryAfter: String(seconds)])
        }
    }

    /// OFREP's 401 (`reason`) for `request`: the same count and log, and the 429 past the limit (as a response
    /// to send instead), or nil to send the 401.
    func unauthorizedOFREP(reason: String, _ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse? {
        let answer = failed(ServiceError.unauthorized(reason, invalidToken: true), clientAddress(request, context), request, context)
        return answer.status == .tooManyRequests ? answer.response : nil
    }

    private func log(_ event: String, reason: String, failures: Int, client: String, _ request: HTTPRequest,
                     _ context: HTTPRequestContext) {
        logger.log(.warning, event, [
            "client": client, "peer": context.peer.description, "method": request.method.rawValue,
            "path": request.path, "reason": reason, "failures": "\(failures)",
        ])
    }
}
