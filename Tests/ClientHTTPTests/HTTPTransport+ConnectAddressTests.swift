import Foundation
import Testing
@testable import ClientHTTP
import TransportTestSupport

/// `ClientRequest.connectAddress`: libcurl connects to the given address whatever the URL's host resolves to (or
/// whatever host it names), keeps the URL's host in `Host` and in the certificate check; URLSession refuses.
@Suite struct HTTPTransportConnectAddressTests {
    // libcurl pins; the app's build (FLAGCLIENT_TRANSPORT=urlsession) has no libcurl, only the refusal below.
    #if canImport(CCurl)
    static let transport = TransportKind.curl.makeTransport(options: TransportOptions(connectTimeout: .seconds(5), totalTimeout: .seconds(10)))

    @Test func aPinnedRequestReachesTheAddressAndKeepsTheURLsHost() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 204)))
        defer { server.stop() }
        // A name that resolves nowhere (RFC 6761 §6.4), then a host that is another address: both reach the pinned one.
        for (host, address) in [("pinned.invalid", "127.0.0.1"), ("192.0.2.1", "127.0.0.1"), ("pinned.invalid", "::ffff:127.0.0.1")] {
            let url = try #require(URL(string: "http://\(host):\(server.port)/hook"))
            let response = try await Self.transport.send(ClientRequest(method: .post, url: url, body: Data("{}".utf8), connectAddress: address))
            #expect(response.status == 204, "\(host) via \(address)")
            #expect(server.requests.last?.contains("\r\nHost: \(host):\(server.port)\r\n") == true, "\(server.requests.last ?? "")")
        }
        #expect(server.requests.count == 3)
    }

    @Test func withoutAPinTheSameNameDoesNotResolve() async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 204)))
        defer { server.stop() }
        let url = try #require(URL(string: "http://pinned.invalid:\(server.port)/hook"))
        do {
            _ = try await Self.transport.send(ClientRequest(url: url))
            Issue.record("pinned.invalid resolved")
        } catch {
            #expect(error.kind == .connectionFailed, "\(error)")
        }
        #expect(server.acceptedConnections == 0)
    }

    @Test func aPinnedTLSConnectionIsVerifiedAgainstTheURLsHostNotTheAddress() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        let transport = TransportKind.curl.makeTransport(options: TransportOptions(caFile: TLSServer.caFile))
        // The certificate names 127.0.0.1: pinned there under its own name the exchange succeeds...
        #expect(try await transport.send(ClientRequest(url: server.url(), connectAddress: "127.0.0.1")).status == 200)
        // ...under another name the same socket's certificate does not match that name.
        do {
            _ = try await transport.send(ClientRequest(url: server.url(host: "pinned.invalid"), connectAddress: "127.0.0.1"))
            Issue.record("a certificate for 127.0.0.1 was accepted for pinned.invalid")
        } catch {
            #expect(error.kind == .tls, "\(error)")
        }
    }
    #endif

    @Test func aConnectAddressThatIsNotNumericOrOnURLSessionIsRefused() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        #expect(ClientRequest(url: url, connectAddress: "127.0.0.1").problem == nil)
        #expect(ClientRequest(url: url, connectAddress: "2001:db8::1").problem == nil)
        for bad in ["", "localhost", "[::1]", "127.0.0.1:80:evil", "1.2.3.4\r\n"] {
            #expect(ClientRequest(url: url, connectAddress: bad).problem?.contains("not a numeric") == true, "\(bad.debugDescription)")
        }
        do {
            _ = try await TransportKind.urlSession.makeTransport().send(ClientRequest(url: url, connectAddress: "127.0.0.1"))
            Issue.record("URLSession sent a request it cannot pin")
        } catch {
            #expect(error.kind == .invalidRequest && error.message.contains("connectAddress"), "\(error)")
        }
    }
}
