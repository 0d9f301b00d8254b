import FlagKit
import FlagOFREP
import HTTPServer

/// OFREP (`docs/ofrep.md`, module `FlagOFREP`) mounted on the service: evaluated by FlagKit against the same
/// in-memory snapshots that `GET .../document` serves, so no request on this path touches the store.
struct OFREPController: RouteController {
    /// What every evaluation reads.
    let snapshots: SnapshotStore
    /// The in-memory token table, asked when reads need a token.
    let authenticator: Authenticator
    /// The failed-authentication log and throttle of the core API.
    let routeGuard: RouteGuard
    /// Default environment and rate limit.
    let options: FlagService.OFREPOptions
    /// Whether evaluations need a reader token.
    let requireReadToken: Bool
    /// Proxies whose forwarded address is the client's (for the rate limit).
    let trustedProxies: HTTPTrustedProxies

    func addRoutes(to routes: inout ServiceRoutes) {
        var authorize: (@Sendable (HTTPRequest, String) -> OFREPAccess)?
        if requireReadToken {
            // Both of the spec's schemes (Bearer and X-API-Key) are checked, and every credential
            // presented must be a live reader token: none is silently ignored.
            authorize = OFREPTokenAuthorizer { [authenticator] secret in
                guard let record = authenticator.cachedRecord(secret: secret), record.role.allows(.reader) else { return .unknown }
                // The scope `RouteGuard.scopeAllows` checks for the API's routes.
                return record.environments.map { .environments($0) } ?? .allEnvironments
            }.closure
        }
        let limiter = options.rateLimit.flatMap { TokenBucketRateLimiter(rate: $0, burst: options.rateBurst) }
        var configuration = OFREPRouteConfiguration(
            defaultEnvironment: options.defaultEnvironment,
            snapshot: { [snapshots] environment in snapshots.snapshot(environment)?.ofrep },
            authorize: authorize,
            rateLimiter: limiter,
            trustedProxies: trustedProxies)
        // The same failed-authentication log and throttle as the core API's, asked only after a failure.
        configuration.onUnauthorized = { [routeGuard] request, context, reason in
            routeGuard.unauthorizedOFREP(reason: reason, request, context)
        }
        configuration.eventStreamPath = { DocumentsController.eventsPath($0) }
        // Evaluation routes: POST, yet they change nothing; OFREP's authorizer above is their access check.
        for route in OFREPRoutes.routes(configuration: configuration) {
            let handler = route.handler
            // The head check refuses an unknown token before the evaluation context (the body) is read.
            routes.sync(.POST, route.pattern, access: .evaluation, head: route.checkHead) { request, context, _ in
                try handler(request, context)
            }
        }
    }
}

extension FlagService {
    /// OFREP settings a deployment can change.
    public struct OFREPOptions: Sendable {
        /// The environment served at `/ofrep/v1/...`; any environment is reachable under
        /// `/v1/environments/{env}/ofrep/v1/...`.
        public var defaultEnvironment: String = "production"
        /// Evaluations per second per client (its verified token, else its address); nil: no limit.
        public var rateLimit: Double?
        /// How many requests a client may send at once before the rate applies.
        public var rateBurst: Double = 50

        /// Defaults: production, no rate limit.
        public init(defaultEnvironment: String = "production", rateLimit: Double? = nil, rateBurst: Double = 50) {
            self.defaultEnvironment = defaultEnvironment
            self.rateLimit = rateLimit
            self.rateBurst = rateBurst
        }
    }
}
