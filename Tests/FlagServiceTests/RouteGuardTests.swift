import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import Testing
@testable import FlagService

/// The middleware against a real token store: what each access comes to, and what it answers.
@Suite struct RouteGuardTests {
    struct Fixture {
        let store: FlagStore
        let writer: String
        let reader: String
        let lines = TestServer.LogLines()

        func routeGuard(requireReadToken: Bool) throws -> RouteGuard {
            let lines = self.lines
            return RouteGuard(authenticator: try Authenticator(store: store), throttle: FailedAuthThrottle(limit: 10),
                              logger: ServiceLogger(minimumLevel: .info) { lines.append($0) }, trustedProxies: .none,
                              requireReadToken: requireReadToken)
        }
    }

    static func withFixture<T>(_ body: (Fixture) throws -> T) throws -> T {
        try withTemporaryStore { store in
            try body(Fixture(store: store, writer: try store.createToken(name: "w", role: .writer).secret,
                             reader: try store.createToken(name: "r", role: .reader).secret))
        }
    }

    static func request(_ method: HTTPMethod = .PUT, _ target: String = "/v1/environments/production/document",
                        token: String?) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: token.map { [.authorization: "Bearer \($0)"] } ?? [:])
    }

    @Test func readersAreCheckedOnlyWhenReadsNeedAToken() throws {
        try Self.withFixture { fixture in
            let open = try fixture.routeGuard(requireReadToken: false)
            #expect(try open.authorize(open.check(for: .reader), Self.request(.GET, token: nil), HTTPRequestContext()) == nil)
            let closed = try fixture.routeGuard(requireReadToken: true)
            #expect(throws: ServiceError.self) {
                try closed.authorize(closed.check(for: .reader), Self.request(.GET, token: nil), HTTPRequestContext())
            }
            #expect(try closed.authorize(closed.check(for: .reader), Self.request(.GET, token: fixture.reader), HTTPRequestContext())?.name == "r")
        }
    }

    @Test func writesNeedTheirRoleAndDryRunsOnlyAReader() throws {
        try Self.withFixture { fixture in
            let routeGuard = try fixture.routeGuard(requireReadToken: false)
            let check = routeGuard.check(for: .write(.writer, dryRun: .reader))
            #expect(try routeGuard.authorize(check, Self.request(token: fixture.writer), HTTPRequestContext())?.name == "w")
            do throws(ServiceError) {
                _ = try routeGuard.authorize(check, Self.request(token: fixture.reader), HTTPRequestContext())
                Issue.record("a reader must not publish")
            } catch {
                #expect(error.status == .forbidden)
            }
            let dryRun = Self.request(.PUT, "/v1/environments/production/document?dryRun=true", token: fixture.reader)
            #expect(try routeGuard.authorize(check, dryRun, HTTPRequestContext())?.name == "r")
        }
    }

    @Test func headsAreRefusedOnlyForRoutesThatReadTheStore() throws {
        try Self.withFixture { fixture in
            let routeGuard = try fixture.routeGuard(requireReadToken: true)
            let none = Self.request(token: nil)
            #expect(routeGuard.checkHead(routeGuard.check(for: .token(.writer)), none, HTTPRequestContext())?.status == .unauthorized)
            #expect(routeGuard.checkHead(routeGuard.check(for: .token(.writer)), Self.request(token: "sfl_x"), HTTPRequestContext())?.status
                    == .unauthorized, "a token the in-memory table does not know is refused before its body")
            #expect(routeGuard.checkHead(routeGuard.check(for: .token(.writer)), Self.request(token: fixture.writer), HTTPRequestContext()) == nil,
                    "a known token is checked against the store once the body is in, off the loop")
            #expect(routeGuard.checkHead(routeGuard.check(for: .token(.admin)), Self.request(token: fixture.reader), HTTPRequestContext()) == nil,
                    "the role is decided with the store's record")
            #expect(routeGuard.checkHead(routeGuard.check(for: .reader), none, HTTPRequestContext()) == nil)
            #expect(routeGuard.checkHead(routeGuard.check(for: .evaluation), none, HTTPRequestContext()) == nil)
            #expect(fixture.lines.all.filter { $0.contains("event=auth_failed") }.count == 2, "the refused heads were logged")
        }
    }

    /// Failures are throttled, never credentials. After 1,000 invented tokens from one address (401 up to
    /// the limit, then 429), that address's real writer and reader tokens are served, on the store's check and on
    /// the in-memory one; every refusal is counted, and the log names the address, never a token.
    @Test func aThousandInventedTokensNeverLockOutTheRealOnes() throws {
        try Self.withFixture { fixture in
            let routeGuard = try fixture.routeGuard(requireReadToken: true)
            let write = routeGuard.check(for: .write(.writer, dryRun: .reader)), read = routeGuard.check(for: .reader)
            var answers: [Int: Int] = [:]
            for index in 0..<1000 {
                let check = index % 2 == 0 ? write : read
                let request = Self.request(index % 2 == 0 ? .PUT : .GET, token: "sfl_invented\(index)")
                if index % 4 == 0, let refusal = routeGuard.checkHead(check, request, HTTPRequestContext()) {
                    answers[refusal.status.code, default: 0] += 1
                    continue
                }
                do throws(ServiceError) {
                    _ = try routeGuard.authorize(check, request, HTTPRequestContext())
                    Issue.record("an invented token was accepted")
                } catch {
                    answers[error.status.code, default: 0] += 1
                }
            }
            #expect(answers == [401: 10, 429: 990])
            #expect(routeGuard.checkHead(write, Self.request(token: fixture.writer), HTTPRequestContext()) == nil)
            #expect(try routeGuard.authorize(write, Self.request(token: fixture.writer), HTTPRequestContext())?.name == "w")
            #expect(try routeGuard.authorize(read, Self.request(.GET, token: fixture.reader), HTTPRequestContext())?.name == "r")
            #expect(routeGuard.throttle.unauthorizedCount.load(ordering: .relaxed) == 10)
            #expect(routeGuard.throttle.refusedCount.load(ordering: .relaxed) == 990)
            let lines = fixture.lines.all
            #expect(lines.filter { $0.contains("event=auth_failed") }.count == 10)
            #expect(lines.filter { $0.contains("event=auth_throttled") }.count == 1, "one line per address and window")
            #expect(!lines.contains { $0.contains("sfl_invented") })
        }
    }

    /// A scoped token (governance.md) may use only its environments: 403 `environment_not_allowed` elsewhere,
    /// decided in the one place every route's access goes through.
    @Test func aScopedTokenIsRefusedOutsideItsEnvironments() throws {
        try Self.withFixture { fixture in
            for name in ["staging", "production"] where !(try fixture.store.environments()).contains(name) {
                try fixture.store.createEnvironment(name: name, actor: "test")
            }
            let scoped = try fixture.store.createToken(name: "staging-ci", role: .writer, environments: ["staging"]).secret
            let routeGuard = try fixture.routeGuard(requireReadToken: false)
            let check = routeGuard.check(for: .write(.writer, dryRun: .reader))
            let staging = HTTPRequestContext(pathParameters: HTTPPathParameters([("env", "staging")]))
            let production = HTTPRequestContext(pathParameters: HTTPPathParameters([("env", "production")]))
            #expect(try routeGuard.authorize(check, Self.request(token: scoped), staging)?.name == "staging-ci")
            do throws(ServiceError) {
                _ = try routeGuard.authorize(check, Self.request(token: scoped), production)
                Issue.record("a staging token must not write to production")
            } catch {
                #expect(error.status == .forbidden && error.code == "environment_not_allowed")
            }
            // Unscoped tokens, and routes without an environment, are not limited.
            #expect(try routeGuard.authorize(check, Self.request(token: fixture.writer), production)?.name == "w")
            #expect(try routeGuard.authorize(routeGuard.check(for: .token(.reader)), Self.request(.GET, "/v1/whoami", token: scoped),
                                             HTTPRequestContext())?.name == "staging-ci")
        }
    }
}
