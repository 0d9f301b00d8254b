import FlagKit
import HTTPServer

/// What an authorization check decides for an OFREP request.
public enum OFREPAccess: Sendable, Equatable {
    /// Serve it.
    case allowed
    /// 401: no credentials, or ones the server does not know (sent with `WWW-Authenticate: Bearer`).
    case unauthorized(String)
    /// 403: known credentials without permission for this environment.
    case forbidden(String)
}

/// Everything the OFREP routes need from the service that mounts them.
public struct OFREPRouteConfiguration: Sendable {
    /// The environment served at `/ofrep/v1/...` (without an environment in the path).
    public var defaultEnvironment: String
    /// The current snapshot of an environment, nil when there is no such environment (404).
    /// Called once per request on the loop thread: it must be a cheap, non-blocking read.
    public var snapshot: @Sendable (_ environment: String) -> OFREPSnapshot?
    /// Optional authorization, called before anything else with the request and the environment name;
    /// nil serves everyone (the spec's security schemes are optional).
    public var authorize: (@Sendable (_ request: HTTPRequest, _ environment: String) -> OFREPAccess)?
    /// Optional per-client rate limit, applied after authorization (so failed attempts do not use up
    /// a legitimate client's tokens); the client is its verified token (only with `authorize`), else its
    /// IP address (see `clientKey`).
    public var rateLimiter: TokenBucketRateLimiter?
    /// Proxies whose `X-Forwarded-For`/`X-Real-IP` name the client for the rate limit.
    public var trustedProxies: HTTPTrustedProxies
    /// Told about every 401 `authorize` decides, with its reason (to log and count it; never the token): a
    /// response to send instead (the service's failed-authentication throttle answers 429 past its limit), or
    /// nil to send the 401. Never asked about a request `authorize` allows.
    public var onUnauthorized: (@Sendable (_ request: HTTPRequest, _ context: HTTPRequestContext, _ reason: String) -> HTTPResponse?)?
    /// The path of an environment's event stream, announced in bulk responses as `eventStreams` (and
    /// `refreshConnections`); nil announces none and providers keep polling.
    public var eventStreamPath: (@Sendable (_ environment: String) -> String)?
    /// The `inactivityDelaySec` announced with the event stream.
    public var inactivityDelaySec = 120

    /// A configuration.
    public init(
        defaultEnvironment: String,
        snapshot: @escaping @Sendable (_ environment: String) -> OFREPSnapshot?,
        authorize: (@Sendable (_ request: HTTPRequest, _ environment: String) -> OFREPAccess)? = nil,
        rateLimiter: TokenBucketRateLimiter? = nil,
        trustedProxies: HTTPTrustedProxies = .none
    ) {
        self.defaultEnvironment = defaultEnvironment
        self.snapshot = snapshot
        self.authorize = authorize
        self.rateLimiter = rateLimiter
        self.trustedProxies = trustedProxies
        onUnauthorized = nil
    }
}

/// Mounts OFREP on a router. OFREP providers append `/ofrep/v1/evaluate/flags[/{key}]` to their base
/// URL and keep its path, so a base URL of `https://flags.example/v1/environments/staging` selects
/// the staging environment and `https://flags.example` the default one.
public enum OFREPRoutes {
    /// The patterns registered, all `POST` (other methods get the router's 405 with `Allow: POST`).
    public static let patterns = [
        "/ofrep/v1/evaluate/flags",
        "/ofrep/v1/evaluate/flags/{key}",
        "/v1/environments/{env}/ofrep/v1/evaluate/flags",
        "/v1/environments/{env}/ofrep/v1/evaluate/flags/{key}",
    ]

    /// One OFREP route: its pattern, its handler (synchronous: parsing, evaluation and encoding take
    /// microseconds and never block, so they run on the loop thread) and its head check.
    public struct Route: Sendable {
        /// The `POST` pattern.
        public let pattern: String
        /// Answers a complete request.
        public let handler: HTTPSyncHandlerFunction
        /// Decides from the head, before any body byte is read: the authorization refusal (401, 403, or what
        /// `onUnauthorized` answers instead), or nil. The handler does not authorize again a request whose
        /// head this accepted (`HTTPRequestContext.headAccepted`).
        public let checkHead: @Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?
    }

    /// The four OFREP routes, all `POST`, for a service that registers them through its own route table
    /// (FlagService declares their access there and calls each route's head check).
    public static func routes(configuration: OFREPRouteConfiguration) -> [Route] {
        let checkHead: @Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse? = { request, context in
            authorization(request, context, configuration)
        }
        let bulk: HTTPSyncHandlerFunction = { request, context in
            serve(request, context, configuration, key: nil)
        }
        let single: HTTPSyncHandlerFunction = { request, context in
            serve(request, context, configuration, key: context.pathParameters["key"] ?? "")
        }
        return zip(patterns, [bulk, single, bulk, single]).map { Route(pattern: $0, handler: $1, checkHead: checkHead) }
    }

    /// Adds the four OFREP routes to `builder` (a server with only OFREP: `ofrep-test-server`, the tests).
    public static func register(in builder: inout HTTPRouter.Builder, configuration: OFREPRouteConfiguration) {
        for route in routes(configuration: configuration) { builder.add(.POST, route.pattern, handler: OFREPHandler(route: route)) }
    }

    /// The authorization decision as a response to send instead, or nil to serve (also when there is no
    /// authorizer). Reads only the head, so it runs before the body is read and again for a request whose
    /// head was not checked.
    static func authorization(_ request: HTTPRequest, _ context: HTTPRequestContext,
                              _ configuration: OFREPRouteConfiguration) -> HTTPResponse? {
        guard let authorize = configuration.authorize else { return nil }
        switch authorize(request, context.pathParameters["env"] ?? configuration.defaultEnvironment) {
        case .allowed:
            return nil
        case .unauthorized(let message):
            if let instead = configuration.onUnauthorized?(request, context, message) { return instead }
            return HTTPError(.unauthorized, code: "unauthorized", message: message,
                             headers: [.wwwAuthenticate: #"Bearer realm="ofrep""#]).response
        case .forbidden(let message):
            return HTTPError(.forbidden, code: "forbidden", message: message).response
        }
    }

    /// Authorization (unless the head check did it), rate limit, environment lookup, then the evaluator.
    static func serve(_ request: HTTPRequest, _ context: HTTPRequestContext, _ configuration: OFREPRouteConfiguration,
                      key: String?) -> HTTPResponse {
        let environment = context.pathParameters["env"] ?? configuration.defaultEnvironment
        if !context.headAccepted, let refusal = authorization(request, context, configuration) { return refusal }
        if let limiter = configuration.rateLimiter,
           case .limited(let seconds) = limiter.acquire(clientKey(request, context, tokenVerified: configuration.authorize != nil,
                                                                   proxies: configuration.trustedProxies)) {
            return HTTPError(.tooManyRequests, code: "rate_limited",
                             message: "too many OFREP requests; retry in \(seconds) s",
                             headers: [.retryAfter: String(seconds)]).response
        }
        guard let snapshot = configuration.snapshot(environment) else {
            return unknownEnvironment(environment, key: key)
        }
        if let key {
            return OFREPEvaluator.evaluateFlag(key: key, body: request.body, snapshot: snapshot)
        }
        if request.query != nil, let problem = OFREPQuery.problem(in: request.queryItems) {
            return OFREPEvaluator.bulkFailure(problem)
        }
        let stream = configuration.eventStreamPath.map { path in
            OFREPEventStream.forRequest(request, peer: context.peer, path: path(environment),
                                        proxies: configuration.trustedProxies, inactivityDelaySec: configuration.inactivityDelaySec)
        }
        return OFREPEvaluator.evaluateAll(body: request.body, ifNoneMatch: request.headers.values(for: .ifNoneMatch), snapshot: snapshot,
                                          eventStream: stream)
    }

    /// The rate-limit identity of a request. A token is an identity only once it was verified
    /// (`tokenVerified`: an authorizer allowed the request, and it checks every credential presented);
    /// an unverified `Authorization` or `X-API-Key` is text the client chooses, and keyed on it every
    /// invented value would get a fresh bucket. Otherwise the client's IP address (not the port: one
    /// client opens many connections), from a trusted proxy's forwarding fields when `proxies` has the peer.
    public static func clientKey(_ request: HTTPRequest, _ context: HTTPRequestContext, tokenVerified: Bool,
                                 proxies: HTTPTrustedProxies = .none) -> String {
        if tokenVerified {
            if let token = HTTPBearerCredentials(request.headers).token { return "bearer " + token }
            if let apiKey = request.headers[.apiKey], !apiKey.isEmpty { return "api-key " + apiKey }
        }
        return "address " + proxies.clientAddress(request, peer: context.peer)
    }

    /// 404 for an environment that does not exist, in the OFREP error shape (a provider reading the
    /// single-flag answer sees `FLAG_NOT_FOUND`, which is what it is: no such flag there).
    static func unknownEnvironment(_ environment: String, key: String?) -> HTTPResponse {
        var writer = OFREPJSONWriter()
        writer.beginObject()
        if let key { writer.string("key", key) }
        writer.string("errorCode", EvaluationErrorCode.flagNotFound.rawValue)
        writer.string("errorDetails", "environment '\(environment)' does not exist")
        writer.endObject()
        return .json(writer.bytes, status: .notFound)
    }
}

/// An OFREP route as a handler of its own, with its head check (`OFREPRoutes.register`).
struct OFREPHandler: HTTPHandler {
    let route: OFREPRoutes.Route

    func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? { route.checkHead(request, context) }

    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        do {
            responder.respond(try route.handler(request, context))
        } catch {
            responder.respond(HTTPError.response(for: error))
        }
    }
}
