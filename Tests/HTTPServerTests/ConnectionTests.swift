import Glibc
import Synchronization
import RawHTTPClient
import Testing
@testable import HTTPServer

@Suite struct ConnectionTests {
    static let big: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: 8 << 20)
        bytes.withUnsafeMutableBufferPointer { b in
            for i in stride(from: 0, to: b.count, by: 4096) { b[i] = UInt8(truncatingIfNeeded: i >> 12) }
        }
        return bytes
    }()

    static func routes(_ b: inout HTTPRouter.Builder) {
        b.add(.GET, "/hello") { _, _ in .text("hello") }
        b.add(.PUT, "/echo") { req, _ in HTTPResponse(body: req.body) }
        b.add(.POST, "/echo") { req, _ in
            HTTPResponse(headers: ["X-Trailer": req.trailers["checksum"] ?? "-"], body: req.body)
        }
        b.add(.GET, "/big") { _, _ in HTTPResponse(body: big) }
        // A document-sized answer naming its request: pipelined answers can be checked for order.
        b.add(.GET, "/seq/{n}") { _, context in
            HTTPResponse(body: Array("\(context.pathParameters["n"] ?? "")\n".utf8) + [UInt8](repeating: 0x2E, count: 2500))
        }
        b.add(.GET, "/large") { _, _ in HTTPResponse(body: Array(big.prefix(700 * 1024))) }
    }

    /// A connection remembers its last match (`HTTPRouter.Match`): the same path again reaches the same route with
    /// the same parameters, any other path (or a 404) is matched anew, and the method is decided per request.
    @Test func repeatedAndChangingPathsOnOneConnectionReachTheirOwnRoutes() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            let steps: [(String, String, Int, String?)] = [
                ("GET", "/seq/1", 200, "1"), ("GET", "/seq/1", 200, "1"), ("GET", "/seq/2", 200, "2"), ("GET", "/hello", 200, nil),
                ("GET", "/seq/2", 200, "2"), ("GET", "/nope", 404, nil), ("GET", "/nope", 404, nil), ("GET", "/seq/1", 200, "1"),
                ("PUT", "/seq/1", 405, nil), ("HEAD", "/seq/1", 200, nil), ("GET", "/seq/%31", 200, "1"), ("GET", "/seq/1", 200, "1"),
            ]
            for (method, path, status, first) in steps {
                try c.send("\(method) \(path) HTTP/1.1\r\nHost: h\r\n\r\n")
                let r = try #require(try c.readResponse(head: method == "HEAD"), "\(method) \(path)")
                #expect(r.status == status, "\(method) \(path)")
                if let first { #expect(r.text.hasPrefix(first + "\n"), "\(method) \(path)") }
            }
        }
    }

    @Test func refusalIsSentThenTheConnectionCloses() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let c = try RawClient(port: port)
            try c.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.status == 400)
            #expect(r.header("Connection") == "close")
            #expect(r.header("Content-Type") == "application/json")
            #expect(r.text.contains(#""code":"smuggling""#))
            #expect(c.isClosedByServer())
            #expect(server.metrics().responsesByStatus[400] == 1)
        }
    }

    @Test func earlierPipelinedResponsesComeBeforeTheRefusal() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\nGET /x HTTP/9.9\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse()?.status == 200)
            #expect(try c.readResponse()?.status == 505)
            #expect(c.isClosedByServer())
        }
    }

    @Test func eachRefusalStatusOverTheWire() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 100; $0.limits.maxRequestLineBytes = 200; $0.limits.maxHeaderBytes = 300 }, routes: Self.routes) { _, port in
            let cases: [(String, Int)] = [
                ("GET / HTTP/1.1\r\nHost h\r\n\r\n", 400),
                ("GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\nHost: h\r\n\r\n", 414),
                ("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 400) + "\r\n\r\n", 431),
                ("PUT /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n", 413),
                ("PUT /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: br\r\n\r\n", 501),
                ("GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505),
            ]
            for (request, status) in cases {
                let c = try RawClient(port: port)
                try c.send(request)
                let r = try #require(try c.readResponse(), "\(status)")
                #expect(r.status == status)
                #expect(r.header("Connection") == "close")
                #expect(c.isClosedByServer())
            }
        }
    }

    @Test func expectContinueGetsInterimResponseBeforeBody() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("PUT /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            let interim = try #require(try c.readResponse())
            #expect(interim.status == 100)
            try c.send("data")
            #expect(try c.readResponse()?.text == "data")
        }
    }

    @Test func chunkedUploadWithTrailers() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nwiki\r\n5\r\npedia\r\n0\r\nChecksum: 42\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.text == "wikipedia")
            #expect(r.header("X-Trailer") == "42")
        }
    }

    @Test func largeResponseSurvivesPartialWrites() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\nGET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.body.count == Self.big.count)
            #expect(r.body == Self.big)
            #expect(try c.readResponse()?.text == "hello")
        }
    }

    /// Segments the client's socket has received so far: `tcpi_segs_in` of Linux's `struct tcp_info`
    /// (byte offset 140, since Linux 4.2), which glibc's older `tcp_info` does not declare.
    static func segmentsReceived(_ fd: Int32) -> UInt32 {
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, length >= 144 else { return .max }
        return info.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 140, as: UInt32.self) }
    }

    @Test func closingResponseLeavesTogetherWithTheFIN() async throws {
        try await withServer(routes: Self.routes) { _, port in
            // Keep-alive: SYN-ACK and the response; the server keeps the connection.
            let open = try RawClient(port: port)
            try open.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try open.readResponse()?.text == "hello")
            let keepAliveSegments = Self.segmentsReceived(open.fd)
            // `Connection: close`: the same segments, the FIN riding on the response's (MSG_MORE).
            let closing = try RawClient(port: port)
            try closing.send("GET /hello HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            let r = try #require(try closing.readResponse())
            #expect(r.text == "hello")
            #expect(r.header("Connection") == "close")
            #expect(closing.isClosedByServer())
            #expect(Self.segmentsReceived(closing.fd) == keepAliveSegments)
        }
    }

    @Test func largeClosingResponseArrivesWhole() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /big HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            let r = try #require(try c.readResponse())
            #expect(r.body == Self.big)
            #expect(c.isClosedByServer())
        }
    }

    @Test func clientDisconnectingMidResponseDoesNotHurtOthers() async throws {
        try await withServer(routes: Self.routes) { server, port in
            for _ in 0..<5 {
                let c = try RawClient(port: port)
                try c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
                _ = try c.fill()
                // Reset instead of FIN, with most of the 8 MiB still unsent.
                var lingerOption = linger(l_onoff: 1, l_linger: 0)
                setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
            }
            #expect(await eventually { server.metrics().connectionsOpen == 0 })
            let other = try RawClient(port: port)
            try other.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try other.readResponse()?.text == "hello")
        }
    }

    @Test func concurrentClientsOnOneLoopEachGetTheirOwnBytes() async throws {
        try await withServer({ $0.eventLoops = 1 }, routes: Self.routes) { _, port in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<16 {
                    group.addTask {
                        try await offPool {
                            let c = try RawClient(port: port)
                            var ok = 0
                            for i in 0..<20 {
                                // Mix sizes so some responses need partial writes and some do not.
                                let body = "\(client)-\(i)-" + String(repeating: "z", count: (client * 7919 + i * 104_729) % 100_000)
                                try c.send("PUT /echo HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
                                if try c.readResponse()?.text == body { ok += 1 }
                            }
                            return ok
                        }
                    }
                }
                var total = 0
                for try await ok in group { total += ok }
                #expect(total == 16 * 20)
            }
        }
    }

    @Test func accessLogRecordsEachResponse() async throws {
        let entries = Mutex<[HTTPAccessLogEntry]>([])
        try await withServer({ $0.accessLog = .custom { e in entries.withLock { $0.append(e) } } }, routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /hello?x=1 HTTP/1.1\r\nHost: h\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try c.readResponse()
            _ = try c.readResponse(head: true)
            #expect(await eventually { entries.withLock { $0.count == 2 } })
            let logged = entries.withLock { $0 }
            #expect(logged.first?.target == "/hello?x=1")
            #expect(logged.first?.status == 200)
            #expect(logged.first?.bodyBytes == 5)
            #expect(logged.last?.method == .HEAD)
            #expect(logged.last?.bodyBytes == 0)
            #expect(logged.first?.line.hasPrefix("GET /hello?x=1 200 5 ") == true)
        }
    }

    @Test func aTLSClientHelloOnThePlainPortIsRefusedAtOnce() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            // A ClientHello's record header and the start of its handshake: no LF, so no head end is ever found.
            let start = ContinuousClock.now
            try c.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
            let r = try #require(try c.readResponse())
            #expect(r.status == 400)
            #expect(r.text.contains(#""code":"malformed_request_line""#))
            #expect(c.isClosedByServer())
            // Long before the 10 s header timeout.
            #expect(ContinuousClock.now - start < .seconds(3))
        }
    }

    @Test func everyPipelinedRequestIsAnsweredInOrderPastTheOutputLimit() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let c = try RawClient(port: port)
            // 1,000 requests in one send: their answers (2.5 MB) pass the 1 MiB output limit several times.
            try c.send((0..<1000).map { "GET /seq/\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined())
            for index in 0..<1000 {
                let r = try #require(try c.readResponse(), "answer \(index)")
                #expect(r.status == 200)
                #expect(r.text.hasPrefix("\(index)\n"), "answer \(index)")
            }
            let large = try RawClient(port: port)
            try large.send(String(repeating: "GET /large HTTP/1.1\r\nHost: h\r\n\r\n", count: 5))
            for index in 0..<5 {
                let r = try #require(try large.readResponse(), "large answer \(index)")
                #expect(r.status == 200 && r.body.count == 700 * 1024)
            }
        }
    }
}

