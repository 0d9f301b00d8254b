import Foundation
import Glibc
import RawHTTPClient
import Synchronization
import Testing
@testable import HTTPServer

/// Pipelining under a flood (RFC 9112 §9.3.2): a client writes thousands of requests without reading,
/// then reads. Every request is answered in order, the server's memory stays bounded while the answers wait
/// (it stops reading at its output limit and lets TCP hold the rest), and other clients are answered meanwhile.
@Suite(.serialized) struct ConnectionFloodTests {
    static let requests = 10_000

    /// The requests of one flooding client, each naming its number.
    static func flood(_ path: String = "/flood/") -> [UInt8] {
        Array((0..<requests).map { "GET \(path)\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined().utf8)
    }

    /// `ConnectionTests`' routes and `/flood/{n}`: 600 bytes naming the request, so 10,000 answers (6.5 MB)
    /// pass the 1 MiB output limit several times.
    static func routes(_ builder: inout HTTPRouter.Builder) {
        ConnectionTests.routes(&builder)
        builder.add(.GET, "/flood/{n}") { _, context in
            HTTPResponse(body: Array("\(context.pathParameters["n"] ?? "")\n".utf8) + [UInt8](repeating: 0x2E, count: 600))
        }
        // flagserver's document is about this size.
        builder.add(.GET, "/document/{n}") { _, context in
            HTTPResponse(body: Array("\(context.pathParameters["n"] ?? "")\n".utf8) + [UInt8](repeating: 0x2E, count: 6500))
        }
    }

    /// The resident set of this process in KiB.
    static func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Writes `bytes` on `client` from a thread of its own (a client that writes without reading); the latch
    /// opens when everything was handed to the kernel.
    static func write(_ bytes: [UInt8], on client: RawClient) -> Latch {
        let done = Latch()
        Thread.detach {
            try? client.send(bytes)
            done.open()
        }
        return done
    }

    /// Reads `count` answers: how many came in order, each `200` naming its request.
    static func readInOrder(_ client: RawClient, count: Int) throws -> Int {
        try client.readPipelined(count: count) { index, head, body in
            head.hasPrefix("HTTP/1.1 200") && body.starts(with: Array("\(index)\n".utf8))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func tenThousandPipelinedRequestsOnOneConnectionAreAllAnsweredInOrder() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let answered = try await offPool { () -> Int in
                let client = try RawClient(port: port, timeoutSeconds: 20)
                let written = Self.write(Self.flood(), on: client)
                usleep(500_000)
                let count = try Self.readInOrder(client, count: Self.requests)
                written.wait()
                return count
            }
            #expect(answered == Self.requests)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func eightFloodingConnectionsAreAllAnsweredAndOthersMeanwhile() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let before = Self.residentKiB()
            let flood = Self.flood()
            let clients = try (0..<8).map { _ in try RawClient(port: port, timeoutSeconds: 30) }
            let writes = clients.map { Self.write(flood, on: $0) }
            // Nothing is read yet: 8 x 10,000 answers (200 MB) wait; the server holds only what its output
            // limit allows per connection, and the kernel the rest of the requests.
            try await Task.sleep(for: .seconds(1))
            let others = try await offPool { () -> (Int, Duration) in
                let start = ContinuousClock.now
                let other = try RawClient(port: port, timeoutSeconds: 5)
                let response = try other.request("GET", "/hello")
                return (response.status, ContinuousClock.now - start)
            }
            #expect(others.0 == 200, "another client is answered while the flood waits")
            #expect(others.1 < .seconds(5), "not behind the flood")
            let peak = Self.residentKiB()
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in clients {
                    group.addTask { try await offPool { try Self.readInOrder(client, count: Self.requests) } }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            for write in writes { write.wait() }
            #expect(answered == Array(repeating: Self.requests, count: 8), "answers per connection")
            #expect(peak - before < 64 * 1024, "RSS grew \(peak - before) KiB with 8 x 10,000 unread answers")
            print("flood: 8 connections x \(Self.requests) pipelined GETs, answers \(answered); RSS \(before) -> \(peak) KiB while unread")
            #expect(server.metrics().responsesByStatus[200] ?? 0 >= 8 * Self.requests)
        }
    }

    /// A flooding client that does not read within the write timeout is given up on, closed in stages (RFC 9112
    /// §9.6): the write side is shut after what the kernel already holds, and its unread requests are drained, so
    /// the close is a FIN, not a reset that would destroy the answers already on their way.
    @Test(.timeLimit(.minutes(1)))
    func aClientThatReadsTooLateGetsTheAnswersSentThenAnOrderlyClose() async throws {
        try await withServer({ $0.timeouts.write = .milliseconds(300) }, routes: Self.routes) { server, port in
            let outcome = try await offPool { () -> (bytes: Int, end: Int32) in
                let client = try RawClient(port: port, timeoutSeconds: 10)
                let written = Self.write(Self.flood("/document/"), on: client)
                usleep(1_500_000)
                // Everything until the stream ends: 0 from recv is an orderly end, -1 with ECONNRESET a reset.
                var bytes = 0
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                var n = 1
                while n > 0 {
                    n = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                    if n > 0 { bytes += n }
                }
                let end = n == 0 ? 0 : errno
                written.wait()
                return (bytes, end)
            }
            #expect(outcome.end == 0, "an orderly close (FIN), not a reset: errno \(outcome.end)")
            #expect(outcome.bytes > 1 << 20, "what the kernel held reached the client: \(outcome.bytes) bytes")
            print("late reader: \(outcome.bytes) bytes (\(outcome.bytes / 6600) answers), then \(outcome.end == 0 ? "end of stream" : "errno \(outcome.end)")")
            #expect(server.metrics().connectionsTimedOut >= 1)
        }
    }
}
