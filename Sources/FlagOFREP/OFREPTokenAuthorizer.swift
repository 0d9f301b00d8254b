import HTTPServer

/// What a reader token may read, as the service's token store answers it. (The service maps a token's
/// environment scope here; FlagService's route middleware checks the same scope for its own routes.)
public enum OFREPTokenGrant: Sendable, Equatable {
    /// Not a token the server knows (or a revoked one).
    case unknown
    /// May read every environment.
    case allEnvironments
    /// May read only these environments.
    case environments(Set<String>)
}

/// A ready-made `OFREPRouteConfiguration.authorize` for reader tokens, sent as
/// `Authorization: Bearer <token>` (RFC 6750 §2.1) or `X-API-Key: <token>` (the spec's two schemes).
///
/// Every credential presented must be valid: a request carrying a good bearer token and a wrong
/// `X-API-Key` is refused, so that no credential is silently ignored (schemathesis checks exactly this).
public struct OFREPTokenAuthorizer: Sendable {
    private let grant: @Sendable (_ token: String) -> OFREPTokenGrant

    /// An authorizer that asks `grant` about each presented token (a hash lookup in the service's
    /// token table; called on the loop thread, so it must not block).
    public init(grant: @escaping @Sendable (_ token: String) -> OFREPTokenGrant) {
        self.grant = grant
    }

    /// The decision for one request and environment.
    public func authorize(_ request: HTTPRequest, environment: String) -> OFREPAccess {
        var tokens: [String] = []
        switch HTTPBearerCredentials(request.headers) {
        case .absent: break
        case .malformed: return .unauthorized("Authorization must be 'Bearer <token>'")
        case .token(let token): tokens.append(token)
        }
        if let apiKey = request.headers[.apiKey] {
            guard !apiKey.isEmpty else { return .unauthorized("empty X-API-Key") }
            tokens.append(apiKey)
        }
        guard !tokens.isEmpty else { return .unauthorized("a reader token is required (Authorization: Bearer <token>)") }
        for token in tokens {
            switch grant(token) {
            case .unknown: return .unauthorized("unknown or revoked token")
            case .allEnvironments: continue
            case .environments(let allowed):
                if !allowed.contains(environment) { return .forbidden("this token may not read environment '\(environment)'") }
            }
        }
        return .allowed
    }

    /// The closure `OFREPRouteConfiguration.authorize` takes.
    public var closure: @Sendable (HTTPRequest, String) -> OFREPAccess {
        { request, environment in self.authorize(request, environment: environment) }
    }
}
