import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import Testing
@testable import FlagService

/// Every route of `FlagService.makeRouter()` with its declared access. Adding, removing or re-declaring a
/// route fails here until this table says so too: who may call what is reviewed in one place.
@Suite struct FlagServiceRouteTableTests {
    static let expected: [String] = [
        "GET /console public",
        "GET /console/ public",
        "GET /console/{file} public",
        "DELETE /v1/tokens/{name} unscoped(admin)",
        "DELETE /v1/webhooks/{id} unscoped(admin)",
        "GET /healthz public",
        "GET /metrics public",
        "GET /readyz public",
        "DELETE /v1/changes/{id} token(writer)",
        "GET /v1/changes/{id} reader",
        "GET /v1/appstore/notifications unscoped(writer)",
        "GET /v1/appstore/outcomes unscoped(writer)",
        "GET /v1/appstore/experiment unscoped(writer)",
        "GET /v1/environments/{env}/experiments/{flag} unscoped(writer)",
        "GET /v1/audit unscoped(admin)",
        "GET /v1/environments reader",
        "GET /v1/environments/{env}/document reader",
        "GET /v1/environments/{env}/events reader",
        "GET /v1/environments/{env}/policy reader",
        "GET /v1/environments/{env}/requests reader",
        "GET /v1/environments/{env}/schedules reader",
        "GET /v1/environments/{env}/stale reader",
        "GET /v1/environments/{env}/versions reader",
        "GET /v1/environments/{env}/versions/{number} reader",
        "GET /v1/tokens unscoped(admin)",
        "GET /v1/webhooks unscoped(admin)",
        "GET /v1/webhooks/{id} unscoped(admin)",
        "GET /v1/webhooks/{id}/deliveries unscoped(admin)",
        "GET /v1/whoami token(reader)",
        "POST /ofrep/v1/evaluate/flags evaluation",
        "POST /v1/appstore/notifications signedPayload",
        "POST /v1/changes/{id}/approve token(writer)",
        "POST /v1/changes/{id}/reject token(writer)",
        "POST /ofrep/v1/evaluate/flags/{key} evaluation",
        "POST /v1/environments/{env}/ofrep/v1/evaluate/flags evaluation",
        "POST /v1/environments/{env}/ofrep/v1/evaluate/flags/{key} evaluation",
        "POST /v1/environments/{env}/offer-signatures token(reader)",
        "POST /v1/environments/{env}/preview token(reader)",
        "POST /v1/environments/{env}/rollback token(writer)",
        "POST /v1/environments/{env}/schedules token(writer)",
        "POST /v1/tokens unscoped(admin)",
        "POST /v1/webhooks unscoped(admin)",
        "PUT /v1/environments/{env}/document write(writer, dryRun: reader)",
        "PUT /v1/environments/{env}/flags/{key} write(writer, dryRun: reader)",
        "PUT /v1/environments/{env}/policy token(admin)",
        "DELETE /v1/guards/{id} token(writer)",
        "GET /v1/environments/{env}/guards token(writer)",
        "GET /v1/guards/{id} token(writer)",
        "POST /v1/environments/{env}/guards token(writer)",
        "POST /v1/guards/{id}/override token(writer)",
    ]

    /// A service over a fresh store (no server: the router is only read).
    static func withService<T>(_ options: FlagService.Options = FlagService.Options(),
                               _ body: (FlagService) throws -> T) throws -> T {
        try withTemporaryStore { store in
            let service = try FlagService(store: store, options: options, logger: ServiceLogger(minimumLevel: .off))
            defer { service.shutdown() }
            return try body(service)
        }
    }

    /// `METHOD PATTERN ACCESS` for every route the router holds, sorted; a handler that declares no access
    /// (registered around `ServiceRoutes`) shows as `undeclared`.
    static func table(_ router: HTTPRouter) -> [String] {
        router.routes.map { route in
            let access = (router.handler(route.method, route.pattern) as? any GuardedRoute)?.access.description ?? "undeclared"
            return "\(route.method) \(route.pattern) \(access)"
        }.sorted()
    }

    @Test func everyRouteIsListedWithItsAccess() throws {
        let table = try Self.withService { try Self.table($0.makeRouter()) }
        #expect(table == Self.expected.sorted())
        for line in Set(table).symmetricDifference(Self.expected) { Issue.record("not in both tables: \(line)") }
    }

    /// Every route of `router` that declares an audit, by `METHOD pattern`, with it.
    static func audits(_ router: HTTPRouter) -> [String: RouteAudit] {
        var audits: [String: RouteAudit] = [:]
        for route in router.routes {
            if let audit = (router.handler(route.method, route.pattern) as? any GuardedRoute)?.audit {
                audits["\(route.method) \(route.pattern)"] = audit
            }
        }
        return audits
    }

    /// Every write route of the router and what its refusals are audited as (each registration's `audit:`).
    static let audited: [String] = [
        "DELETE /v1/changes/{id} change.cancel",
        "DELETE /v1/guards/{id} guard.remove",
        "DELETE /v1/tokens/{name} token.revoke",
        "DELETE /v1/webhooks/{id} webhook.delete",
        "POST /v1/appstore/notifications exempt",
        "POST /v1/changes/{id}/approve change.approve",
        "POST /v1/changes/{id}/reject change.reject",
        "POST /v1/environments/{env}/guards guard.add",
        "POST /v1/environments/{env}/offer-signatures exempt",
        "POST /v1/environments/{env}/preview exempt",
        "POST /v1/environments/{env}/rollback publish",
        "POST /v1/environments/{env}/schedules change.schedule",
        "POST /v1/guards/{id}/override guard.override",
        "POST /v1/tokens token.create",
        "POST /v1/webhooks webhook.create",
        "PUT /v1/environments/{env}/document publish",
        "PUT /v1/environments/{env}/flags/{key} publish",
        "PUT /v1/environments/{env}/policy policy.update",
    ]

    @Test func everyWriteRouteIsAuditedOrExemptOnPurpose() throws {
        let router = try Self.withService { try $0.makeRouter() }
        let audits = Self.audits(router)
        let writes = router.routes.filter { route in
            guard let access = (router.handler(route.method, route.pattern) as? any GuardedRoute)?.access else { return false }
            return access.requiresAudit && !route.method.isSafe
        }
        let table = writes.map { route -> String in
            switch audits["\(route.method) \(route.pattern)"] {
            case .action(let name)?: "\(route.method) \(route.pattern) \(name)"
            case .exempt?: "\(route.method) \(route.pattern) exempt"
            case nil: "\(route.method) \(route.pattern) MISSING"
            }
        }.sorted()
        #expect(table == Self.audited)
    }

    @Test func theTableIsTheSameWhenReadsNeedAToken() throws {
        // The option changes what `reader` checks, not what each route declares.
        let table = try Self.withService(FlagService.Options(requireReadToken: true)) { try Self.table($0.makeRouter()) }
        #expect(table == Self.expected.sorted())
    }
}
