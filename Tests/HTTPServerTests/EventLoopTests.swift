import Glibc
import Synchronization
import RawHTTPClient
import Testing
@testable import HTTPServer

/// Set when the `/slow` handler has begun (the shutdown test waits for it).
let slowStarted = Atomic<Bool>(false)

@Suite struct EventLoopTests {
    static func routes(_ b: inout HTTPRouter.Builder) {
        b.add(.GET, "/hello") { _, _ in .text("hello") }
        b.addAsync(.GET, "/slow") { _, _ in
            slowStarted.store(true, ordering: .releasing)
            try await Task.sleep(for: .milliseconds(300))
            return .text("slow")
        }
    }

    @Test func slowlorisIsCutOffAfterTheHeaderTimeout() async throws {
        try await withServer({ $0.timeouts.header = .milliseconds(300) }, routes: Self.routes) { server, port in
            let slow = try RawClient(port: port)
            let start = ContinuousClock.now
            var cut = false
            // One byte every 20 ms: steady progress must not extend the header deadline.
            for (i, byte) in ("GET /hello HTTP/1.1\r\nHost: h\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "a"), count: 2000)).enumerated() {
                if (try? slow.send([byte])) == nil {
                    cut = true
                    break
                }
                if i % 10 == 0 {
                    // Others are served meanwhile.
                    let other = try RawClient(port: port)
                    try other.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
                    #expect(try other.readResponse()?.status == 200)
                }
                if server.metrics().connectionsTimedOut >= 1 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            if !cut {
                let r = try? slow.readResponse()
                #expect(r?.status == 408)
            }
            // The whole header would take 40 s at this pace.
            #expect(ContinuousClock.now - start < .seconds(20))
            #expect(slow.isClosedByServer())
            #expect(server.metrics().connectionsTimedOut >= 1)
            let after = try RawClient(port: port)
            try after.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try after.readResponse()?.status == 200)
        }
    }

    @Test func silentNewConnectionsAreClosedAfterTheHeaderTimeout() async throws {
        try await withServer({ $0.timeouts.header = .milliseconds(200) }, routes: Self.routes) { server, port in
            let silent = try RawClient(port: port)
            let start = ContinuousClock.now
            #expect(silent.isClosedByServer())
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(await eventually { server.metrics().connectionsTimedOut == 1 })
        }
    }

    @Test func idleKeepAliveConnectionsAreClosed() async throws {
        try await withServer({ $0.timeouts.idle = .milliseconds(200) }, routes: Self.routes) { server, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse()?.status == 200)
            let start = ContinuousClock.now
            #expect(c.isClosedByServer())
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(await eventually { server.metrics().connectionsOpen == 0 })
            let d = try RawClient(port: port)
            try d.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try d.readResponse()?.status == 200)
        }
    }

    @Test func connectionsPastTheLimitGet503() async throws {
        try await withServer({ $0.limits.maxConnections = 3 }, routes: Self.routes) { server, port in
            var held: [RawClient] = []
            for _ in 0..<3 {
                let c = try RawClient(port: port)
                try c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(try c.readResponse()?.status == 200)
                held.append(c)
            }
            let extra = try RawClient(port: port)
            let r = try #require(try extra.readResponse())
            #expect(r.status == 503)
            #expect(r.header("Retry-After") == "1")
            #expect(extra.isClosedByServer())
            #expect(await eventually { server.metrics().connectionsRejected == 1 })
            held.removeLast()
            #expect(await eventually { server.metrics().connectionsOpen == 2 })
            let again = try RawClient(port: port)
            try again.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try again.readResponse()?.status == 200)
            #expect(held.count == 2)
        }
    }

    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        var b = HTTPRouter.Builder()
        Self.routes(&b)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 2), handler: try b.build())
        let port = try server.start()
        let idle = try RawClient(port: port)
        try idle.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try idle.readResponse()?.status == 200)
        let busy = try RawClient(port: port)
        try busy.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { slowStarted.load(ordering: .acquiring) })
        let done = Atomic<Bool>(false)
        Thread.detach {
            server.shutdown(gracePeriod: .seconds(5))
            done.store(true, ordering: .releasing)
        }
        let r = try #require(try await offPool { try busy.readResponse() })
        #expect(r.text == "slow")
        #expect(r.header("Connection") == "close")
        #expect(busy.isClosedByServer())
        #expect(idle.isClosedByServer())
        #expect(await eventually { done.load(ordering: .acquiring) })
        #expect(throws: RawClient.Failure.self) { try RawClient(port: port) }
        server.waitUntilStopped()
        #expect(server.metrics().connectionsOpen == 0)
    }

    @Test func metricsCountStatuses() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\nGET /nope HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try c.readResponse()
            _ = try c.readResponse()
            let m = server.metrics()
            #expect(m.responsesByStatus == [200: 1, 404: 1])
            #expect(m.responsesTotal == 2)
            #expect(m.connectionsOpen == 1)
            #expect(m.bodyBytesSent > 5)
        }
    }
}
