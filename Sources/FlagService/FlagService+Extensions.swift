/// The seam for route families that live in their own files (OFREP): each function here is called by
/// `makeRouter()` after the core routes, with the service (for `snapshots`, `authenticator`, `logger`).
///
/// To add OFREP: write `FlagService.registerOFREPRoutes(into:service:)` in `OFREP*.swift` and list it here.
extension FlagService {
    /// Registration functions of extra route families, called in order.
    static let routeExtensions: [@Sendable (inout ServiceRoutes, FlagService) -> Void] = [
        { routes, service in mountOFREP(into: &routes, service: service) },
        { routes, service in service.registerWhoami(into: &routes) },
        { routes, service in service.registerPreview(into: &routes) },
        { routes, service in service.registerConsole(into: &routes) },
        { routes, service in service.registerAudit(into: &routes) },
        { routes, service in service.registerWebhooks(into: &routes) },
        { routes, service in service.registerTokens(into: &routes) },
    ]
}
