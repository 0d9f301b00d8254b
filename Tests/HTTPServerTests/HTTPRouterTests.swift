import Synchronization
import Testing
@testable import HTTPServer

/// Runs `router` on a request and returns the response it gave synchronously (or through `respond` later).
func route(_ router: HTTPRouter, _ method: HTTPMethod, _ target: String) async -> HTTPResponse? {
    let box = Mutex<HTTPResponse?>(nil)
    router.handle(HTTPRequest(method: method, target: target), context: HTTPRequestContext(), responder: HTTPResponder { r in box.withLock { $0 = r } })
    _ = await eventually(5) { box.withLock { $0 != nil } }
    return box.withLock { $0 }
}

@Suite struct HTTPRouterTests {
    func sample() throws -> HTTPRouter {
        var b = HTTPRouter.Builder()
        b.add(.GET, "/healthz") { _, _ in .text("ok") }
        b.add(.GET, "/v1/environments/{env}/document") { _, ctx in .text("doc \(ctx.pathParameters["env"] ?? "?")") }
        b.add(.PUT, "/v1/environments/{env}/document") { _, _ in .text("put") }
        b.add(.PUT, "/v1/environments/{env}/flags/{key}") { _, ctx in
            .text("\(ctx.pathParameters["env"] ?? "")/\(ctx.pathParameters["key"] ?? "")")
        }
        b.add(.GET, "/v1/environments/{env}/versions/latest") { _, _ in .text("latest") }
        b.add(.GET, "/v1/environments/{env}/versions/{n}") { _, ctx in .text("v\(ctx.pathParameters["n"] ?? "")") }
        b.addAsync(.POST, "/async") { req, _ in
            try await Task.sleep(for: .milliseconds(5))
            return .text("async \(req.bodyText)")
        }
        b.add(.GET, "/throws") { _, _ in throw HTTPError(.conflict, code: "busy", message: "try later") }
        return try b.build()
    }

    @Test func staticAndParameterRoutes() async throws {
        let r = try sample()
        #expect(await route(r, .GET, "/healthz")?.body == Array("ok".utf8))
        #expect(await route(r, .GET, "/v1/environments/prod/document")?.body == Array("doc prod".utf8))
        #expect(await route(r, .PUT, "/v1/environments/prod/flags/premiumFeaturesLocked")?.body == Array("prod/premiumFeaturesLocked".utf8))
        #expect(await route(r, .GET, "/v1/environments/prod/document?x=1")?.body == Array("doc prod".utf8))
    }

    @Test func literalSegmentsWinOverParameters() async throws {
        let r = try sample()
        #expect(await route(r, .GET, "/v1/environments/prod/versions/latest")?.body == Array("latest".utf8))
        #expect(await route(r, .GET, "/v1/environments/prod/versions/7")?.body == Array("v7".utf8))
    }

    @Test func parametersArePercentDecoded() async throws {
        let r = try sample()
        #expect(await route(r, .GET, "/v1/environments/my%20env/document")?.body == Array("doc my env".utf8))
        #expect(await route(r, .GET, "/v1/environments/bad%zz/document")?.status.code == 400)
    }

    @Test func unknownPathIs404() async throws {
        let r = try sample()
        let response = try #require(await route(r, .GET, "/nope"))
        #expect(response.status.code == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"not_found""#))
        #expect(await route(r, .GET, "/v1/environments//document")?.status.code == 404)
        #expect(await route(r, .GET, "/healthz/")?.status.code == 404)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let r = try sample()
        let response = try #require(await route(r, .DELETE, "/v1/environments/prod/document"))
        #expect(response.status.code == 405)
        #expect(response.headers["Allow"] == "GET, PUT, HEAD")
        let h = try #require(await route(r, .POST, "/healthz"))
        #expect(h.headers["allow"] == "GET, HEAD")
    }

    @Test func headFallsBackToGet() async throws {
        let r = try sample()
        #expect(await route(r, .HEAD, "/healthz")?.status.code == 200)
    }

    @Test func asyncAndThrowingHandlers() async throws {
        let r = try sample()
        var request = HTTPRequest(method: .POST, target: "/async")
        request.body = Array("hi".utf8)
        let box = Mutex<HTTPResponse?>(nil)
        r.handle(request, context: HTTPRequestContext(), responder: HTTPResponder { resp in box.withLock { $0 = resp } })
        #expect(await eventually { box.withLock { $0 != nil } })
        #expect(box.withLock { $0?.body } == Array("async hi".utf8))
        let thrown = try #require(await route(r, .GET, "/throws"))
        #expect(thrown.status.code == 409)
        #expect(String(decoding: thrown.body, as: UTF8.self) == #"{"error":{"code":"busy","message":"try later"}}"# + "\n")
    }

    @Test func buildRefusesBadTables() {
        var dup = HTTPRouter.Builder()
        dup.add(.GET, "/a") { _, _ in .text("") }
        dup.add(.GET, "/a") { _, _ in .text("") }
        #expect(throws: HTTPError.self) { try dup.build() }
        var clash = HTTPRouter.Builder()
        clash.add(.GET, "/a/{x}") { _, _ in .text("") }
        clash.add(.PUT, "/a/{y}") { _, _ in .text("") }
        #expect(throws: HTTPError.self) { try clash.build() }
        var partial = HTTPRouter.Builder()
        partial.add(.GET, "/a/x{y}") { _, _ in .text("") }
        #expect(throws: HTTPError.self) { try partial.build() }
        var relative = HTTPRouter.Builder()
        relative.add(.GET, "a") { _, _ in .text("") }
        #expect(throws: HTTPError.self) { try relative.build() }
        var repeated = HTTPRouter.Builder()
        repeated.add(.GET, "/{a}/{a}") { _, _ in .text("") }
        #expect(throws: HTTPError.self) { try repeated.build() }
    }
}
