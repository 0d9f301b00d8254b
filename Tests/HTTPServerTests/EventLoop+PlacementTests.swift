import Glibc
import RawHTTPClient
import Synchronization
import Testing
@testable import HTTPServer

@Suite struct EventLoopPlacementTests {
    /// Answers with the thread that ran the handler (a loop thread: sync handlers run on the loop), the
    /// connection's id and the request's index on it.
    static func routes(_ b: inout HTTPRouter.Builder) {
        b.add(.GET, "/where") { _, context in
            .text("\(Socket.currentThread()) \(context.connectionID) \(context.requestIndex)")
        }
        b.add(.POST, "/echo") { request, _ in
            HTTPResponse(status: .ok, body: request.body)
        }
    }

    /// Every request checked, and every check sends the connection to the other loop.
    static func pingPong(_ config: inout HTTPServerConfiguration) {
        config.eventLoops = 2
        config.placementInterval = 1
        config.placementProbe = { _, loop in 1 - loop }
    }

    @Test func theDecisionFollowsTheCPUOfTheIncomingPackets() {
        // A sibling last seen on the CPU the packets arrive on gets the connection.
        #expect(EventLoop.sibling(forIncomingCPU: 1, ownCPU: 0, siblingCPUs: [1]) == 0)
        #expect(EventLoop.sibling(forIncomingCPU: 3, ownCPU: 0, siblingCPUs: [1, 2, 3]) == 2)
        // Already where its packets arrive, or nobody there, or unknown: it stays.
        #expect(EventLoop.sibling(forIncomingCPU: 0, ownCPU: 0, siblingCPUs: [0, 1]) == nil)
        #expect(EventLoop.sibling(forIncomingCPU: 2, ownCPU: 0, siblingCPUs: [1]) == nil)
        #expect(EventLoop.sibling(forIncomingCPU: -1, ownCPU: 0, siblingCPUs: [-1]) == nil)
        // A sibling that has not run yet (-1) is never chosen.
        #expect(EventLoop.sibling(forIncomingCPU: 1, ownCPU: -1, siblingCPUs: [-1]) == nil)
    }

    @Test func aConnectionMovedAgainAndAgainKeepsItsIdentityAndOrder() async throws {
        try await withServer(Self.pingPong, routes: Self.routes) { server, port in
            let client = try RawClient(port: port)
            // On a thread of its own: blocking reads would hold a thread of the pool other tests' handlers need.
            let responses = try await offPool { try (0..<400).map { _ in try client.request("GET", "/where") } }
            var threads = Set<String>()
            var ids = Set<String>()
            for (i, response) in responses.enumerated() {
                #expect(response.status == 200)
                let parts = response.text.split(separator: " ").map(String.init)
                guard parts.count == 3 else {
                    Issue.record("unexpected body \(response.text)")
                    return
                }
                threads.insert(parts[0])
                ids.insert(parts[1])
                // The request count on the connection carries over to its new loop.
                #expect(parts[2] == "\(i)")
            }
            // Served by both loops, as one connection.
            #expect(threads.count == 2)
            #expect(ids.count == 1)
            // A request that is already waiting when the new loop adopts the socket is answered there and then,
            // without a check; every other request moves the connection.
            #expect(server.metrics().connectionsMoved >= 100)
            #expect(server.metrics().connectionsOpen == 1)
        }
    }

    @Test func pipelinedRequestsAndSplitHeadsAndBodiesAreNotMovedMidway() async throws {
        try await withServer(Self.pingPong, routes: Self.routes) { server, port in
            let client = try RawClient(port: port)
            for round in 0..<50 {
                // Three requests in one segment: the connection is not idle until all are answered.
                try client.send(String(repeating: "GET /where HTTP/1.1\r\nHost: h\r\n\r\n", count: 3))
                for _ in 0..<3 { #expect(try client.readResponse()?.status == 200) }
                // A body in two parts with a pause: the parser is mid-request in between.
                let body = "round \(round) " + String(repeating: "x", count: 100)
                try client.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body.prefix(20))
                try await Task.sleep(for: .milliseconds(2))
                try client.send(String(body.dropFirst(20)))
                let echoed = try client.readResponse()
                #expect(echoed?.status == 200)
                #expect(echoed?.text == body)
                // A head in two parts: its first part waits in the connection's buffer.
                try client.send("GET /where HTTP/1.1\r\nHo")
                try await Task.sleep(for: .milliseconds(2))
                try client.send("st: h\r\n\r\n")
                #expect(try client.readResponse()?.status == 200)
            }
            #expect(server.metrics().connectionsMoved >= 50)
        }
    }

    @Test func manyClientsWhileConnectionsMoveAndTheServerStops() async throws {
        var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        Self.pingPong(&config)
        var builder = HTTPRouter.Builder()
        Self.routes(&builder)
        let server = HTTPServer(configuration: config, handler: try builder.build())
        let port = try server.start()
        // Per client: answered, failed.
        let outcomes = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let outcome = try? await offPool { () -> (Int, Int) in
                        guard let client = try? RawClient(port: port, timeoutSeconds: 5) else { return (0, 1) }
                        for i in 0..<200 {
                            guard let response = try? client.request("GET", "/where"), response.status == 200 else { return (i, 1) }
                        }
                        return (200, 0)
                    }
                    return outcome ?? (0, 1)
                }
            }
            return await group.reduce(into: (0, 0)) { $0.0 += $1.0; $0.1 += $1.1 }
        }
        #expect(outcomes.0 == 1600)
        #expect(outcomes.1 == 0)
        // Stopping while clients keep asking (and connections keep moving) ends: no loop waits for an arrival.
        let stopping = StopFlag()
        let keepAsking = Task {
            try? await offPool {
                guard let client = try? RawClient(port: port, timeoutSeconds: 5) else { return }
                while !stopping.value.load(ordering: .relaxed), (try? client.request("GET", "/where")) != nil {}
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        try await offPool { server.shutdown(gracePeriod: .seconds(5)) }
        stopping.value.store(true, ordering: .relaxed)
        await keepAsking.value
        #expect(ContinuousClock.now - start < .seconds(4))
        #expect(server.metrics().connectionsOpen == 0)
    }

    @Test func loopsThatKnowEachOtherAreFreedWithTheirServer() throws {
        final class Watch: @unchecked Sendable { weak var loop: EventLoop? }
        var watches: [Watch] = []
        do {
            let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 3), handler: try HTTPRouter.Builder().build())
            try server.start()
            let loops: [EventLoop] = server.state.withLock { if case .running(let loops, _, _) = $0 { loops } else { [] } }
            #expect(loops.count == 3)
            for loop in loops {
                #expect(loop.siblings.count == 2)
                let watch = Watch()
                watch.loop = loop
                watches.append(watch)
            }
            server.shutdown(gracePeriod: .zero)
            // A loop asked to stop takes no more connections from its siblings (the mover keeps them).
            let arrival = ArrivingConnection(fd: -1, id: 0, peer: .unspecified, requestIndex: 0)
            for loop in loops { #expect(!loop.receive(arrival)) }
        }
        // The siblings' strong references were let go once the threads had exited: nothing keeps the loops (and
        // their epoll and eventfd descriptors) alive.
        for watch in watches { #expect(watch.loop == nil) }
    }

    @Test func nothingMovesWhenFollowingTheCPUIsOff() async throws {
        try await withServer({
            Self.pingPong(&$0)
            $0.followsIncomingCPU = false
        }, routes: Self.routes) { server, port in
            let client = try RawClient(port: port)
            var threads = Set<String>()
            for _ in 0..<50 {
                let response = try client.request("GET", "/where")
                threads.insert(String(response.text.split(separator: " ").first ?? ""))
            }
            #expect(threads.count == 1)
            #expect(server.metrics().connectionsMoved == 0)
        }
    }

    @Test func withoutAProbeTheLoopsPublishTheirCPUAndServeAsBefore() async throws {
        try await withServer({
            $0.eventLoops = 2
            $0.placementInterval = 1
        }, routes: Self.routes) { server, port in
            // Many clients at once, each on its own thread: whatever moves, every answer arrives.
            let answered = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let count = try? await offPool { () -> Int in
                            guard let client = try? RawClient(port: port) else { return 0 }
                            var count = 0
                            for _ in 0..<300 where (try? client.request("GET", "/where"))?.status == 200 { count += 1 }
                            return count
                        }
                        return count ?? 0
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(answered == 1200)
            let loops: [EventLoop] = server.state.withLock { if case .running(let loops, _, _) = $0 { loops } else { [] } }
            let cores = Int32(System.onlineCores())
            #expect(loops.count == 2)
            for loop in loops { #expect((0..<cores).contains(loop.cpu.load(ordering: .relaxed))) }
        }
    }
}

/// A flag another task reads.
final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
