import RawHTTPClient
import Synchronization
import Testing
@testable import HTTPServer

@Suite struct HTTPHandlerTests {
    struct Oops: Error {}

    func run(_ handler: some HTTPHandler) async -> HTTPResponse? {
        let box = Mutex<HTTPResponse?>(nil)
        handler.handle(HTTPRequest(method: .GET, target: "/"), context: HTTPRequestContext(), responder: HTTPResponder { r in box.withLock { $0 = r } })
        _ = await eventually(5) { box.withLock { $0 != nil } }
        return box.withLock { $0 }
    }

    @Test func syncHandlerMapsErrors() async {
        #expect(await run(HTTPSyncHandler { _, _ in .text("ok") })?.status == .ok)
        #expect(await run(HTTPSyncHandler { _, _ in throw HTTPError(.tooManyRequests, code: "slow_down", message: "later") })?.status.code == 429)
        let failed = await run(HTTPSyncHandler { _, _ in throw Oops() })
        #expect(failed?.status.code == 500)
        #expect(failed.map { String(decoding: $0.body, as: UTF8.self) }?.contains(#""code":"internal""#) == true)
    }

    @Test func asyncHandlerMapsErrors() async {
        #expect(await run(HTTPAsyncHandler { _, _ in .text("ok") })?.status == .ok)
        #expect(await run(HTTPAsyncHandler { _, _ in throw HTTPError(.conflict, code: "c", message: "m") })?.status.code == 409)
        #expect(await run(HTTPAsyncHandler { _, _ in throw Oops() })?.status.code == 500)
    }

    @Test func deferredHandlerGetsTheResponder() async {
        #expect(await run(HTTPDeferredHandler { _, _, responder in responder.fail(HTTPError(.forbidden, code: "f", message: "m")) })?.status.code == 403)
    }

    /// Refuses a body-carrying request without `X-Key` from its head; counts the bodies it is handed.
    final class Guarded: HTTPHandler {
        let handled = Atomic<Int>(0)
        func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? {
            request.headers["X-Key"] == nil ? HTTPError(.unauthorized, code: "unauthorized", message: "no key").response : nil
        }
        func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
            handled.add(1, ordering: .relaxed)
            responder.respond(HTTPResponse(body: Array("\(request.body.count)".utf8)))
        }
    }

    @Test func aHeadCheckRefusesBeforeTheBodyOr100Continue() async throws {
        let guarded = Guarded()
        try await withServer(routes: { $0.add(.PUT, "/guarded", handler: guarded) }) { _, port in
            let c = try RawClient(port: port)
            try c.send("PUT /guarded HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\nExpect: 100-continue\r\n\r\n")
            let refused = try #require(try c.readResponse())
            #expect(refused.status == 401)  // not 100: the client never sends its body
            #expect(c.isClosedByServer())
            #expect(guarded.handled.load(ordering: .relaxed) == 0)
            let allowed = try RawClient(port: port)
            let ok = try allowed.request("PUT", "/guarded", body: "abc", headers: [("X-Key", "k")])
            #expect(ok.status == 200 && ok.text == "3")
            // Unknown paths and methods are answered from the head too.
            let unknown = try RawClient(port: port)
            try unknown.send("POST /nowhere HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\n")
            #expect(try unknown.readResponse()?.status == 404)
        }
    }
}

