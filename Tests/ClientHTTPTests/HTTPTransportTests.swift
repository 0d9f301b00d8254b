import Foundation
import Testing
@testable import ClientHTTP
import TransportTestSupport

/// The one contract of every ``HTTPTransport``, run against each transport this build has (libcurl and URLSession
/// on FoundationNetworking here; URLSession alone in the `FLAGCLIENT_TRANSPORT=urlsession` build), over real
/// sockets on 127.0.0.1: one fault per test. Where a transport reports more (a `CURLcode`, a `URLError` code),
/// that is checked too.
@Suite struct HTTPTransportTests {
    /// Short limits: 2 s to connect, 5 s in total, 1 KiB of body.
    func fast(_ kind: TransportKind) -> any HTTPTransport {
        kind.makeTransport(options: TransportOptions(connectTimeout: .seconds(2), totalTimeout: .seconds(5),
                                                     maxResponseBodyBytes: 1024))
    }

    /// Runs `request` and returns the error, or records an issue when it unexpectedly succeeded.
    func failure(_ transport: any HTTPTransport, _ request: ClientRequest) async -> TransportError? {
        do {
            let response = try await transport.send(request)
            Issue.record("expected a failure, got status \(response.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: TransportKind.allCases)
    func okResponseWithHeadersAndBody(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(
            status: 200, headers: [("ETag", "\"v7\""), ("Cache-Control", "max-age=60"), ("X-Multi", "a"), ("x-multi", "b")],
            body: "{\"flags\":{}}")))
        defer { server.stop() }
        let request = ClientRequest(url: server.url("/v1/environments/production/document"),
                                  headers: ["If-None-Match": "\"v6\"", "Accept": "application/json"])
        let response = try await fast(kind).send(request)
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "\"v7\"")
        // URLSession hands over a dictionary: repeated fields may arrive joined with ", " and in any order.
        let values = response.headers.values(for: "X-MULTI").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(kind.isCurl ? values == ["a", "b"] : values.sorted() == ["a", "b"])
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"flags\":{}}")
        let sent = try #require(server.requests.first)
        #expect(sent.hasPrefix("GET /v1/environments/production/document HTTP/1.1\r\n"))
        #expect(sent.contains("\r\nIf-None-Match: \"v6\"\r\n"))
    }

    @Test(arguments: TransportKind.allCases)
    func putSendsBodyWithoutExpectOrFormContentType(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 204)))
        defer { server.stop() }
        // Larger than curl's 1 KiB threshold for adding `Expect: 100-continue`.
        let payload = Data(String(repeating: "x", count: 4000).utf8)
        let response = try await fast(kind).send(ClientRequest(method: .put, url: server.url("/doc"),
                                                       headers: ["If-Match": "\"v1\""], body: payload))
        #expect(response.status == 204)
        let sent = try #require(server.requests.first).lowercased()
        #expect(sent.hasPrefix("put /doc http/1.1\r\n"))
        #expect(sent.contains("\r\ncontent-length: 4000\r\n"))
        #expect(!sent.contains("expect:"))
        #expect(!sent.contains("content-type:"))
        #expect(sent.hasSuffix(String(repeating: "x", count: 4000)))
    }

    @Test(arguments: TransportKind.allCases)
    func postWithoutBodySendsZeroLength(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: "ok")))
        defer { server.stop() }
        _ = try await fast(kind).send(ClientRequest(method: .post, url: server.url("/rollback"),
                                            headers: ["Content-Type": "application/json"]))
        let sent = try #require(server.requests.first).lowercased()
        #expect(sent.hasPrefix("post /rollback http/1.1\r\n"))
        #expect(sent.contains("\r\ncontent-length: 0\r\n"))
        #expect(sent.contains("\r\ncontent-type: application/json\r\n"))
    }

    @Test(arguments: TransportKind.allCases)
    func serverErrorIsAResponseNotAnError(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 500, body: "{\"error\":{}}")))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(url: server.url()))
        #expect(response.status == 500)
        #expect(response.body.count == 12)
    }

    /// No cache of the transport's own answers or revalidates: a 304 reaches the caller as the server sent it,
    /// and the validator goes out exactly as given.
    @Test(arguments: TransportKind.allCases)
    func notModifiedReachesTheCaller(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(Array("HTTP/1.1 304 Not Modified\r\nETag: \"v7\"\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        let request = ClientRequest(url: server.url("/document"), headers: ["If-None-Match": "\"v7\""])
        for _ in 0..<2 {
            let response = try await fast(kind).send(request)
            #expect(response.status == 304)
            #expect(response.body.isEmpty)
        }
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.contains("\r\nIf-None-Match: \"v7\"\r\n") })
    }

    @Test(arguments: TransportKind.allCases)
    func tooManyRequestsKeepsRetryAfter(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 429, headers: [("Retry-After", "120")])))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(url: server.url()))
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "120")
    }

    @Test(arguments: TransportKind.allCases)
    func interimContinueIsSkipped(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(Array("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n".utf8)
                                            + FaultServer.response(status: 201, body: "made")))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(method: .post, url: server.url(), body: Data("a".utf8)))
        #expect(response.status == 201)
        #expect(!response.headers.contains("X-Interim"))
    }

    @Test(arguments: TransportKind.allCases)
    func silentServerTimesOutWithinTotalTimeout(_ kind: TransportKind) async throws {
        let server = try FaultServer(.neverAnswer)
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(totalTimeout: .milliseconds(600)))
        let started = ContinuousClock.now
        let error = try #require(await failure(transport, ClientRequest(url: server.url())))
        let elapsed = ContinuousClock.now - started
        #expect(error.kind == .timedOut)
        #expect(error.curlCode == (kind.isCurl ? 28 : nil))
        #expect(elapsed >= .milliseconds(500))
        // Generous: under a loaded parallel run the awaiting task may wait for a cooperative thread long after curl gave up.
        #expect(elapsed < .seconds(60), "generous bound: the timeout, not the test, must end the transfer")
    }

    @Test(arguments: TransportKind.allCases)
    func garbageIsInvalidResponse(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(Array("SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n".utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast(kind), ClientRequest(url: server.url())))
        #expect(error.kind == .invalidResponse, "\(error)")
        #expect(!error.message.isEmpty)
    }

    @Test(arguments: TransportKind.allCases)
    func closeWithoutReplyIsInvalidResponse(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply([]))
        defer { server.stop() }
        let error = try #require(await failure(fast(kind), ClientRequest(url: server.url())))
        #expect(error.kind == .invalidResponse, "\(error)")
        #expect(error.curlCode == (kind.isCurl ? 52 : nil))
    }

    @Test(arguments: TransportKind.allCases)
    func truncatedBodyIsDetected(_ kind: TransportKind) async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n"
        let server = try FaultServer(.reply(Array((head + "{\"flags\":").utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast(kind), ClientRequest(url: server.url())))
        #expect(error.kind == .truncatedBody)
        #expect(error.curlCode == (kind.isCurl ? 18 : nil))
    }

    @Test(arguments: TransportKind.allCases)
    func announcedBodyOverLimitIsRefused(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: String(repeating: "a", count: 5000))))
        defer { server.stop() }
        let error = try #require(await failure(fast(kind), ClientRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 1024))
        #expect(error.message.contains("exceeds limit 1024"))
    }

    @Test(arguments: TransportKind.allCases)
    func unannouncedBodyOverLimitIsAborted(_ kind: TransportKind) async throws {
        // No Content-Length: only the write callback can notice.
        let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
        let server = try FaultServer(.reply(Array((head + String(repeating: "b", count: 5000)).utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast(kind), ClientRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 1024))
        #expect(error.curlCode == (kind.isCurl ? 23 : nil))
    }

    @Test(arguments: TransportKind.allCases)
    func bodyExactlyAtLimitIsAccepted(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: String(repeating: "c", count: 1024))))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(url: server.url()))
        #expect(response.body.count == 1024)
    }

    @Test(arguments: TransportKind.allCases)
    func slowDripTimesOut(_ kind: TransportKind) async throws {
        let body = Array(String(repeating: "d", count: 200).utf8)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n".utf8)
        let server = try FaultServer(.drip(head: head, body: body, chunk: 1, interval: .milliseconds(100)))
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(totalTimeout: .milliseconds(800)))
        let error = try #require(await failure(transport, ClientRequest(url: server.url())))
        #expect(error.kind == .timedOut)
    }

    @Test(arguments: TransportKind.allCases)
    func dripWithinTimeoutIsReassembled(_ kind: TransportKind) async throws {
        let body = Array("{\"flags\":{\"premiumFeaturesLocked\":{}}}".utf8)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let server = try FaultServer(.drip(head: head, body: body, chunk: 7, interval: .milliseconds(10)))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(url: server.url()))
        #expect(Array(response.body) == body)
    }

    @Test(arguments: TransportKind.allCases)
    func refusedConnection(_ kind: TransportKind) async throws {
        let (fd, port) = try Socket.boundNotListening()
        defer { Socket.close(fd) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let error = try #require(await failure(fast(kind), ClientRequest(url: url)))
        #expect(error.kind == .connectionFailed)
        #expect(error.curlCode == (kind.isCurl ? 7 : nil))
    }

    @Test(arguments: TransportKind.allCases)
    func httpsToAPlainServerFailsTLS(_ kind: TransportKind) async throws {
        let server = try FaultServer(.greet(FaultServer.response(status: 200, body: "plain")))
        defer { server.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let error = try #require(await failure(fast(kind), ClientRequest(url: url)))
        #expect(error.kind == .tls, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheTaskAbortsTheTransfer(_ kind: TransportKind) async throws {
        let server = try FaultServer(.neverAnswer)
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(totalTimeout: .seconds(60)))
        let task = Task { try await transport.send(ClientRequest(url: server.url())) }
        for _ in 0..<500 where server.acceptedConnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let result = await task.result
        #expect(throws: TransportError.self) { try result.get() }
        if case .failure(let error as TransportError) = result { #expect(error.kind == .cancelled) }
    }

    @Test(arguments: TransportKind.allCases, ["ftp://127.0.0.1/x", "file:///etc/passwd", "/relative"])
    func refusesNonHTTPURLs(_ kind: TransportKind, _ text: String) async throws {
        let url = try #require(URL(string: text))
        let error = try #require(await failure(fast(kind), ClientRequest(url: url)))
        #expect(error.kind == .invalidRequest)
        #expect(error.curlCode == nil)
    }

    @Test(arguments: TransportKind.allCases)
    func refusesHeaderInjectionAndBadMethods(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200)))
        defer { server.stop() }
        let injected = ClientRequest(url: server.url(), headers: ["X-Evil": "a\r\nHost: other"])
        #expect(await failure(fast(kind), injected)?.kind == .invalidRequest)
        let badMethod = ClientRequest(method: ClientMethod(rawValue: "GET /x HTTP/1.1\r\n"), url: server.url())
        #expect(await failure(fast(kind), badMethod)?.kind == .invalidRequest)
        #expect(server.acceptedConnections == 0)
    }

    /// A redirect is a response like any other: the client must never be sent elsewhere silently.
    @Test(arguments: TransportKind.allCases, [301, 302, 307, 308])
    func redirectsAreNotFollowed(_ kind: TransportKind, _ status: Int) async throws {
        let target = try FaultServer(.reply(FaultServer.response(status: 200, body: "elsewhere")))
        defer { target.stop() }
        let server = try FaultServer(.reply(FaultServer.response(
            status: status, headers: [("Location", target.url("/elsewhere").absoluteString)], body: "moved")))
        defer { server.stop() }
        let response = try await fast(kind).send(ClientRequest(url: server.url("/v1/document")))
        #expect(response.status == status)
        #expect(response.headers["location"] == target.url("/elsewhere").absoluteString)
        #expect(String(decoding: response.body, as: UTF8.self) == "moved")
        #expect(target.acceptedConnections == 0)
    }

    /// A server that answers with a body of no announced length, 800 x 64 KiB = 50 MiB, `pause` seconds between
    /// pieces, counting what it managed to write before the client closed.
    static func flood(counting written: Locked<Int>, pause: TimeInterval?) throws -> FaultServer {
        try FaultServer(.custom { fd, _ in
            guard Socket.write(fd, Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8)) else { return }
            let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
            for _ in 0..<800 {
                guard Socket.write(fd, chunk) else { return }
                written.withLock { $0 += chunk.count }
                if let pause { Thread.sleep(forTimeInterval: pause) }
            }
        })
    }

    /// A body with no announced length is stopped at the limit while it streams: the server cannot push 50 MB
    /// into the client's memory. What it managed to write before the connection closed is what the kernel's
    /// socket buffers hold, far below the 50 MB.
    @Test(arguments: TransportKind.allCases)
    func streamingBodyStopsAtTheLimit(_ kind: TransportKind) async throws {
        let written = Locked(0)
        let server = try Self.flood(counting: written, pause: nil)
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(totalTimeout: .seconds(20), maxResponseBodyBytes: 256 << 10))
        let error = try #require(await failure(transport, ClientRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 256 << 10))
        server.stop()
        let sent = written.withLock { $0 }
        guard kind.isURLSessionOnLinux else {
            #expect(sent < 16 << 20, "the server wrote \(sent) bytes: the transport kept reading past its limit")
            return
        }
        // FoundationNetworking has no flow control between its libcurl loop and the delegate queue: the delegate
        // stops the body at the limit (the error above), but what libcurl read before the cancellation reached
        // it sits queued meanwhile, and on loopback that is the whole flood (docs/client.md, "Two transports").
        withKnownIssue("FoundationNetworking reads ahead of the session delegate without flow control", isIntermittent: true) {
            #expect(sent < 16 << 20, "the server wrote \(sent) bytes before the cancellation took effect")
        }
    }

    /// At a network's pace (not loopback's), the cancellation at the limit closes the connection on every
    /// transport: the server's writes fail long before its 50 MB are out.
    @Test(arguments: TransportKind.allCases)
    func pacedStreamingBodyEndsTheConnectionAtTheLimit(_ kind: TransportKind) async throws {
        let written = Locked(0)
        let server = try Self.flood(counting: written, pause: 0.002)  // 32 MB/s
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(totalTimeout: .seconds(20), maxResponseBodyBytes: 256 << 10))
        let error = try #require(await failure(transport, ClientRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 256 << 10))
        server.stop()
        let sent = written.withLock { $0 }
        #expect(sent < 16 << 20, "the server wrote \(sent) bytes: the transport kept reading past its limit")
    }

    /// The connect timeout holds when nothing completes the handshake: a listener whose accept queue is full
    /// drops further SYNs (Linux, `tcp_abort_on_overflow` 0), so the connect hangs as behind a dead host.
    @Test(arguments: TransportKind.allCases)
    func connectTimeoutHoldsWhenTheHandshakeNeverCompletes(_ kind: TransportKind) async throws {
        let (listener, port) = try Socket.listenOnLoopback(backlog: 0)
        defer { Socket.close(listener) }
        // Fill the accept queue (backlog 0 still admits one) and leave the connections unaccepted.
        let fillers = (0..<4).compactMap { _ in Socket.connectNonBlocking(port: port) }
        defer { fillers.forEach(Socket.close) }
        try await Task.sleep(for: .milliseconds(100))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let transport = kind.makeTransport(options: TransportOptions(connectTimeout: .milliseconds(500), totalTimeout: .seconds(30)))
        let started = ContinuousClock.now
        let error = try #require(await failure(transport, ClientRequest(url: url)))
        let elapsed = ContinuousClock.now - started
        #expect(error.kind == .timedOut, "\(error)")
        #expect(elapsed < .seconds(15), "the connect timeout, not the 30 s total, must end it (took \(elapsed))")
    }

    @Test(arguments: TransportKind.allCases)
    func manyConcurrentRequests(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: "ok")))
        defer { server.stop() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await fast(kind).send(ClientRequest(url: server.url())).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 16))
    }
}

/// Real TLS (a Python `ssl` server with a fixture CA): certificate checks are on and `caFile` is what makes them pass.
@Suite(.serialized) struct HTTPTransportTLSTests {
    /// The transports that can trust a private CA here: libcurl (`CURLOPT_CAINFO`) and, on Apple platforms,
    /// URLSession (anchors in the server-trust challenge). FoundationNetworking offers no such challenge.
    static let withCustomCA: [TransportKind] = TransportKind.allCases.filter { !$0.isURLSessionOnLinux }

    @Test(arguments: withCustomCA)
    func trustedCertificateSucceeds(_ kind: TransportKind) async throws {
        let server = try TLSServer()
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(caFile: TLSServer.caFile))
        let response = try await transport.send(ClientRequest(url: server.url()))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
    }

    @Test(.disabled("""
        FoundationNetworking on Linux never asks the delegate about server trust and has no CA setting, so \
        URLSessionTransport cannot trust the fixture CA here; on Apple platforms the delegate evaluates the trust \
        against TransportOptions.caFile (docs/client.md)
        """))
    func urlSessionTrustsTheCAFileOnApplePlatforms() {}

    @Test(arguments: TransportKind.allCases)
    func unknownCertificateAuthorityIsRefused(_ kind: TransportKind) async throws {
        let server = try TLSServer()
        defer { server.stop() }
        do {
            _ = try await kind.makeTransport().send(ClientRequest(url: server.url()))
            Issue.record("a certificate from an unknown CA was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
            #expect(error.curlCode == (kind.isCurl ? 60 : nil))
        }
    }

    @Test(arguments: withCustomCA)
    func wrongHostNameIsRefused(_ kind: TransportKind) async throws {
        let server = try TLSServer()
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(caFile: TLSServer.caFile))
        do {
            // The certificate names IP 127.0.0.1 only; `localhost` reaches the same socket but must not match.
            _ = try await transport.send(ClientRequest(url: server.url(host: "localhost")))
            Issue.record("a certificate for another host name was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
            if kind.isCurl { #expect(error.curlCode == 60 || error.curlCode == 51) }
        }
    }

    /// Where the CA file cannot be honoured, no request goes out under the system's trust instead.
    @Test func urlSessionOnLinuxRefusesACAFileClearly() async throws {
        guard TransportKind.urlSession.isURLSessionOnLinux else { return }
        let server = try TLSServer()
        defer { server.stop() }
        let transport = URLSessionTransport(options: TransportOptions(caFile: TLSServer.caFile))
        do {
            _ = try await transport.send(ClientRequest(url: server.url()))
            Issue.record("a request was sent although the CA file cannot be used")
        } catch {
            #expect(error.kind == .setupFailed)
            #expect(error.message.contains("FoundationNetworking"))
        }
    }
}

extension TransportKind {
    /// Whether this is libcurl (the case exists only where libcurl is linked).
    var isCurl: Bool { rawValue == "curl" }
    /// URLSession on FoundationNetworking, where a few things differ (docs/client.md, "Two transports").
    var isURLSessionOnLinux: Bool {
        #if os(Linux)
        return self == .urlSession
        #else
        return false
        #endif
    }
}
