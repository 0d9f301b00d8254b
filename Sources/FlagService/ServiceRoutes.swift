import HTTPServer

/// A route table under construction whose every handler is instrumented: each response is counted in
/// `/metrics` by route and status, with its latency. The core API and OFREP register through this.
public struct ServiceRoutes: Sendable {
    /// The underlying builder (already holding the routes added so far).
    public private(set) var builder = HTTPRouter.Builder()
    /// Where the counters go.
    public let metrics: ServiceMetrics

    /// An empty table counting into `metrics`.
    public init(metrics: ServiceMetrics) { self.metrics = metrics }

    /// A synchronous route: runs on the event-loop thread and must not block (no SQLite, no I/O).
    /// A thrown `ServiceError` or `HTTPError` is sent as its JSON response; anything else becomes 500.
    public mutating func sync(_ method: HTTPMethod, _ pattern: String,
                              _ body: @escaping @Sendable (HTTPRequest, HTTPRequestContext) throws -> HTTPResponse) {
        builder.add(method, pattern, handler: InstrumentedSyncHandler(route: metrics.route(method.rawValue, pattern), body: body))
    }

    /// A deferred route: gets the responder and answers later from any thread (after a commit, a query).
    /// `headCheck`, when given, decides on a request with a body from its head, before the body is read
    /// (see `HTTPHandler.checkHead`): a refusal is sent instead and counted like any response.
    public mutating func deferred(_ method: HTTPMethod, _ pattern: String,
                                  headCheck: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil,
                                  _ body: @escaping @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponder) -> Void) {
        builder.add(method, pattern, handler: InstrumentedDeferredHandler(route: metrics.route(method.rawValue, pattern),
                                                                          headCheck: headCheck, body: body))
    }

    /// Lets a module that registers on a plain builder (OFREP) add its routes. They are counted in
    /// `/metrics` by the server's status counters, not per route.
    public mutating func withBuilder(_ body: (inout HTTPRouter.Builder) -> Void) {
        body(&builder)
    }

    /// Freezes the table.
    public func build() throws(HTTPError) -> HTTPRouter { try builder.build() }

    /// The response for any error a handler threw.
    static func response(for error: any Error) -> HTTPResponse {
        switch error {
        case let error as ServiceError: error.response
        case let error as HTTPError: error.response
        default: ServiceError(.internalServerError, code: "internal", message: "internal error").response
        }
    }
}

/// Runs a synchronous body and records its status and latency without any allocation of its own.
/// A final class so that calling it through `any HTTPHandler` costs one retain, not a copy of each field.
final class InstrumentedSyncHandler: HTTPHandler, Sendable {
    let route: ServiceMetrics.Route
    let body: @Sendable (HTTPRequest, HTTPRequestContext) throws -> HTTPResponse

    init(route: ServiceMetrics.Route, body: @escaping @Sendable (HTTPRequest, HTTPRequestContext) throws -> HTTPResponse) {
        self.route = route
        self.body = body
    }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        let response: HTTPResponse
        do {
            response = try body(request, context)
        } catch {
            response = ServiceRoutes.response(for: error)
        }
        route.record(status: response.status.code, nanoseconds: Self.elapsed(since: context.receivedAtNanoseconds))
        responder.respond(response)
    }

    /// Nanoseconds since `start` on the monotonic clock (0 when `start` is unknown).
    static func elapsed(since start: UInt64) -> UInt64 {
        guard start > 0 else { return 0 }
        let now = ServiceMetrics.monotonicNanoseconds()
        return now > start ? now - start : 0
    }
}

/// Hands the body a responder that records status and latency when it is finally called.
/// A final class for the same reason as `InstrumentedSyncHandler`.
final class InstrumentedDeferredHandler: HTTPHandler, Sendable {
    let route: ServiceMetrics.Route
    let headCheck: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)?
    let body: @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponder) -> Void

    init(route: ServiceMetrics.Route, headCheck: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)? = nil,
         body: @escaping @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponder) -> Void) {
        self.route = route
        self.headCheck = headCheck
        self.body = body
    }

    func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? {
        guard let refusal = headCheck?(request, context) else { return nil }
        route.record(status: refusal.status.code, nanoseconds: InstrumentedSyncHandler.elapsed(since: context.receivedAtNanoseconds))
        return refusal
    }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        let route = self.route
        let start = context.receivedAtNanoseconds
        let counted = HTTPResponder { response in
            route.record(status: response.status.code, nanoseconds: InstrumentedSyncHandler.elapsed(since: start))
            responder.respond(response)
        }
        body(request, context, counted)
    }
}
