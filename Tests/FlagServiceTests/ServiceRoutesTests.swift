import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing
@testable import FlagService

/// The route table's rules: access is part of every registration, an unsafe method needs a role, a store
/// check never runs on the loop, and the middleware answers before a handler ever sees the request.
@Suite struct ServiceRoutesTests {
    /// An empty table over a real service's middleware.
    static func withRoutes<T>(_ body: (inout ServiceRoutes, FlagService) throws -> T) throws -> T {
        try FlagServiceRouteTableTests.withService { service in
            var routes = ServiceRoutes(metrics: service.metrics, routeGuard: service.routeGuard, work: service.work,
                                       writer: service.writer)
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
            routes.deferred(.PUT, "/v1/things/{id}", access: .write(.writer, dryRun: .reader), audit: .action("thing.put")) { _, _, _, _ in
                .text("x")
            }
            routes.deferred(.DELETE, "/v1/things/{id}", access: .token(.admin), audit: .action("thing.delete")) { _, _, _, _ in .text("x") }
            routes.sync(.POST, "/evaluate", access: .evaluation) { _, _, _ in .text("x") }
            routes.sync(.GET, "/things", access: .public) { _, _, _ in .text("x") }
        } == nil)
    }

    @Test func aWriteRouteWithoutAnAuditActionIsRefused() throws {
        let missing = try Self.refusal { $0.deferred(.POST, "/v1/unlisted", access: .token(.writer)) { _, _, _, _ in .text("x") } }
        #expect(missing?.contains("POST /v1/unlisted") == true && missing?.contains("audit") == true)
        let unscoped = try Self.refusal { $0.deferred(.DELETE, "/v1/unlisted/{id}", access: .unscoped(.admin)) { _, _, _, _ in .text("x") } }
        #expect(unscoped?.contains("audit") == true, "an admin route that changes something is a write too")
        // Reads and evaluation routes need none.
        #expect(try Self.refusal { routes in
            routes.deferred(.GET, "/v1/unlisted", access: .token(.admin)) { _, _, _, _ in .text("x") }
            routes.sync(.POST, "/v1/evaluate", access: .evaluation) { _, _, _ in .text("x") }
        } == nil)
    }

    @Test func everyRefusalOfAnAuditedRouteBecomesAnAuditLine() async throws {
        try await withTemporaryStore { store in try await Self.refusalsAreAudited(store) }
    }

    static func refusalsAreAudited(_ store: FlagStore) async throws {
        var (service, routes, writer, reader) = try fixture(store)
        defer { service.shutdown() }
        routes.deferred(.PUT, "/v1/things/{id}", access: .token(.writer), audit: .action("thing.put")) { request, _, _, _ in
            if request.body == Array("fail".utf8) { throw ServiceError(.internalServerError, code: "internal", message: "broken") }
            throw ServiceError(.conflict, code: "taken", message: "that thing exists")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: try routes.build())
        let port = try server.start()
        defer { server.shutdown(gracePeriod: .seconds(1)) }
        func put(_ token: String?, _ text: String) async throws -> Int {
            let headers: [(String, String)] = token.map { [("Authorization", "Bearer " + $0)] } ?? []
            let response = try await RawHTTP.request(port: port, method: "PUT", path: "/v1/things/k1", headers: headers,
                                                     body: Array(text.utf8))
            return response.status
        }
        #expect(try await put(nil, "{}") == 401, "from the head, before the body")
        #expect(try await put("sfl_unknown", "{}") == 401)
        #expect(try await put(reader, "{}") == 403)
        #expect(try await put(writer, "{}") == 409)
        #expect(try await put(writer, "fail") == 500)
        let lines = try await pollAudit(store, count: 5)
        #expect(lines.map(\.actor) == ["ops", "ops", "viewer", "-", "-"], "newest first; '-' without a valid token")
        #expect(lines.map(\.status) == [500, 409, 403, 401, 401])
        #expect(lines.map(\.outcome) == [.failed, .refused, .refused, .refused, .refused])
        #expect(lines.allSatisfy { $0.action == "thing.put" && $0.target == "k1" && $0.client == "127.0.0.1" })
        #expect(lines[1].reason == "taken: that thing exists")
        #expect(lines[2].reason?.hasPrefix("forbidden: ") == true)
        #expect(lines[3].reason?.hasPrefix("unauthorized: ") == true)
    }

    /// The newest audit lines that pass `filter` once there are `count` (the writer gathers refusals for 50 ms;
    /// the generous bound is for a machine saturated by a parallel test run, where the writer runs at nice 5).
    static func pollAudit(_ store: FlagStore, count: Int,
                          _ filter: (AuditEntry) -> Bool = { $0.action != "token.create" }) async throws -> [AuditEntry] {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let lines = try store.auditEntries(limit: 1000).filter(filter)
            if lines.count >= count { return lines }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("fewer than \(count) audit lines after 15 s: \(try store.auditEntries(limit: 100).prefix(5))")
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

    /// A service over `store` with a writer `ops` and a reader `viewer`, and an empty table over its middleware.
    static func fixture(_ store: FlagStore) throws -> (FlagService, ServiceRoutes, writer: String, reader: String) {
        let writer = try store.createToken(name: "ops", role: .writer).secret
        let reader = try store.createToken(name: "viewer", role: .reader).secret
        let service = try FlagService(store: store, logger: ServiceLogger(minimumLevel: .off))
        let routes = ServiceRoutes(metrics: service.metrics, routeGuard: service.routeGuard, work: service.work,
                                   writer: service.writer)
        return (service, routes, writer, reader)
    }

    static func handlerGetsTheToken(_ store: FlagStore) async throws {
        var (service, routes, writer, reader) = try fixture(store)
        defer { service.shutdown() }
        let calls = Mutex<[String]>([])
        routes.deferred(.PUT, "/v1/things/{env}", access: .write(.writer, dryRun: .reader), audit: .action("thing.put")) { _, _, token, _ in
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
