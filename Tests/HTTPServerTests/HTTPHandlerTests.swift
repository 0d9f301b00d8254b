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
}
