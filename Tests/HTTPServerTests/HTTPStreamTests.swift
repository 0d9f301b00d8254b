import Glibc
import RawHTTPClient
import Synchronization
import Testing
@testable import HTTPServer

/// Streaming responses over real sockets: order, cross-thread writes, back-pressure, limits, heartbeats, stop.
@Suite struct HTTPStreamTests {
    /// The streams the route opened, in order.
    final class Opened: Sendable {
        let streams = Mutex<[HTTPStream]>([])
        var all: [HTTPStream] { streams.withLock { $0 } }
        func count() -> Int { streams.withLock { $0.count } }
    }

    static let heartbeat: [UInt8] = Array(": hb\n\n".utf8)

    static func routes(_ opened: Opened) -> (inout HTTPRouter.Builder) -> Void {
        { b in
            b.add(.GET, "/stream", handler: HTTPDeferredHandler { _, _, responder in
                let head = HTTPResponse(headers: ["Content-Type": "text/event-stream"])
                if let stream = responder.openStream(head, heartbeat: heartbeat) {
                    opened.streams.withLock { $0.append(stream) }
                }
            })
            b.add(.GET, "/hello") { _, _ in .text("hello") }
        }
    }

    /// Opens `/stream` and reads the head; the stream is `opened.all[index]` once the handler ran.
    /// Blocking reads run on a thread of their own (`offPool`), never on the cooperative pool.
    static func subscribe(_ port: Int, _ opened: Opened, index: Int) async throws -> RawClient {
        let (client, response) = try await offPool { try RawClient.openStream(port: port, path: "/stream") }
        let head = try #require(response)
        #expect(head.status == 200)
        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(head.header("Content-Length") == nil)
        #expect(await eventually { opened.count() > index })
        return client
    }

    /// The next chunk, read off the pool.
    static func chunk(_ client: RawClient) async throws -> [UInt8]? {
        try await offPool { try client.readChunk() }
    }

    @Test func bytesWrittenFromAnotherThreadArriveAsChunksInOrderThenTheLastChunk() async throws {
        let opened = Opened()
        try await withServer({ $0.timeouts.idle = .seconds(1) }, routes: Self.routes(opened)) { server, port in
            let client = try await Self.subscribe(port, opened, index: 0)
            let stream = opened.all[0]
            try await offPool {
                for i in 0..<50 { stream.send(Array("event \(i)\n".utf8)) }
                stream.finish()
            }
            for i in 0..<50 { #expect(try await Self.chunk(client) == Array("event \(i)\n".utf8)) }
            #expect(try await Self.chunk(client) == [])
            #expect(client.isClosedByServer())
            #expect(stream.isClosed)
            #expect(!stream.send([1]))
            #expect(await eventually { server.metrics().streamsOpen == 0 })
        }
    }

    @Test func oneBroadcastReachesEveryOpenStreamAndSkipsClosedOnes() async throws {
        let opened = Opened()
        try await withServer(routes: Self.routes(opened)) { _, port in
            var clients: [RawClient] = []
            for i in 0..<4 { clients.append(try await Self.subscribe(port, opened, index: i)) }
            opened.all[3].finish()
            #expect(try await Self.chunk(clients[3]) == [])
            try await offPool { HTTPStream.send(Array("all".utf8), to: opened.all) }
            for client in clients.prefix(3) { #expect(try await Self.chunk(client) == Array("all".utf8)) }
        }
    }

    @Test func anOpenStreamOutlivesTheIdleTimeoutAndOtherConnectionsStayServed() async throws {
        let opened = Opened()
        try await withServer({ $0.timeouts.idle = .milliseconds(200); $0.streams.heartbeatInterval = .seconds(60) },
                             routes: Self.routes(opened)) { _, port in
            let client = try await Self.subscribe(port, opened, index: 0)
            try await Task.sleep(for: .milliseconds(600))
            let other = try RawClient(port: port)
            #expect(try other.request("GET", "/hello").text == "hello")
            opened.all[0].send(Array("late".utf8))
            #expect(try await Self.chunk(client) == Array("late".utf8))
        }
    }

    @Test func aSilentStreamGetsHeartbeats() async throws {
        let opened = Opened()
        try await withServer({ $0.streams.heartbeatInterval = .milliseconds(100) }, routes: Self.routes(opened)) { _, port in
            let client = try await Self.subscribe(port, opened, index: 0)
            let start = ContinuousClock.now
            #expect(try await Self.chunk(client) == Self.heartbeat)
            #expect(try await Self.chunk(client) == Self.heartbeat)
            #expect(ContinuousClock.now - start < .seconds(3))
        }
    }

    @Test func aSubscriberThatDoesNotReadIsDroppedWhileAnotherKeepsReceiving() async throws {
        let opened = Opened()
        try await withServer({ $0.streams.maxQueuedBytes = 256 * 1024 }, routes: Self.routes(opened)) { server, port in
            let stalled = try await Self.subscribe(port, opened, index: 0)
            // A small fixed receive buffer (no autotuning) so the kernel holds little for the stalled client.
            var small: Int32 = 4096
            setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            let reader = try await Self.subscribe(port, opened, index: 1)
            let (slow, fast) = (opened.all[0], opened.all[1])
            let chunk = [UInt8](repeating: 0x78, count: 16 * 1024)
            let count = 600  // 9.6 MB: far more than the stalled client's socket buffers (4 MiB send side at most)
            let received = Atomic<Int>(0)
            async let total = offPool { () throws -> Int in
                var total = 0
                while total < count * chunk.count, let data = try reader.readChunk() {
                    total += data.count
                    received.store(total, ordering: .releasing)
                }
                return total
            }
            try await offPool {
                for i in 0..<count {
                    // The reader is slow (a thread on a shared core), never stalled: the sender waits for it,
                    // so its unsent bytes stay under the limit however the threads are scheduled.
                    while i * chunk.count - received.load(ordering: .acquiring) > 128 * 1024 { usleep(100) }
                    fast.send(chunk)
                    slow.send(chunk)
                }
            }
            #expect(try await total == count * chunk.count)
            #expect(await eventually { slow.isClosed })
            #expect(!fast.isClosed)
            #expect(server.metrics().streamsDropped == 1)
            _ = stalled
        }
    }

    @Test func beyondTheStreamLimitTheAnswerIs503AndAClosedStreamFreesItsPlace() async throws {
        let opened = Opened()
        try await withServer({ $0.streams.maxStreams = 1 }, routes: Self.routes(opened)) { server, port in
            let first = try await Self.subscribe(port, opened, index: 0)
            let second = try RawClient(port: port)
            let refused = try second.request("GET", "/stream")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "5")
            #expect(refused.text.contains("too_many_streams"))
            #expect(server.metrics().streamsOpen == 1)
            Glibc.shutdown(first.fd, Int32(SHUT_RDWR))
            #expect(await eventually { opened.all[0].isClosed && server.metrics().streamsOpen == 0 })
            _ = try await Self.subscribe(port, opened, index: 1)
        }
    }

    @Test func gracefulStopEndsEveryStreamWithTheLastChunk() async throws {
        let opened = Opened()
        try await withServer(routes: Self.routes(opened)) { server, port in
            let clients = [try await Self.subscribe(port, opened, index: 0), try await Self.subscribe(port, opened, index: 1)]
            opened.all[0].send(Array("before".utf8))
            async let stopped: Void = offPool { server.shutdown(gracePeriod: .seconds(5)) }
            #expect(try await Self.chunk(clients[0]) == Array("before".utf8))
            for client in clients {
                #expect(try await Self.chunk(client) == [])
                #expect(client.isClosedByServer())
            }
            try await stopped
            #expect(opened.all.allSatisfy { $0.isClosed })
        }
    }

    @Test func chunkFramingIsHexSizeCRLFDataCRLF() {
        var out: [UInt8] = []
        HTTPStream.appendChunk([UInt8](repeating: 0x61, count: 26), to: &out)
        #expect(Array(out.prefix(4)) == Array("1a\r\n".utf8))
        #expect(out.count == 4 + 26 + 2)
        #expect(Array(out.suffix(2)) == [13, 10])
        #expect(HTTPStream.lastChunk == Array("0\r\n\r\n".utf8))
    }
}
