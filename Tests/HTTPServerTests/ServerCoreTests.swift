import RawHTTPClient
import Testing
@testable import HTTPServer

/// The server-wide budget of request-body bytes being received.
@Suite struct ServerCoreTests {
    @Test func reservationsStayWithinTheBudget() throws {
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.limits.maxBufferedBodyBytes = 100
        configuration.limits.maxBodyBytes = 50
        let core = ServerCore(configuration: configuration, handler: try HTTPRouter.Builder().build())
        #expect(core.reserveBody(60))
        #expect(!core.reserveBody(41))
        #expect(core.reserveBody(40))
        core.releaseBody(60)
        #expect(core.reserveBody(60))
        #expect(core.bufferedBodyBytes.load(ordering: .relaxed) == 100)
        // Never below one body of the largest size.
        configuration.limits.maxBodyBytes = 1000
        let floor = ServerCore(configuration: configuration, handler: try HTTPRouter.Builder().build())
        #expect(floor.reserveBody(1000))
        #expect(!floor.reserveBody(1))
    }

    @Test func bodiesPastTheBudgetGet503UntilOneIsDone() async throws {
        try await withServer({ $0.limits.maxBufferedBodyBytes = 100_000; $0.limits.maxBodyBytes = 80_000 },
                             routes: { $0.add(.PUT, "/echo") { request, _ in .text("\(request.body.count)") } }) { server, port in
            let holder = try RawClient(port: port)
            try holder.send("PUT /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 80000\r\n\r\n" + String(repeating: "a", count: 1000))
            // The holder's head is reserved once the server has read it.
            #expect(await eventually { server.core.bufferedBodyBytes.load(ordering: .relaxed) == 80_000 })
            let refused = try RawClient(port: port)
            try refused.send("PUT /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 50000\r\n\r\n")
            let busy = try #require(try refused.readResponse())
            #expect(busy.status == 503)
            #expect(busy.header("Retry-After") == "1")
            #expect(busy.text.contains("too_many_bodies"))
            try holder.send(String(repeating: "a", count: 79_000))
            #expect(try holder.readResponse()?.text == "80000")
            // Released: the same body fits now.
            #expect(await eventually { server.core.bufferedBodyBytes.load(ordering: .relaxed) == 0 })
            let after = try RawClient(port: port).request("PUT", "/echo", body: String(repeating: "b", count: 50_000))
            #expect(after.status == 200 && after.text == "50000")
        }
    }
}
