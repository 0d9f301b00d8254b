import FlagKit
import FlagStore
import HTTPServer

/// `/healthz`, `/readyz`, `/metrics`.
extension FlagService {
    func registerOperations(into routes: inout ServiceRoutes) {
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
            HTTPResponse.text(metrics.render(snapshots: snapshots.all(), server: serverMetrics()) + routeGuard.throttle.exposition(),
                              headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"])
        }
    }
}
