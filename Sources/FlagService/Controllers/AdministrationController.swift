import FlagStore
import HTTPServer

/// The administration of the server: API tokens (`AdministrationController+Tokens`), webhooks and their
/// delivery log (`+Webhooks`), and the audit log (`+Audit`). Every route here needs an unscoped admin token:
/// each spans environments, and tokens and webhooks can reach every one.
struct AdministrationController: RouteController {
    /// Tokens, webhooks and the audit log.
    let store: FlagStore
    /// The environments a token's or webhook's scope may name.
    let snapshots: SnapshotStore
    /// The in-memory token table, reloaded at once when a token is created or revoked.
    let authenticator: Authenticator
    /// Its receivers are reloaded at once when a webhook is created or deleted.
    let webhooks: WebhookDispatcher
    /// The client's address for the audit.
    let routeGuard: RouteGuard
    /// Structured logs.
    let logger: ServiceLogger

    func addRoutes(to routes: inout ServiceRoutes) {
        addAudit(to: &routes)
        addWebhooks(to: &routes)
        addTokens(to: &routes)
    }
}
