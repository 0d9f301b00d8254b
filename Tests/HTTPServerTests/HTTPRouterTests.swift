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

    @Test func registeredHandlersCanBeReadBack() throws {
        struct Marked: HTTPHandler {
            let mark: String
            func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {}
        }
        var b = HTTPRouter.Builder()
        b.add(.GET, "/healthz", handler: Marked(mark: "health"))
        b.add(.PUT, "/v1/environments/{env}/document", handler: Marked(mark: "publish"))
        let r = try b.build()
        #expect((r.handler(.GET, "/healthz") as? Marked)?.mark == "health")
        #expect((r.handler(.PUT, "/v1/environments/{env}/document") as? Marked)?.mark == "publish")
        #expect(r.handler(.GET, "/v1/environments/{env}/document") == nil, "no GET was registered there")
        #expect(r.handler(.PUT, "/v1/environments/production/document") == nil, "patterns, not paths")
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

extension HTTPRouterTests {
    /// The matcher walks bytes in place; this checks it against the plain split-and-compare definition of
    /// a match over generated paths (slashes, empty segments, escapes good and bad, non-ASCII).
    @Test func inPlaceMatchingAgreesWithSplittingThePath() throws {
        var b = HTTPRouter.Builder()
        let patterns = ["/v1/environments/{env}/document", "/v1/environments/{env}/flags/{key}", "/v1/environments/{env}/versions/{n}",
                        "/v1/environments/{env}/versions", "/{a}", "/x/{b}/y", "/x/{b}/{c}", "/ofrep/v1/evaluate/flags/{key}"]
        for pattern in patterns { b.add(.GET, pattern) { _, _ in .text("") } }
        let router = try b.build()
        let pieces = ["v1", "environments", "production", "flags", "document", "versions", "x", "y", "", "%41", "%zz", "%C3%BC", "ü", "a%2Fb",
                      "ofrep", "evaluate", "42"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let count = Int.random(in: 1...6, using: &generator)
            let path = "/" + (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined(separator: "/")
            let expected = Self.referenceMatch(router, path)
            let actual: String? = switch router.matchParameters(path) {
            case .none: nil
            case .some(.failure(let error)): "error \(error.code)"
            case .some(.success(let (entry, parameters))): entry.pattern + " " + parameters.pairs.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            }
            #expect(actual == expected, "\(path)")
        }
    }

    static func referenceMatch(_ router: HTTPRouter, _ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        candidates: for entry in router.parameterEntries where entry.segments.count == parts.count {
            var pairs: [String] = []
            for (segment, part) in zip(entry.segments, parts) {
                switch segment {
                case .literal(let literal):
                    guard literal == part else { continue candidates }
                case .parameter(let name):
                    guard !part.isEmpty else { continue candidates }
                    guard let value = HTTPRequest.percentDecode(part) else { return "error malformed_path" }
                    pairs.append("\(name)=\(value)")
                }
            }
            return entry.pattern + " " + pairs.joined(separator: ",")
        }
        return nil
    }
}
