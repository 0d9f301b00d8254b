import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import RawHTTPClient
import TestSupport
import Testing
@testable import FlagService

/// `GET /v1/environments/{env}/events` over real sockets against an in-process server.
@Suite struct FlagServiceEventsTests {
    /// One SSE event block as the server sends it: one chunk per event.
    struct Event {
        var id: String?
        var data: String?
        var comments: [String] = []
        var retry: String?

        init(_ bytes: [UInt8]) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                if line.hasPrefix(":") { comments.append(String(line.dropFirst())) }
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
                if line.hasPrefix("retry: ") { retry = String(line.dropFirst(7)) }
            }
        }

        func json() throws -> JSONValue { try JSONParser.parse(Array((data ?? "").utf8)).value }
    }

    /// Opens the stream and checks its head and preamble (blocking reads on a thread of their own, never
    /// on the cooperative pool that other suites' tasks need).
    static func subscribe(_ server: TestServer, environment: String = "production", headers: String = "") async throws -> RawClient {
        let port = server.port
        let (client, head) = try await offPool {
            try RawClient.openStream(port: port, path: "/v1/environments/\(environment)/events", extraHeaders: headers)
        }
        let response = try #require(head)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.header("Cache-Control") == "no-cache")
        #expect(response.header("X-Accel-Buffering") == "no")
        let preamble = try await next(client)
        #expect(preamble.retry == "3000")
        #expect(preamble.data == nil)
        return client
    }

    /// The next event block (one chunk), read off the pool.
    static func next(_ client: RawClient) async throws -> Event {
        guard let chunk = try await offPool({ try client.readChunk() }) else { throw TestFailure("the stream ended") }
        return Event(chunk)
    }

    static func flip(_ server: TestServer, _ value: Bool) async throws {
        let response = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "\(value)")
        #expect(response.status == 200)
    }

    @Test func aPublishedVersionReachesEverySubscriberWithItsETagAndTime() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let clients = [try await Self.subscribe(server), try await Self.subscribe(server)]
        #expect(server.service.events.subscriberCount("production") == 2)
        let before = Int64(Date().timeIntervalSince1970)
        try await Self.flip(server, false)
        let etag = try await server.etag()
        for client in clients {
            let event = try await Self.next(client)
            #expect(event.id == "2")
            let data = try event.json()
            #expect(data["type"] == .string("refetchEvaluation"))
            #expect(data["etag"] == .string(etag))
            let seconds = try #require(data["lastModified"]?.integerValue)
            #expect(seconds >= before - 1 && seconds <= before + 5)
        }
    }

    @Test func anotherEnvironmentsPublishIsNotSent() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let staging = try await Self.subscribe(server, environment: "staging")
        try await Self.flip(server, false)
        let response = try await server.write("PUT", "/v1/environments/staging/flags/showIntroFreeSubscriptionBanner", json: "false")
        #expect(response.status == 200)
        // The first event on the staging stream is staging's own version, not production's.
        let event = try await Self.next(staging)
        #expect(try event.json()["etag"] == .string(try await server.etag("staging")))
    }

    @Test func anOlderLastEventIDGetsTheCurrentVersionAtOnceTheCurrentOneNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let behind = try await Self.subscribe(server, headers: "Last-Event-ID: 1\r\n")
        try await Self.flip(server, false)
        #expect(try await Self.next(behind).id == "2")
        let resumed = try await Self.subscribe(server, headers: "Last-Event-ID: 1\r\n")
        #expect(try await Self.next(resumed).id == "2")
        let current = try await Self.subscribe(server, headers: "Last-Event-ID: 2\r\n")
        try await Self.flip(server, true)
        // Up to date: its first event is the next version's, not a repeat of version 2.
        #expect(try await Self.next(current).id == "3")
    }

    @Test func theReadTokenRulesOfTheDocumentApply() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        let refused = try await server.get("/v1/environments/production/events")
        #expect(refused.status == 401)
        _ = try await Self.subscribe(server, headers: "Authorization: Bearer \(server.readerToken)\r\n")
        let unknown = try await server.get("/v1/environments/nowhere/events", headers: [("Authorization", "Bearer \(server.readerToken)")])
        #expect(unknown.status == 404)
    }

    @Test func aScopedTokenGets403ForAnotherEnvironmentsStream() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        let scoped = try server.token("staging-reader", .reader, environments: ["staging"])
        let refused = try await server.get("/v1/environments/production/events", headers: [("Authorization", "Bearer \(scoped)")])
        #expect(refused.status == 403)
        #expect(try refused.errorCode() == "environment_not_allowed")
        _ = try await Self.subscribe(server, environment: "staging", headers: "Authorization: Bearer \(scoped)\r\n")
    }
}
