import FlagKit
import FlagStore
import HTTPServer

/// `/healthz`, `/readyz`, `/metrics`.
extension FlagService {
    func registerOperations(into routes: inout ServiceRoutes) {
        // Liveness: the process answers HTTP. Nothing else is checked, so a slow disk never gets it killed.
        routes.sync(.GET, "/healthz") { _, _ in
            Self.json(["status": "ok"])
        }

        // Readiness: the database answers a query (off the loop: it may wait for SQLite).
        routes.deferred(.GET, "/readyz") { [self] _, _, responder in
            offLoop(responder) { [self] in
                do {
                    try store.ping()
                } catch {
                    logger.log(.warning, "not_ready", ["error": "\(error)"])
                    throw ServiceError(.serviceUnavailable, code: "not_ready", message: "the database does not answer",
                                       headers: ["Retry-After": "1"])
                }
                var versions: [String: JSONValue] = [:]
                for (name, snapshot) in snapshots.all() { versions[name] = .integer(Int64(snapshot.version)) }
                return Self.json(["status": "ready", "versions": .object(versions)])
            }
        }

        routes.sync(.GET, "/metrics") { [self] _, _ in
            HTTPResponse.text(metrics.render(snapshots: snapshots.all(), server: serverMetrics()),
                              headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"])
        }
    }
}
