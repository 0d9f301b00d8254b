import FlagStore
import Foundation
import HTTPServer
import Synchronization
import Testing
@testable import FlagService

/// The route table's rules: access is part of every registration, an unsafe method needs a role, a store
/// check never runs on the loop, and the middleware answers before a handler ever sees the request.
@Suite struct ServiceRoutesTests {
    /// An empty table over a real service's middleware.
    static func withRoutes<T>(_ body: (inout ServiceRoutes, FlagService) throws -> T) throws -> T {
        try FlagServiceRouteTableTests.withService { service in
            var routes = ServiceRoutes(metrics: service.metrics, routeGuard: service.routeGuard, work: service.work)
            return try body(&routes, service)
        }
    }

    /// The `router` refusal `build()` gives, or nil when it builds.
    static func refusal(_ register: (inout ServiceRoutes) -> Void) throws -> String? {
        try withRoutes { (routes: inout ServiceRoutes, _: FlagService) -> String? in
            register(&routes)
            do throws(HTTPError) {
                _ = try routes.build()
                return nil
            } catch {
                #expect(error.code == "router")
                return error.message
            }
        }
    }

    @Test func anUnsafeMethodWithoutARoleIsRefused() throws {
        for method in [HTTPMethod.POST, .PUT, .PATCH, .DELETE] {
            let refusal = try Self.refusal { $0.deferred(method, "/v1/things", access: .public) { _, _, _, _ in .text("x") } }
            #expect(refusal?.contains("\(method) /v1/things") == true, "\(method)")
        }
        // `reader` is public while reads are: no stand-in for a role either.
        #expect(try Self.refusal { $0.sync(.POST, "/v1/things", access: .reader) { _, _, _ in .text("x") } } != nil)
    }

    @Test func rolesAndEvaluationRoutesAreAllowedOnUnsafeMethods() throws {
        #expect(try Self.refusal { routes in
            routes.deferred(.PUT, "/v1/things/{id}", access: .write(.writer, dryRun: .reader)) { _, _, _, _ in .text("x") }
            routes.deferred(.DELETE, "/v1/things/{id}", access: .token(.admin)) { _, _, _, _ in .text("x") }
            routes.sync(.POST, "/evaluate", access: .evaluation) { _, _, _ in .text("x") }
            routes.sync(.GET, "/things", access: .public) { _, _, _ in .text("x") }
        } == nil)
    }

    @Test func aStoreCheckOnTheLoopIsRefused() throws {
        let sync = try Self.refusal { $0.sync(.GET, "/v1/things", access: .token(.reader)) { _, _, _ in .text("x") } }
        #expect(sync?.contains("loop") == true)
        let stream = try Self.refusal { $0.stream(.GET, "/v1/events", access: .token(.reader)) { _, _, _, _ in } }
        #expect(stream?.contains("loop") == true)
    }

    @Test func theHandlerGetsTheTokenAndNeverRunsWithoutOne() async throws {
        try await withTemporaryStore { store in try await Self.handlerGetsTheToken(store) }
    }

    static func handlerGetsTheToken(_ store: FlagStore) async throws {
        let writer = try store.createToken(name: "ops", role: .writer).secret
        let reader = try store.createToken(name: "viewer", role: .reader).secret
        let service = try FlagService(store: store, logger: ServiceLogger(minimumLevel: .off))
        defer { service.shutdown() }
        let calls = Mutex<[String]>([])
        var routes = ServiceRoutes(metrics: service.metrics, routeGuard: service.routeGuard, work: service.work)
        routes.deferred(.PUT, "/v1/things/{env}", access: .write(.writer, dryRun: .reader)) { _, _, token, _ in
            calls.withLock { $0.append(token?.name ?? "nil") }
            return .text("done")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: try routes.build())
        let port = try server.start()
        defer { server.shutdown(gracePeriod: .seconds(1)) }
        func put(_ path: String, _ token: String?) async throws -> Int {
            try await RawHTTP.request(port: port, method: "PUT", path: path,
                                      headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [], body: Array("{}".utf8)).status
        }
        #expect(try await put("/v1/things/production", nil) == 401, "refused from the head")
        #expect(try await put("/v1/things/production", "sfl_unknown") == 401)
        #expect(try await put("/v1/things/production", reader) == 403)
        #expect(calls.withLock { $0 }.isEmpty, "no handler ran for a refused request")
        #expect(try await put("/v1/things/production", writer) == 200)
        #expect(try await put("/v1/things/production?dryRun=true", reader) == 200, "a dry run needs only a reader")
        #expect(try await put("/v1/things/production?dryRun=maybe", writer) == 400)
        #expect(calls.withLock { $0 } == ["ops", "viewer"])
    }
}
