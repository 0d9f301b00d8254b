import FlagStore
import HTTPServer

/// Who may call a route. Every route declares it where it is registered (`ServiceRoutes`), and the route's
/// middleware (`RouteGuard`) enforces it before the handler runs: handlers never authenticate, they get the
/// authenticated token, and a new route cannot forget to ask for one (the table refuses an unsafe method
/// without a role, and `FlagServiceRouteTableTests` lists every route with its access).
public enum RouteAccess: Sendable, Equatable, CustomStringConvertible {
    /// Anyone: probes, metrics, the console's static files. Not allowed for unsafe methods.
    case `public`
    /// A read: a `reader` token only with `--require-read-token`, checked against the in-memory token table
    /// (never SQLite, so it may run on the loop: the document GET is the hot path). Not allowed for unsafe methods.
    case reader
    /// Always a token allowing `role`, checked against the store (fresh: a revoked token is refused at once),
    /// so only on routes that run off the loop.
    case token(TokenRole)
    /// A write: a token allowing `role`, or only `dryRun` with `?dryRun=true` (which validates and diffs,
    /// publishing nothing). Checked fresh, off the loop, like `token`.
    case write(TokenRole, dryRun: TokenRole)
    /// Like `token`, for a route that spans environments (the audit log, webhooks): a token limited to some
    /// environments (`TokenRecord.environments`) gets `403 environment_not_allowed` even with the role.
    case unscoped(TokenRole)
    /// An evaluation route whose own authorizer decides (OFREP: `OFREPRouteConfiguration.authorize`, reader
    /// tokens when reads need one). `POST` because the evaluation context travels in the body, yet nothing
    /// changes; the one kind of route with an unsafe method and no role here.
    case evaluation
    /// A route anyone may call whose body carries its own proof: a signature the handler verifies against
    /// configured roots before anything is kept (App Store Server Notifications: Apple's server holds no token).
    /// Allowed for an unsafe method, which must then name its audit (`RouteAudit`) like a write with a role.
    case signedPayload

    /// `public`, `reader`, `token(writer)`, `write(writer, dryRun: reader)`, `unscoped(admin)`, `evaluation`,
    /// `signedPayload`.
    public var description: String {
        switch self {
        case .public: "public"
        case .reader: "reader"
        case .token(let role): "token(\(role.rawValue))"
        case .write(let role, let dryRun): "write(\(role.rawValue), dryRun: \(dryRun.rawValue))"
        case .unscoped(let role): "unscoped(\(role.rawValue))"
        case .evaluation: "evaluation"
        case .signedPayload: "signedPayload"
        }
    }

    /// Whether the access is checked against the store (so the handler must run off the loop).
    var checksStore: Bool {
        switch self {
        case .token, .write, .unscoped: true
        case .public, .reader, .evaluation, .signedPayload: false
        }
    }

    /// Whether an unsafe method with this access must name its audit (`RouteAudit`): a token role's writes, and a
    /// signed payload's (it changes what is stored without an operator's token, so what its refusals become is
    /// decided on purpose).
    var requiresAudit: Bool {
        switch self {
        case .token, .write, .unscoped, .signedPayload: true
        case .public, .reader, .evaluation: false
        }
    }

    /// Why the access does not fit `method`, or nil. An unsafe method (RFC 9110 §9.2.1: anything but GET,
    /// HEAD, OPTIONS, TRACE) changes state or costs real work, so it needs a role (`token`, `write`) unless
    /// it is declared an evaluation route; `public` and `reader` (public when reads are) are for safe ones.
    func refusal(for method: HTTPMethod) -> String? {
        switch self {
        case .public, .reader:
            return method.isSafe ? nil : "\(method) is unsafe (RFC 9110 §9.2.1) and needs a token role, not \(self)"
        case .token, .write, .unscoped, .evaluation, .signedPayload:
            return nil
        }
    }

    /// Whether the request asks for a dry run (`?dryRun=true`, `1` or empty), which `write` lets its lesser role
    /// make; 400 `invalid_parameter` for any other value.
    static func dryRun(_ request: HTTPRequest) throws(ServiceError) -> Bool {
        switch request.queryParameter("dryRun") {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        case let other?: throw .badRequest("invalid_parameter", "dryRun must be true or false, got '\(other)'")
        }
    }
}
