import Foundation
import Testing
@testable import FlagClient

/// Real libcurl against real sockets on 127.0.0.1: one fault per test.
@Suite struct CurlTransportTests {
    let fast = CurlTransport(options: TransportOptions(connectTimeout: .seconds(2), totalTimeout: .seconds(5),
                                                       maxResponseBodyBytes: 1024))

    /// Runs `request` and returns the error, or records an issue when it unexpectedly succeeded.
    func failure(_ transport: CurlTransport, _ request: HTTPRequest) async -> TransportError? {
        do {
            let response = try await transport.send(request)
            Issue.record("expected a failure, got status \(response.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test func okResponseWithHeadersAndBody() async throws {
        let server = try FaultServer(.reply(FaultServer.response(
            status: 200, headers: [("ETag", "\"v7\""), ("Cache-Control", "max-age=60"), ("X-Multi", "a"), ("x-multi", "b")],
            body: "{\"flags\":{}}")))
        defer { server.stop() }
        let request = HTTPRequest(url: server.url("/v1/environments/production/document"),
                                  headers: ["If-None-Match": "\"v6\"", "Accept": "application/json"])
        let response = try await fast.send(request)
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "\"v7\"")
        #expect(response.headers.values(for: "X-MULTI") == ["a", "b"])
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"flags\":{}}")
        let sent = try #require(server.requests.first)
        #expect(sent.hasPrefix("GET /v1/environments/production/document HTTP/1.1\r\n"))
        #expect(sent.contains("\r\nIf-None-Match: \"v6\"\r\n"))
    }

    @Test func putSendsBodyWithoutExpectOrFormContentType() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 204)))
        defer { server.stop() }
        // Larger than curl's 1 KiB threshold for adding `Expect: 100-continue`.
        let payload = Data(String(repeating: "x", count: 4000).utf8)
        let response = try await fast.send(HTTPRequest(method: .put, url: server.url("/doc"),
                                                       headers: ["If-Match": "\"v1\""], body: payload))
        #expect(response.status == 204)
        let sent = try #require(server.requests.first).lowercased()
        #expect(sent.hasPrefix("put /doc http/1.1\r\n"))
        #expect(sent.contains("\r\ncontent-length: 4000\r\n"))
        #expect(!sent.contains("expect:"))
        #expect(!sent.contains("content-type:"))
        #expect(sent.hasSuffix(String(repeating: "x", count: 4000)))
    }

    @Test func postWithoutBodySendsZeroLength() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: "ok")))
        defer { server.stop() }
        _ = try await fast.send(HTTPRequest(method: .post, url: server.url("/rollback"),
                                            headers: ["Content-Type": "application/json"]))
        let sent = try #require(server.requests.first).lowercased()
        #expect(sent.hasPrefix("post /rollback http/1.1\r\n"))
        #expect(sent.contains("\r\ncontent-length: 0\r\n"))
        #expect(sent.contains("\r\ncontent-type: application/json\r\n"))
    }

    @Test func serverErrorIsAResponseNotAnError() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 500, body: "{\"error\":{}}")))
        defer { server.stop() }
        let response = try await fast.send(HTTPRequest(url: server.url()))
        #expect(response.status == 500)
        #expect(response.body.count == 12)
    }

    @Test func tooManyRequestsKeepsRetryAfter() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 429, headers: [("Retry-After", "120")])))
        defer { server.stop() }
        let response = try await fast.send(HTTPRequest(url: server.url()))
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "120")
    }

    @Test func interimContinueIsSkipped() async throws {
        let server = try FaultServer(.reply(Array("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n".utf8)
                                            + FaultServer.response(status: 201, body: "made")))
        defer { server.stop() }
        let response = try await fast.send(HTTPRequest(method: .post, url: server.url(), body: Data("a".utf8)))
        #expect(response.status == 201)
        #expect(!response.headers.contains("X-Interim"))
    }

    @Test func silentServerTimesOutWithinTotalTimeout() async throws {
        let server = try FaultServer(.neverAnswer)
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions(totalTimeout: .milliseconds(600)))
        let started = ContinuousClock.now
        let error = try #require(await failure(transport, HTTPRequest(url: server.url())))
        let elapsed = ContinuousClock.now - started
        #expect(error.kind == .timedOut)
        #expect(error.curlCode == 28)
        #expect(elapsed >= .milliseconds(500))
        // Generous: under a loaded parallel run the awaiting task may wait for a cooperative thread long after curl gave up.
        #expect(elapsed < .seconds(60), "generous bound: the timeout, not the test, must end the transfer")
    }

    @Test func garbageIsInvalidResponse() async throws {
        let server = try FaultServer(.reply(Array("SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n".utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast, HTTPRequest(url: server.url())))
        #expect(error.kind == .invalidResponse)
        #expect(!error.message.isEmpty)
    }

    @Test func closeWithoutReplyIsInvalidResponse() async throws {
        let server = try FaultServer(.reply([]))
        defer { server.stop() }
        let error = try #require(await failure(fast, HTTPRequest(url: server.url())))
        #expect(error.kind == .invalidResponse)
        #expect(error.curlCode == 52)
    }

    @Test func truncatedBodyIsDetected() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n"
        let server = try FaultServer(.reply(Array((head + "{\"flags\":").utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast, HTTPRequest(url: server.url())))
        #expect(error.kind == .truncatedBody)
        #expect(error.curlCode == 18)
    }

    @Test func announcedBodyOverLimitIsRefused() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: String(repeating: "a", count: 5000))))
        defer { server.stop() }
        let error = try #require(await failure(fast, HTTPRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 1024))
        #expect(error.message.contains("exceeds limit 1024"))
    }

    @Test func unannouncedBodyOverLimitIsAborted() async throws {
        // No Content-Length: only the write callback can notice.
        let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
        let server = try FaultServer(.reply(Array((head + String(repeating: "b", count: 5000)).utf8)))
        defer { server.stop() }
        let error = try #require(await failure(fast, HTTPRequest(url: server.url())))
        #expect(error.kind == .bodyTooLarge(limit: 1024))
        #expect(error.curlCode == 23)
    }

    @Test func bodyExactlyAtLimitIsAccepted() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: String(repeating: "c", count: 1024))))
        defer { server.stop() }
        let response = try await fast.send(HTTPRequest(url: server.url()))
        #expect(response.body.count == 1024)
    }

    @Test func slowDripTimesOut() async throws {
        let body = Array(String(repeating: "d", count: 200).utf8)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n".utf8)
        let server = try FaultServer(.drip(head: head, body: body, chunk: 1, interval: .milliseconds(100)))
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions(totalTimeout: .milliseconds(800)))
        let error = try #require(await failure(transport, HTTPRequest(url: server.url())))
        #expect(error.kind == .timedOut)
    }

    @Test func dripWithinTimeoutIsReassembled() async throws {
        let body = Array("{\"flags\":{\"premiumFeaturesLocked\":{}}}".utf8)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let server = try FaultServer(.drip(head: head, body: body, chunk: 7, interval: .milliseconds(10)))
        defer { server.stop() }
        let response = try await fast.send(HTTPRequest(url: server.url()))
        #expect(Array(response.body) == body)
    }

    @Test func refusedConnection() async throws {
        let (fd, port) = try Socket.boundNotListening()
        defer { Socket.close(fd) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let error = try #require(await failure(fast, HTTPRequest(url: url)))
        #expect(error.kind == .connectionFailed)
        #expect(error.curlCode == 7)
    }

    @Test func httpsToAPlainServerFailsTLS() async throws {
        let server = try FaultServer(.greet(FaultServer.response(status: 200, body: "plain")))
        defer { server.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let error = try #require(await failure(fast, HTTPRequest(url: url)))
        #expect(error.kind == .tls)
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let server = try FaultServer(.neverAnswer)
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions(totalTimeout: .seconds(60)))
        let task = Task { try await transport.send(HTTPRequest(url: server.url())) }
        for _ in 0..<500 where server.acceptedConnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let result = await task.result
        #expect(throws: TransportError.self) { try result.get() }
        if case .failure(let error as TransportError) = result { #expect(error.kind == .cancelled) }
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "/relative"])
    func refusesNonHTTPURLs(_ text: String) async throws {
        let url = try #require(URL(string: text))
        let error = try #require(await failure(fast, HTTPRequest(url: url)))
        #expect(error.kind == .invalidRequest)
        #expect(error.curlCode == nil)
    }

    @Test func refusesHeaderInjectionAndBadMethods() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200)))
        defer { server.stop() }
        let injected = HTTPRequest(url: server.url(), headers: ["X-Evil": "a\r\nHost: other"])
        #expect(await failure(fast, injected)?.kind == .invalidRequest)
        let badMethod = HTTPRequest(method: HTTPMethod(rawValue: "GET /x HTTP/1.1\r\n"), url: server.url())
        #expect(await failure(fast, badMethod)?.kind == .invalidRequest)
        #expect(server.acceptedConnections == 0)
    }

    @Test func manyConcurrentRequests() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: "ok")))
        defer { server.stop() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await fast.send(HTTPRequest(url: server.url())).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 16))
    }
}

/// Real TLS (a Python `ssl` server with a fixture CA): certificate checks are on and `caFile` is what makes them pass.
@Suite(.serialized) struct CurlTransportTLSTests {
    @Test func trustedCertificateSucceeds() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions(caFile: TLSServer.caFile))
        let response = try await transport.send(HTTPRequest(url: server.url()))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
    }

    @Test func unknownCertificateAuthorityIsRefused() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        do {
            _ = try await CurlTransport().send(HTTPRequest(url: server.url()))
            Issue.record("a certificate from an unknown CA was accepted")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.curlCode == 60)
        }
    }

    @Test func wrongHostNameIsRefused() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        let transport = CurlTransport(options: TransportOptions(caFile: TLSServer.caFile))
        do {
            // The certificate names IP 127.0.0.1 only; `localhost` reaches the same socket but must not match.
            _ = try await transport.send(HTTPRequest(url: server.url(host: "localhost")))
            Issue.record("a certificate for another host name was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
            #expect(error.curlCode == 60 || error.curlCode == 51)
        }
    }
}
