import Glibc
import ServerLock

/// An HTTP/1.1 server: `eventLoops` epoll threads sharing one listener (or each with its own `SO_REUSEPORT` one),
/// answering every request through one `HTTPHandler` (usually an `HTTPRouter`).
///
/// ```swift
/// var routes = HTTPRouter.Builder()
/// routes.add(.GET, "/healthz") { _, _ in .text("ok") }
/// let server = HTTPServer(configuration: .init(port: 0), handler: try routes.build())
/// let port = try server.start()
/// ...
/// server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    enum State: @unchecked Sendable {
        case idle
        case running(loops: [EventLoop], threads: [pthread_t], port: Int)
        case stopping(loops: [EventLoop])
        case stopped(loops: [EventLoop])
    }

    let core: ServerCore
    let state = PThreadMutex(State.idle)
    /// Opened once `shutdown()` has finished; `waitUntilStopped()` blocks on it.
    let stopped = Latch()

    /// A server that has not started yet.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        core = ServerCore(configuration: configuration, handler: handler)
    }

    /// A server dropped without `shutdown()` still stops its threads and frees its port.
    deinit { shutdown(gracePeriod: .zero) }

    /// The configuration given at creation.
    public var configuration: HTTPServerConfiguration { core.configuration }

    /// Binds, starts the loops, and returns the bound port (useful with port 0). Throws a `system`
    /// `HTTPError` (with `errno`) when the address cannot be bound; calling it twice is an error too.
    @discardableResult
    public func start() throws(HTTPError) -> Int {
        try state.withLock { (state: inout State) throws(HTTPError) -> Int in
            guard case .idle = state else {
                throw HTTPError(.internalServerError, code: "already_started", message: "start() called twice")
            }
            let config = core.configuration
            guard config.port >= 0 && config.port <= 65535 else {
                throw HTTPError(.internalServerError, code: "bad_port", message: "port \(config.port) out of range")
            }
            var loops: [EventLoop] = []
            let perLoop = config.listener == .reusePortPerLoop
            let first = try Socket.listen(host: config.host, port: config.port, backlog: config.backlog, reusePort: perLoop,
                                          deferAcceptSeconds: config.deferAcceptSeconds)
            var listeners = [first.fd]
            do throws(HTTPError) {
                for _ in 1..<max(1, config.eventLoops) {
                    // Shared: every loop gets its own descriptor of the one socket, so each can close its own.
                    listeners.append(perLoop
                        ? try Socket.listen(host: config.host, port: first.port, backlog: config.backlog, reusePort: true,
                                            deferAcceptSeconds: config.deferAcceptSeconds).fd
                        : try Socket.duplicate(first.fd))
                }
                for (i, fd) in listeners.enumerated() {
                    loops.append(try EventLoop(index: i, core: core, listenFD: fd, exclusiveListener: !perLoop && listeners.count > 1))
                }
            } catch {
                for fd in listeners.dropFirst(loops.count) { Socket.close(fd) }
                throw error
            }
            if config.followsIncomingCPU && loops.count > 1 {
                // Before the threads start, so each loop reads its siblings without a lock.
                for loop in loops { loop.siblings = loops.filter { $0 !== loop } }
            }
            var threads: [pthread_t] = []
            for loop in loops {
                do throws(HTTPError) {
                    threads.append(try System.startThread { loop.run() })
                } catch {
                    for started in loops.prefix(threads.count) { started.requestStop(grace: .zero) }
                    for t in threads { System.join(t) }
                    for loop in loops { loop.siblings = [] }
                    throw error
                }
            }
            state = .running(loops: loops, threads: threads, port: first.port)
            return first.port
        }
    }

    /// The bound port while running.
    public var port: Int? {
        state.withLock { if case .running(_, _, let port) = $0 { port } else { nil } }
    }

    /// Graceful shutdown: stops accepting, closes idle connections, lets requests in flight finish
    /// (their responses carry `Connection: close`), and force-closes whatever is left after `gracePeriod`.
    /// Blocks until every loop thread has exited. Must not be called from a handler on a loop thread.
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        let running: ([EventLoop], [pthread_t])? = state.withLock { state in
            switch state {
            case .running(let loops, let threads, _):
                state = .stopping(loops: loops)
                return (loops, threads)
            case .idle:
                state = .stopped(loops: [])
                stopped.open()
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        guard let (loops, threads) = running else { return }
        for loop in loops { loop.requestStop(grace: gracePeriod) }
        for thread in threads { System.join(thread) }
        // The threads are gone: nothing reads the siblings any more, and the loops no longer keep each other alive.
        for loop in loops { loop.siblings = [] }
        state.withLock { $0 = .stopped(loops: loops) }
        stopped.open()
    }

    /// Blocks the calling thread until a `shutdown()` (called from another thread) has finished.
    public func waitUntilStopped() {
        stopped.wait()
    }

    /// Counters summed over all loops: open connections, accepted, rejected, timed out, responses by status.
    public func metrics() -> HTTPServerMetrics {
        var metrics = HTTPServerMetrics()
        metrics.connectionsOpen = core.openConnections.load(ordering: .relaxed)
        metrics.streamsOpen = core.openStreams.load(ordering: .relaxed)
        metrics.streamsDropped = core.streamsDropped.load(ordering: .relaxed)
        let loops: [EventLoop] = state.withLock {
            switch $0 {
            case .idle: []
            case .running(let loops, _, _), .stopping(let loops), .stopped(let loops): loops
            }
        }
        for loop in loops { loop.counters.add(into: &metrics) }
        return metrics
    }
}
