import Dispatch
import FlagStore
import HTTPServer

/// The API's route table under construction: the only way a route gets into `FlagService.makeRouter()`, where
/// each `RouteController` adds its routes.
///
/// Every registration names the route's `RouteAccess` (and a write route its `RouteAudit`), and every route
/// runs through the `RouteGuard` middleware, which authenticates before the handler and hands it the token (nil
/// where none is needed).
/// Every response is counted in `/metrics` by route and status, with its latency (streams by the server's
/// counters). Refusals of write routes become audit lines (`RouteAudit`). `build()` refuses a table where an
/// unsafe method has no role, a write route has no audit action, or a route would read the store for its token
/// on the loop thread.
struct ServiceRoutes: Sendable {
    /// A handler on the loop thread: no SQLite, no I/O.
    typealias SyncBody = @Sendable (HTTPRequest, HTTPRequestContext, TokenRecord?) throws -> HTTPResponse
    /// A handler on the work queue: returns the response, or nil when it handed the responder on (to the writer).
    typealias DeferredBody = @Sendable (HTTPRequest, HTTPRequestContext, TokenRecord?, HTTPResponder) throws -> HTTPResponse?
    /// A handler on the loop thread that keeps the connection's own responder (to open a stream).
    typealias StreamBody = @Sendable (HTTPRequest, HTTPRequestContext, TokenRecord?, HTTPResponder) throws -> Void

    private var builder = HTTPRouter.Builder()
    /// Where the counters go.
    let metrics: ServiceMetrics
    /// The middleware of every route.
    let routeGuard: RouteGuard
    /// Where deferred handlers (and their store reads for tokens) run.
    let work: DispatchQueue
    /// Where refusals' audit lines go (the next group commit).
    let writer: WriteQueue
    /// Registrations that must not be built, with the reason.
    private var refusals: [String] = []

    init(metrics: ServiceMetrics, routeGuard: RouteGuard, work: DispatchQueue, writer: WriteQueue) {
        self.metrics = metrics
        self.routeGuard = routeGuard
        self.work = work
        self.writer = writer
    }

    /// A route answered on the event-loop thread (it must not block). A thrown `ServiceError` or `HTTPError`
    /// is sent as its JSON response; anything else becomes 500. `access` must not read the store. `head`, if
    /// given, decides on the head of a request with a body before the body is read (OFREP's authorizer).
    mutating func sync(_ method: HTTPMethod, _ pattern: String, access: RouteAccess,
                       head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil, _ body: @escaping SyncBody) {
        declare(method, pattern, access, audit: nil, onLoop: true)
        builder.add(method, pattern, handler: GuardedSyncHandler(route: metrics.route(method.rawValue, pattern),
                                                                 guarded: GuardedAccess(access, routeGuard), head: head, body: body))
    }

    /// A route answered on the work queue: the middleware authenticates there (a store read for `token` and
    /// `write`), then `body` runs and answers (or hands the responder on and returns nil). For `token` and
    /// `write` access, a request with a body is refused from its head (429, 401) before the body is read.
    /// A write route (an unsafe method with a token role) must name its `audit`: its refusals (from its head,
    /// the middleware, the handler or the writer) become audit lines with that action, unless it is exempt.
    /// `head`, if given, decides on the head of a request with a body after the middleware's own head check, on the
    /// loop (it must not block): a response to send instead, the body unread.
    mutating func deferred(_ method: HTTPMethod, _ pattern: String, access: RouteAccess, audit: RouteAudit? = nil,
                           head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil,
                           _ body: @escaping DeferredBody) {
        declare(method, pattern, access, audit: audit, onLoop: false)
        let auditor = audit?.auditedAction.map { RouteAuditor(action: $0, writer: writer, routeGuard: routeGuard) }
        builder.add(method, pattern, handler: GuardedDeferredHandler(route: metrics.route(method.rawValue, pattern),
                                                                     guarded: GuardedAccess(access, routeGuard), work: work,
                                                                     audit: audit, auditor: auditor, head: head, body: body))
    }

    /// Gives `path` a body limit of its own below the server's `--max-body-bytes`, refused with 413 on the head
    /// (`HTTPBodyLimit`): for a route anyone may call, whose bodies are small.
    mutating func limitBody(path: String, maxBytes: Int) {
        builder.limitBody(path: path, maxBytes: maxBytes)
    }

    /// A route that keeps the connection's responder (an event stream: `HTTPResponder.openStream`), on the
    /// loop thread. Not counted per route: the instrumented responder is a callback that cannot stream.
    mutating func stream(_ method: HTTPMethod, _ pattern: String, access: RouteAccess, _ body: @escaping StreamBody) {
        declare(method, pattern, access, audit: nil, onLoop: true)
        builder.add(method, pattern, handler: GuardedStreamHandler(guarded: GuardedAccess(access, routeGuard), body: body))
    }

    /// Records why a registration must not be built, if it must not.
    private mutating func declare(_ method: HTTPMethod, _ pattern: String, _ access: RouteAccess, audit: RouteAudit?,
                                  onLoop: Bool) {
        if let refusal = access.refusal(for: method) { refusals.append("\(method) \(pattern): \(refusal)") }
        if let refusal = RouteAudit.refusal(method, pattern, access, audit: audit) { refusals.append(refusal) }
        if onLoop && access.checksStore {
            refusals.append("\(method) \(pattern): \(access) reads the store and cannot be checked on the loop thread")
        }
    }

    /// Freezes the table; refuses it (a `router` error) when a registration above was not allowed.
    func build() throws(HTTPError) -> HTTPRouter {
        if let refusal = refusals.first { throw HTTPError(.internalServerError, code: "router", message: refusal) }
        return try builder.build()
    }

    /// The response for any error a handler threw.
    static func response(for error: any Error) -> HTTPResponse {
        switch error {
        case let error as ServiceError: error.response
        case let error as HTTPError: error.response
        default: ServiceError(.internalServerError, code: "internal", message: "internal error").response
        }
    }

    /// Nanoseconds since `start` on the monotonic clock (0 when `start` is unknown).
    static func elapsed(since start: UInt64) -> UInt64 {
        guard start > 0 else { return 0 }
        let now = ServiceMetrics.monotonicNanoseconds()
        return now > start ? now - start : 0
    }
}

/// What every guarded handler holds: the route's declared access, the check it comes to under this
/// deployment (resolved once, at registration), and the middleware that runs it.
struct GuardedAccess: Sendable {
    let access: RouteAccess
    let check: RouteGuard.Check
    let routeGuard: RouteGuard

    init(_ access: RouteAccess, _ routeGuard: RouteGuard) {
        self.access = access
        check = routeGuard.check(for: access)
        self.routeGuard = routeGuard
    }

    /// The token the access asks for (nil when none), or the refusal (`RouteGuard.authorize`).
    @inline(__always)
    func token(_ request: HTTPRequest, _ context: HTTPRequestContext) throws(ServiceError) -> TokenRecord? {
        try routeGuard.authorize(check, request, context)
    }
}

/// A route's handler as the router holds it: its declared access and audit can be read back (the route table test).
protocol GuardedRoute: HTTPHandler {
    /// The access and the middleware.
    var guarded: GuardedAccess { get }
    /// What the route's refusals are audited as (nil: a route that declared none).
    var audit: RouteAudit? { get }
}

extension GuardedRoute {
    /// Who may call the route.
    var access: RouteAccess { guarded.access }
    /// Routes on the loop thread declare no audit: a write checks its token in the store, off the loop.
    var audit: RouteAudit? { nil }
}

/// Authorizes, runs a synchronous body and records its status and latency without any allocation of its own.
/// A final class so that calling it through `any HTTPHandler` costs one retain, not a copy of each field.
final class GuardedSyncHandler: GuardedRoute, Sendable {
    let route: ServiceMetrics.Route
    let guarded: GuardedAccess
    let head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)?
    let body: ServiceRoutes.SyncBody

    init(route: ServiceMetrics.Route, guarded: GuardedAccess, head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil,
         body: @escaping ServiceRoutes.SyncBody) {
        self.route = route
        self.guarded = guarded
        self.head = head
        self.body = body
    }

    func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? {
        guard let head, let refusal = head(request, context) else { return nil }
        route.record(status: refusal.status.code, nanoseconds: ServiceRoutes.elapsed(since: context.receivedAtNanoseconds), loop: context.eventLoop)
        return refusal
    }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        let response: HTTPResponse
        do {
            // Public routes and reads while reads are public (the document GET) pass no token: nothing to build.
            if case .none = guarded.check {
                response = try body(request, context, nil)
            } else {
                response = try body(request, context, try guarded.token(request, context))
            }
        } catch {
            response = ServiceRoutes.response(for: error)
        }
        route.record(status: response.statusCode, nanoseconds: ServiceRoutes.elapsed(since: context.receivedAtNanoseconds),
                     loop: context.eventLoop)
        responder.respond(response)
    }
}

/// Refuses heads on the loop, then authorizes and runs the body on the work queue, with a responder that
/// records status and latency (and, for a write route, the audit line of a refusal) when it is finally called.
/// A final class for the same reason as above.
final class GuardedDeferredHandler: GuardedRoute, Sendable {
    let route: ServiceMetrics.Route
    let guarded: GuardedAccess
    let work: DispatchQueue
    /// What the route declared its refusals audited as.
    let audit: RouteAudit?
    /// Audits refusals; nil for routes that are not writes, or exempt.
    let auditor: RouteAuditor?
    /// The route's own decision on a head, after the middleware's.
    let head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)?
    let body: ServiceRoutes.DeferredBody

    init(route: ServiceMetrics.Route, guarded: GuardedAccess, work: DispatchQueue, audit: RouteAudit? = nil,
         auditor: RouteAuditor? = nil, head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil,
         body: @escaping ServiceRoutes.DeferredBody) {
        self.route = route
        self.guarded = guarded
        self.work = work
        self.audit = audit
        self.auditor = auditor
        self.head = head
        self.body = body
    }

    func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? {
        guard let refusal = guarded.routeGuard.checkHead(guarded.check, request, context) ?? head?(request, context) else {
            return nil
        }
        route.record(status: refusal.status.code, nanoseconds: ServiceRoutes.elapsed(since: context.receivedAtNanoseconds), loop: context.eventLoop)
        auditor?.record(refusal, actor: nil, request, context)
        return refusal
    }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        work.async { [self] () -> Void in
            let token: TokenRecord?
            do throws(ServiceError) {
                token = try guarded.token(request, context)
            } catch {
                finish(error.response, actor: error.actor, request, context, responder)
                return
            }
            // The responder the body answers with, now or later from the writer thread.
            let counted = HTTPResponder { [self] response in finish(response, actor: token?.name, request, context, responder) }
            do {
                if let response = try body(request, context, token, counted) { counted.respond(response) }
            } catch {
                counted.respond(ServiceRoutes.response(for: error))
            }
        }
    }

    /// Counts the response, audits it when it refuses a write (`actor`: the token's name, nil without a valid
    /// one), and sends it.
    private func finish(_ response: HTTPResponse, actor: String?, _ request: HTTPRequest, _ context: HTTPRequestContext,
                        _ responder: HTTPResponder) {
        route.record(status: response.statusCode, nanoseconds: ServiceRoutes.elapsed(since: context.receivedAtNanoseconds),
                     loop: context.eventLoop)
        auditor?.record(response, actor: actor, request, context)
        responder.respond(response)
    }
}

/// Authorizes on the loop and hands the body the connection's own responder (streams are not counted per route).
final class GuardedStreamHandler: GuardedRoute, Sendable {
    let guarded: GuardedAccess
    let body: ServiceRoutes.StreamBody

    init(guarded: GuardedAccess, body: @escaping ServiceRoutes.StreamBody) {
        self.guarded = guarded
        self.body = body
    }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        do {
            try body(request, context, try guarded.token(request, context), responder)
        } catch {
            responder.respond(ServiceRoutes.response(for: error))
        }
    }
}
