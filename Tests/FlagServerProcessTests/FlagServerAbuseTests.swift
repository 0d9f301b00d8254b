import FlagServiceTestSupport
import Foundation
import Glibc
import RawHTTPClient
import TestSupport
import Testing

/// The real `flagserver` process against abuse: no lock-out an attacker can cause, unknown tokens refused
/// before their body, the buffered-body cap as an option, pipelining under a flood.
@Suite struct FlagServerAbuseTests {
    typealias Running = FlagServerHostileInputTests.Running

    static let flip = "/v1/environments/production/flags/showIntroFreeSubscriptionBanner"
    static let ofrep = "/ofrep/v1/evaluate/flags/monetizationEnabled"

    @Test func aThousandInventedTokensFromOneAddressDoNotLockOutItsRealUsers() async throws {
        let running = try await Running.start(["--require-read-token"])
        defer { running.stop() }
        let port = running.port
        // Writes, reads, OFREP and whoami, each with a token nobody was given, all from 127.0.0.1.
        let statuses = try await offPool { () -> [Int: Int] in
            var statuses: [Int: Int] = [:]
            for index in 0..<1000 {
                let client = try RawClient(port: port)
                let token = "sfl_invented\(index)"
                let response: RawClient.Response
                switch index % 4 {
                case 0: response = try client.request("PUT", Self.flip, body: "false",
                                                      headers: [("Authorization", "Bearer \(token)"), ("X-Change-Message", "guess")])
                case 1: response = try client.request("GET", "/v1/environments/production/document", headers: [("Authorization", "Bearer \(token)")])
                case 2: response = try client.request("POST", Self.ofrep, body: #"{"context": {"targetingKey": "a"}}"#, headers: [("X-API-Key", token)])
                default: response = try client.request("GET", "/v1/whoami", headers: [("Authorization", "Bearer \(token)")])
                }
                statuses[response.status, default: 0] += 1
            }
            return statuses
        }
        #expect(statuses == [401: 10, 429: 990], "\(statuses)")

        let writer = [("Authorization", "Bearer \(running.secret)")]
        let reader = [("Authorization", "Bearer \(running.reader)")]
        let flip = try await RawHTTP.request(port: port, method: "PUT", path: Self.flip,
                                             headers: writer + [("Content-Type", "application/json"), ("X-Change-Message", "real")],
                                             body: Array("false".utf8))
        #expect(flip.status == 200, "the writer's flip from the same address")
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/document", headers: reader).status == 200)
        let evaluation = try await RawHTTP.request(port: port, method: "POST", path: Self.ofrep, headers: reader + [("Content-Type", "application/json")],
                                                   body: Array(#"{"context": {"targetingKey": "a"}}"#.utf8))
        #expect(evaluation.status == 200)
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/whoami", headers: writer).status == 200)

        let metrics = try await RawHTTP.request(port: port, method: "GET", path: "/metrics").text
        #expect(metrics.contains(#"flagserver_auth_failures_total{answer="unauthorized"} 10"#), "\(metrics)")
        #expect(metrics.contains(#"flagserver_auth_failures_total{answer="throttled"} 990"#))
        #expect(metrics.contains("flagserver_auth_throttle_clients 1"))
        let log = running.server.errors
        #expect(log.components(separatedBy: "event=auth_failed").count - 1 == 10)
        #expect(log.components(separatedBy: "event=auth_throttled").count - 1 == 1)
        #expect(log.contains("event=auth_throttled client=127.0.0.1"))
        #expect(!log.contains("sfl_invented"))
    }

    /// The failure families, each on its own: invented tokens (`sfl_` and 43 random characters, as real ones look)
    /// on one route family from one address past the failure limit, then every credential kind on every family from
    /// that address: the reader reads (the document, a revalidation with its ETag answered 304, OFREP's bulk
    /// evaluation, whoami) and the writer writes and reads, while a further invented token is still refused with 429.
    @Test(arguments: ["reads", "writes", "ofrep", "whoami"])
    func failuresOnOneFamilyLockNoCredentialOutOfAny(family: String) async throws {
        let running = try await Running.start(["--require-read-token"])
        defer { running.stop() }
        let port = running.port
        let document = "/v1/environments/production/document"
        let bulk = "/ofrep/v1/evaluate/flags"
        func invented() -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            return "sfl_" + String((0..<43).map { _ in alphabet.randomElement() ?? "A" })
        }
        func attempt(_ token: String) async throws -> Int {
            let bearer = [("Authorization", "Bearer \(token)")]
            switch family {
            case "reads": return try await RawHTTP.request(port: port, method: "GET", path: document, headers: bearer).status
            case "writes":
                return try await RawHTTP.request(port: port, method: "PUT", path: Self.flip,
                                                 headers: bearer + [("Content-Type", "application/json"), ("X-Change-Message", "guess")],
                                                 body: Array("false".utf8)).status
            case "ofrep":
                return try await RawHTTP.request(port: port, method: "POST", path: bulk, headers: bearer + [("Content-Type", "application/json")],
                                                 body: Array(#"{"context": {"targetingKey": "a"}}"#.utf8)).status
            default: return try await RawHTTP.request(port: port, method: "GET", path: "/v1/whoami", headers: bearer).status
            }
        }
        var statuses: [Int: Int] = [:]
        for _ in 0..<30 { statuses[try await attempt(invented()), default: 0] += 1 }
        #expect(statuses == [401: 10, 429: 20], "\(family): \(statuses)")

        let reader = [("Authorization", "Bearer \(running.reader)")]
        let writer = [("Authorization", "Bearer \(running.secret)")]
        for (name, credential) in [("reader", reader), ("writer", writer)] {
            let read = try await RawHTTP.request(port: port, method: "GET", path: document, headers: credential)
            #expect(read.status == 200, "\(family) then \(name)'s document GET")
            let etag = try #require(read.header("ETag"))
            let revalidated = try await RawHTTP.request(port: port, method: "GET", path: document,
                                                        headers: credential + [("If-None-Match", etag)])
            #expect(revalidated.status == 304, "\(family) then \(name)'s revalidation")
            let evaluation = try await RawHTTP.request(port: port, method: "POST", path: bulk, headers: credential + [("Content-Type", "application/json")],
                                                       body: Array(#"{"context": {"targetingKey": "a"}}"#.utf8))
            #expect(evaluation.status == 200, "\(family) then \(name)'s OFREP bulk evaluation")
            #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/whoami", headers: credential).status == 200,
                    "\(family) then \(name)'s whoami")
        }
        let flip = try await RawHTTP.request(port: port, method: "PUT", path: Self.flip,
                                             headers: writer + [("Content-Type", "application/json"), ("X-Change-Message", "real")],
                                             body: Array("false".utf8))
        #expect(flip.status == 200, "\(family) then the writer's flip")
        let readerFlip = try await RawHTTP.request(port: port, method: "PUT", path: Self.flip,
                                                   headers: reader + [("Content-Type", "application/json"), ("X-Change-Message", "real")],
                                                   body: Array("false".utf8))
        #expect(readerFlip.status == 403, "\(family) then the reader's flip: its role, never the address's failures")
        #expect(try await attempt(invented()) == 429, "the address is still throttled for failures")
    }

    /// Behind a trusted proxy, an attacker rotating through the addresses of its IPv6 /64 is one client: its
    /// failures add up and the throttle's table holds one entry for it.
    @Test func rotatedIPv6AddressesCountAsTheirSlash64() async throws {
        let running = try await Running.start(["--trusted-proxy", "127.0.0.1", "--auth-failure-limit", "3"])
        defer { running.stop() }
        var statuses: [Int] = []
        for index in 1...6 {
            let response = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/whoami",
                                                     headers: [("Authorization", "Bearer sfl_rotating"),
                                                               ("X-Forwarded-For", "2001:db8:7:9::\(String(index, radix: 16))")])
            statuses.append(response.status)
        }
        #expect(statuses == [401, 401, 401, 429, 429, 429])
        let other = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/whoami",
                                              headers: [("Authorization", "Bearer sfl_rotating"), ("X-Forwarded-For", "2001:db8:7:a::1")])
        #expect(other.status == 401, "another /64 is another client")
        let metrics = try await RawHTTP.request(port: running.port, method: "GET", path: "/metrics").text
        #expect(metrics.contains("flagserver_auth_throttle_clients 2"), "\(metrics)")
        #expect(running.server.errors.contains("event=auth_throttled client=2001:db8:7:9::"))
    }

    /// The head check: a token the server does not know is refused before a byte of the body is read, on the
    /// API and on OFREP; the server never waits for the announced megabyte.
    @Test func unknownTokensAreRefusedBeforeTheirBody() async throws {
        let running = try await Running.start(["--require-read-token"])
        defer { running.stop() }
        let port = running.port
        // The head check trusts a miss in the token table only while the database is as it was when the table
        // was read (a token may have just been made by another process); the server reloads it every 2 s.
        try await Task.sleep(for: .milliseconds(4500))
        for (path, credential) in [(Self.flip, "Authorization: Bearer sfl_unknown"), (Self.ofrep, "X-API-Key: sfl_unknown")] {
            let head = "\(path.hasPrefix("/ofrep") ? "POST" : "PUT") \(path) HTTP/1.1\r\nHost: h\r\n\(credential)\r\n"
                + "Content-Type: application/json\r\nX-Change-Message: x\r\nContent-Length: 1048576\r\n\r\n"
            let started = Date()
            let raw = try await offPool { try RawHTTP.exchange(port: port, bytes: Array(head.utf8), timeoutSeconds: 20) }
            #expect(try RawHTTP.parse(raw, method: "PUT").status == 401, "\(path)")
            // No byte of the body is ever sent: a server that waited for it would answer nothing before the read gives
            // up (20 s), and after its own body timeout (30 s) not 401. The time is only a safety net.
            #expect(Date().timeIntervalSince(started) < 15, "answered from the head, not after a body timeout")
        }
        // A known token's body is read and the write goes through.
        let flip = try await RawHTTP.request(port: port, method: "PUT", path: Self.flip,
                                             headers: [("Authorization", "Bearer \(running.secret)"), ("Content-Type", "application/json"),
                                                       ("X-Change-Message", "known")], body: Array("false".utf8))
        #expect(flip.status == 200)
    }

    /// RFC 9112 §9.3.2 under a flood: 10,000 pipelined GETs written without reading, on one connection and on
    /// eight at once, then read: every answer in order (documents and health checks alternate, so a lost or
    /// reordered answer shows), the server's RSS bounded while the answers wait, another client served meanwhile.
    @Test(.timeLimit(.minutes(5))) func pipelinedFloodsAreAnsweredInOrderWithBoundedMemory() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let port = running.port
        let count = 10_000
        let flood = Array((0..<count).map { index in
            index % 2 == 0 ? "GET /v1/environments/production/document HTTP/1.1\r\nHost: h\r\n\r\n" : "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n"
        }.joined().utf8)
        let inOrder = { @Sendable (client: RawClient) throws -> Int in
            try client.readPipelined(count: count) { index, head, body in
                head.hasPrefix("HTTP/1.1 200") && (index % 2 == 0) == (body.count > 1000)
            }
        }
        let single = try await offPool { () -> Int in
            let client = try RawClient(port: port, timeoutSeconds: 30)
            Thread.detachNewThread { try? client.send(flood) }
            usleep(500_000)
            return try inOrder(client)
        }
        #expect(single == count)

        let before = running.residentKiB
        let clients = try (0..<8).map { _ in try RawClient(port: port, timeoutSeconds: 60) }
        for client in clients { Thread.detachNewThread { try? client.send(flood) } }
        try await Task.sleep(for: .seconds(2))
        let started = ContinuousClock.now
        let other = try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/document")
        #expect(other.status == 200)
        // A server that served it only after the flood was read would not answer before the read gives up (20 s): the
        // flood is read after this request. The time is only a safety net.
        #expect(ContinuousClock.now - started < .seconds(15), "another client is served while the flood waits unread")
        let peak = running.residentKiB
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in clients { group.addTask { try await offPool { try inOrder(client) } } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answered == Array(repeating: count, count: 8), "answers per connection")
        #expect(peak - before < 64 * 1024, "RSS \(before) -> \(peak) KiB")
        print("flagserver flood: 1 connection \(single) answers; 8 connections \(answered); RSS \(before) -> \(peak) KiB while unread")
    }

    @Test func theBufferedBodyCapIsAnOption() async throws {
        let running = try await Running.start(["--max-body-bytes", "600000", "--max-buffered-body-bytes", "1000000"])
        defer { running.stop() }
        let port = running.port
        let head = "PUT /v1/environments/production/document HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(running.secret)\r\n"
            + "Content-Type: application/json\r\nX-Change-Message: cap\r\nContent-Length: 600000\r\n\r\n"
        let outcome = try await offPool { () -> (Int?, Int?) in
            // The first body holds 600,000 of the 1,000,000 bytes while it arrives; a second one does not fit.
            let first = try RawClient(port: port)
            try first.send(head + "{")
            usleep(200_000)
            let second = try RawClient(port: port, timeoutSeconds: 5)
            try second.send(head)
            let refused = try second.readResponse()
            return (refused?.status, refused.flatMap { $0.header("Retry-After").flatMap(Int.init) })
        }
        #expect(outcome.0 == 503)
        #expect(outcome.1 == 1)
        let metrics = try await RawHTTP.request(port: port, method: "GET", path: "/metrics").text
        #expect(metrics.contains(#"flagserver_http_responses_total{status="503"} 1"#))
    }
}
