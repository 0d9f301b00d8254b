import FlagKit
import FlagOFREP
import HTTPServer
import Synchronization

/// OFREP (`docs/ofrep.md`) mounted on the service: evaluated by FlagKit against the same in-memory
/// snapshots that `GET .../document` serves, so no request on this path touches SQLite.
extension FlagService {
    /// OFREP settings a deployment can change.
    public struct OFREPOptions: Sendable {
        /// The environment served at `/ofrep/v1/...`; any environment is reachable under
        /// `/v1/environments/{env}/ofrep/v1/...`.
        public var defaultEnvironment: String = "production"
        /// Evaluations per second per client (token or address); nil: no limit.
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

    static func mountOFREP(into routes: inout ServiceRoutes, service: FlagService) {
        let cache = OFREPSnapshotCache()
        let snapshots = service.snapshots
        var authorize: (@Sendable (HTTPRequest, String) -> OFREPAccess)?
        if service.options.requireReadToken {
            // Both of the spec's schemes (Bearer and X-API-Key) are checked, and every credential
            // presented must be a live reader token: none is silently ignored.
            let authenticator = service.authenticator
            authorize = OFREPTokenAuthorizer { secret in
                guard let record = authenticator.cachedRecord(secret: secret), record.role.allows(.reader) else { return .unknown }
                return .allEnvironments
            }.closure
        }
        let limiter = service.options.ofrep.rateLimit.flatMap { TokenBucketRateLimiter(rate: $0, burst: service.options.ofrep.rateBurst) }
        let configuration = OFREPRouteConfiguration(
            defaultEnvironment: service.options.ofrep.defaultEnvironment,
            snapshot: { environment in snapshots.snapshot(environment).map { cache.ofrepSnapshot(for: $0) } },
            authorize: authorize,
            rateLimiter: limiter)
        routes.withBuilder { builder in OFREPRoutes.register(in: &builder, configuration: configuration) }
    }
}

/// The OFREP view of each environment's current snapshot, built once per published version (it
/// hashes the document) and reused by every request until the next publish.
final class OFREPSnapshotCache: Sendable {
    private let entries = Mutex<[String: OFREPSnapshot]>([:])

    func ofrepSnapshot(for snapshot: Snapshot) -> OFREPSnapshot {
        if let cached = entries.withLock({ $0[snapshot.environment] }), cached.version == snapshot.version {
            return cached
        }
        let fresh = OFREPSnapshot(document: snapshot.document, version: snapshot.version, environment: snapshot.environment)
        entries.withLock { entries in
            if (entries[snapshot.environment]?.version ?? 0) <= fresh.version { entries[snapshot.environment] = fresh }
        }
        return fresh
    }
}
