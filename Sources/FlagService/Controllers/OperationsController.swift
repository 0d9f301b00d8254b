import FlagKit
import FlagStore
import HTTPServer
import ServerLock

/// What operators and the console ask the server itself: `/healthz`, `/readyz`, `/metrics`, the console's
/// static files (`/console`) and who a token is (`/v1/whoami`).
struct OperationsController: RouteController {
    /// What `/readyz` asks about writes.
    let store: FlagStore
    /// The versions `/readyz` and `/metrics` report.
    let snapshots: SnapshotStore
    /// The writes' health.
    let writer: WriteQueue
    /// `/readyz`'s ping of the database.
    let readiness: ReadinessProbe
    /// Since when the node cannot reach the shared database, for `/readyz` and `/metrics`.
    let reachability: DatabaseReachability
    /// Counters for `/metrics`.
    let metrics: ServiceMetrics
    /// The failed-authentication throttle's counters, for `/metrics`.
    let routeGuard: RouteGuard
    /// Structured logs.
    let logger: ServiceLogger
    /// The server `FlagService.attach` gave, for its connection counters in `/metrics`.
    let server: PThreadMutex<HTTPServer?>
    /// The console's files (nil: `/console` answers 404 "not installed").
    let console: ConsoleAssets?
    /// Whether reads need a token, which `/v1/whoami` tells the console.
    let requireReadToken: Bool

    func addRoutes(to routes: inout ServiceRoutes) {
        // Liveness: the process answers HTTP. Nothing else is checked, so a slow disk never gets it killed.
        routes.sync(.GET, "/healthz", access: .public) { _, _, _ in
            Self.json(["status": "ok"])
        }

        // Readiness: the database answers a query (off the loop, and within `ReadinessProbe.patience` whatever the
        // database does: a probe must not hang on a connect to a server that does not answer) AND writes can
        // commit (the last commit did not fail, the filesystem is neither read-only nor full). Degraded writes
        // are a 503 whose body says reads still work, so a probe can tell the two apart.
        routes.deferred(.GET, "/readyz", access: .public) { [self] _, _, _, _ in
            let unavailable: String?
            switch readiness.check() {
            case .answered:
                unavailable = nil
            case .failed(FlagStoreError.unavailable(let cause)):
                // PostgreSQL is gone (or a failover is under way): every node still serves its snapshots.
                unavailable = "\(cause)"
            case .failed(let error):
                logger.log(.warning, "not_ready", ["error": "\(error)"])
                throw ServiceError(.serviceUnavailable, code: "not_ready", message: "the database does not answer",
                                   headers: [.retryAfter: "1"])
            case .noAnswer(let patience):
                unavailable = "the database did not answer within \(patience)"
            }
            if let unavailable {
                logger.log(.warning, "database_unavailable", ["error": unavailable])
                var versions: [String: JSONValue] = [:]
                for (name, snapshot) in snapshots.all() { versions[name] = .integer(Int64(snapshot.version)) }
                return Self.json([
                    "status": "degraded", "reads": "ok", "writes": "failing", "versions": .object(versions),
                    "writeError": .string(unavailable),
                    "databaseUnreachableSeconds": reachability.unreachableSeconds().map { .integer(Int64($0)) } ?? .null,
                    "error": .object(["code": "database_unavailable",
                                      "message": "reads are served from memory; the database is unavailable, writes fail until it is back"]),
                ], status: .serviceUnavailable, headers: [.retryAfter: "1"])
            }
            var versions: [String: JSONValue] = [:]
            for (name, snapshot) in snapshots.all() { versions[name] = .integer(Int64(snapshot.version)) }
            guard let problem = writer.health.problem(store: store) else {
                return Self.json(["status": "ready", "reads": "ok", "writes": "ok", "versions": .object(versions)])
            }
            logger.log(.warning, "writes_degraded", ["error": problem.reason])
            var body: [String: JSONValue] = [
                "status": "degraded", "reads": "ok", "writes": "failing", "versions": .object(versions),
                "writeError": .string(problem.reason),
                "error": .object(["code": "writes_failing", "message": .string("reads are served; writes cannot commit: \(problem.reason)")]),
            ]
            if let failure = problem.failure { body["lastWriteFailedAt"] = .string(RFC3339.string(milliseconds: failure.atMilliseconds)) }
            return Self.json(body, status: .serviceUnavailable, headers: [.retryAfter: "5"])
        }

        routes.sync(.GET, "/metrics", access: .public) { [self] _, _, _ in
            HTTPResponse.text(metrics.render(snapshots: snapshots.all(), server: server.withLock { $0 }?.metrics(),
                                             databaseUnreachableSeconds: reachability.unreachableSeconds() ?? 0)
                                + routeGuard.throttle.exposition(),
                              headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"])
        }
        addConsole(to: &routes)
        addWhoami(to: &routes)
    }

    /// `GET /console`, `/console/` and `/console/{file}`: the ops console's static files (`docs/console.md`),
    /// answered on the loop thread from the responses `ConsoleAssets` built at start.
    private func addConsole(to routes: inout ServiceRoutes) {
        let assets = console
        let index: ServiceRoutes.SyncBody = { _, _, _ in
            assets?.response(for: ConsoleAssets.indexFile) ?? ConsoleAssets.notInstalled()
        }
        // Public: static files only; everything the console does goes through the API with the signed-in token.
        routes.sync(.GET, "/console", access: .public, index)
        routes.sync(.GET, "/console/", access: .public, index)
        routes.sync(.GET, "/console/{file}", access: .public) { _, context, _ in
            guard let assets else { return ConsoleAssets.notInstalled() }
            return assets.response(for: context.pathParameters["file"] ?? "")
        }
    }

    /// `GET /v1/whoami`: the name, role and environments of the bearer token, so the console can say who is signed
    /// in and offer only what the role and scope allow. Checked against the database (like writes), so a revoked
    /// token is refused at once rather than after the read-token table's next reload.
    private func addWhoami(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/whoami", access: .token(.reader)) { [requireReadToken] _, _, token, _ in
            let token = try RouteGuard.required(token)
            // `environments`: the token's scope, null for every environment (docs/governance.md, "Scoped tokens").
            let scope: JSONValue = token.environments.map { .array($0.sorted().map(JSONValue.string)) } ?? .null
            return Self.json(["name": .string(token.name), "role": .string(token.role.rawValue), "environments": scope,
                              "readsArePublic": .bool(!requireReadToken)],
                             headers: [.cacheControl: "no-store", .vary: HTTPHeaderName.authorization.rawValue])
        }
    }
}
