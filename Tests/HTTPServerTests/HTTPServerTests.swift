import Glibc
import Synchronization
import RawHTTPClient
import Testing
@testable import HTTPServer

/// What the `/value` routes store.
let storedValue = Mutex<[UInt8]>([])

@Suite struct HTTPServerTests {
    static func routes(_ b: inout HTTPRouter.Builder) {
        b.add(.GET, "/hello") { _, _ in .json(#"{"hello":"world"}"#, headers: ["ETag": "\"1\""]) }
        b.add(.PUT, "/echo") { req, _ in HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: req.body) }
        b.add(.POST, "/echo") { req, _ in HTTPResponse(status: .ok, body: req.body) }
        b.add(.GET, "/peer") { _, ctx in .text(ctx.peer.description) }
        b.add(.GET, "/slow/{ms}") { _, _ in .text("x") }
        b.addAsync(.GET, "/async/{ms}") { _, ctx in
            try await Task.sleep(for: .milliseconds(Int(ctx.pathParameters["ms"] ?? "0") ?? 0))
            return .text("async \(ctx.pathParameters["ms"] ?? "")")
        }
        b.addDeferred(.PUT, "/value") { req, _, responder in
            let body = req.body
            Thread.detach {
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                nanosleep(&pause, nil)
                storedValue.withLock { $0 = body }
                responder.respond(.empty(.noContent))
            }
        }
        b.add(.GET, "/value") { _, _ in HTTPResponse(body: storedValue.withLock { $0 }) }
        b.addDeferred(.GET, "/twice") { _, _, responder in
            responder.respond(.text("first"))
            responder.respond(.text("second"))
        }
        b.addDeferred(.POST, "/deferred") { req, _, responder in
            // Answers from a plain thread, as the service's SQLite writer will.
            let body = req.body
            Thread.detach { responder.respond(HTTPResponse(status: .created, body: body)) }
        }
    }

    @Test func servesGetWithDateAndContentLength() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.status == 200)
            #expect(r.text == #"{"hello":"world"}"#)
            #expect(r.header("Content-Length") == "17")
            #expect(r.header("ETag") == "\"1\"")
            #expect(r.header("Date")?.hasSuffix(" GMT") == true)
            #expect(r.header("Connection") == nil)
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let c = try RawClient(port: port)
            for _ in 0..<50 {
                try c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try c.readResponse()?.status == 200)
            }
            #expect(server.metrics().connectionsAccepted == 1)
            #expect(server.metrics().responsesByStatus[200] == 50)
        }
    }

    @Test func http10ClosesByDefaultAndKeepsAliveWhenAsked() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.0\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.header("Connection") == "close")
            #expect(c.isClosedByServer())
            let k = try RawClient(port: port)
            try k.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try k.readResponse()?.header("Connection") == "keep-alive")
            try k.send("GET /hello HTTP/1.0\r\n\r\n")
            #expect(try k.readResponse()?.status == 200)
            #expect(k.isClosedByServer())
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try c.readResponse()?.header("Connection") == "close")
            #expect(c.isClosedByServer())
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderEvenWhenLaterOnesFinishFirst() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send(
                "GET /async/200 HTTP/1.1\r\nHost: x\r\n\r\nGET /async/0 HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try await offPool { try c.readResponse() }?.text == "async 200")
            #expect(try c.readResponse()?.text == "async 0")
            #expect(try c.readResponse()?.text == #"{"hello":"world"}"#)
            #expect(try c.readResponse()?.text == "abc")
        }
    }

    @Test func pipelinedGetAfterSlowPutSeesTheWrite() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("PUT /value HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nfresh" + "GET /value HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse()?.status == 204)
            #expect(try c.readResponse()?.text == "fresh")
        }
    }

    @Test func secondRespondIsIgnored() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /twice HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse()?.text == "first")
            #expect(try c.readResponse()?.text == #"{"hello":"world"}"#)
        }
    }

    @Test func headGetsHeadersWithoutBody() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try #require(try c.readResponse(head: true))
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "17")
            #expect(head.body.isEmpty)
            // The next response starts right after the head: no stray body bytes.
            #expect(try c.readResponse()?.text == #"{"hello":"world"}"#)
        }
    }

    @Test func deferredResponseFromAnotherThread() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            for i in 0..<20 {
                try c.send("POST /deferred HTTP/1.1\r\nHost: x\r\nContent-Length: \(String(i).utf8.count)\r\n\r\n\(i)")
                let r = try #require(try c.readResponse())
                #expect(r.status == 201)
                #expect(r.text == String(i))
            }
        }
    }

    @Test func peerAddressIsKnown() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /peer HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse()?.text.hasPrefix("127.0.0.1:") == true)
        }
    }

    @Test func unknownRoutesGetJSONErrors() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            let r405 = try #require(try c.readResponse())
            #expect(r405.status == 405)
            #expect(r405.header("Allow") == "GET, HEAD")
            #expect(try c.readResponse()?.status == 404)
        }
    }

    @Test(arguments: [HTTPServerConfiguration.Listener.shared, .reusePortPerLoop])
    func manyConnectionsOverTwoLoopsAreAllServed(listener: HTTPServerConfiguration.Listener) async throws {
        var b = HTTPRouter.Builder()
        b.add(.GET, "/n") { request, _ in .text(request.queryParameter("i") ?? "") }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 2, listener: listener), handler: try b.build())
        let port = try server.start()
        defer { server.shutdown() }
        // Connections opened together, then each asked twice (keep-alive), then answered in full.
        let clients = try (0..<40).map { _ in try RawClient(port: port) }
        for round in 0..<2 {
            for (i, client) in clients.enumerated() { try client.send("GET /n?i=\(i)-\(round) HTTP/1.1\r\nHost: h\r\n\r\n") }
            for (i, client) in clients.enumerated() {
                let response = try #require(try await offPool { try client.readResponse() })
                #expect(response.text == "\(i)-\(round)")
            }
        }
        #expect(server.metrics().connectionsAccepted == 40)
        #expect(server.metrics().responsesTotal == 80)
    }

    @Test func aSilentConnectionIsAcceptedOnlyOnceItSendsWithDeferredAccept() async throws {
        var b = HTTPRouter.Builder()
        b.add(.GET, "/x") { _, _ in .text("x") }
        let router = try b.build()
        let deferred = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: router)
        let immediate = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1, deferAcceptSeconds: nil), handler: router)
        let deferredPort = try deferred.start()
        let immediatePort = try immediate.start()
        defer {
            deferred.shutdown()
            immediate.shutdown()
        }
        let connectedAt = Socket.monotonicNanoseconds()
        let quiet = try RawClient(port: deferredPort)
        // With deferral the kernel holds a silent connection for about a second (until a SYN-ACK
        // retransmission) unless bytes arrive; look well inside that window, and only judge when the
        // look really happened inside it (parallel tests can delay this thread).
        System.sleep(milliseconds: 100)
        let acceptedWhileSilent = deferred.metrics().connectionsAccepted
        if Socket.monotonicNanoseconds() - connectedAt < 700_000_000 {
            #expect(acceptedWhileSilent == 0)
        }
        // Without deferral the connection is accepted while silent.
        let plain = try RawClient(port: immediatePort)
        #expect(await eventually { immediate.metrics().connectionsAccepted == 1 })
        try quiet.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try #require(try await offPool { try quiet.readResponse() })
        #expect(response.text == "x")
        #expect(deferred.metrics().connectionsAccepted == 1)
        try plain.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await offPool { try plain.readResponse() }?.text == "x")
    }

    @Test func aSecondServerOnTheSamePortFailsToStartWithTheSharedListener() throws {
        let first = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 2), handler: try HTTPRouter.Builder().build())
        let port = try first.start()
        defer { first.shutdown() }
        let second = HTTPServer(configuration: HTTPServerConfiguration(port: port, eventLoops: 2), handler: try HTTPRouter.Builder().build())
        do {
            try second.start()
            second.shutdown()
            Issue.record("the second server started on a port in use")
        } catch {
            #expect(error.errno == EADDRINUSE)
        }
    }

    @Test func startReportsBindFailureWithErrno() throws {
        let first = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: try HTTPRouter.Builder().build())
        let port = try first.start()
        defer { first.shutdown() }
        // A plain socket bound without SO_REUSEPORT holds a port nobody else can share.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 1)
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let taken = Int(UInt16(bigEndian: bound.sin_port))
        let second = HTTPServer(configuration: HTTPServerConfiguration(port: taken, eventLoops: 1), handler: try HTTPRouter.Builder().build())
        #expect(throws: HTTPError.self) { try second.start() }
        do {
            try second.start()
        } catch {
            #expect(error.errno == EADDRINUSE)
            #expect(error.systemCall?.hasPrefix("bind") == true)
        }
        #expect(port > 0)
    }
}

/// A detached pthread running a closure, for tests that need a non-loop, non-Task thread.
enum Thread {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    static func detach(_ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
            return nil
        }, box)
        pthread_detach(thread)
    }
}
