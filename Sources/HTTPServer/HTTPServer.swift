import CEpoll
import Glibc
import Synchronization

/// An HTTP/1.1 server: `eventLoops` epoll threads, each with its own `SO_REUSEPORT` listener,
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
    let state = Mutex(State.idle)

    /// A server that has not started yet.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        core = ServerCore(configuration: configuration, handler: handler)
    }

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
            let first = try Socket.listen(host: config.host, port: config.port, backlog: config.backlog)
            var listeners = [first.fd]
            do throws(HTTPError) {
                for _ in 1..<max(1, config.eventLoops) {
                    listeners.append(try Socket.listen(host: config.host, port: first.port, backlog: config.backlog).fd)
                }
                for (i, fd) in listeners.enumerated() {
                    loops.append(try EventLoop(index: i, core: core, listenFD: fd))
                }
            } catch {
                for fd in listeners.dropFirst(loops.count) { Socket.close(fd) }
                throw error
            }
            var threads: [pthread_t] = []
            for loop in loops {
                var thread = pthread_t()
                let box = Unmanaged.passRetained(loop).toOpaque()
                let rc = pthread_create(&thread, nil, { arg in
                    guard let arg else { return nil }
                    let loop = Unmanaged<EventLoop>.fromOpaque(arg).takeRetainedValue()
                    loop.run()
                    return nil
                }, box)
                guard rc == 0 else {
                    Unmanaged<EventLoop>.fromOpaque(box).release()
                    for started in loops.prefix(threads.count) { started.requestStop(grace: .zero) }
                    for t in threads { pthread_join(t, nil) }
                    throw HTTPError.system("pthread_create", errno: rc)
                }
                threads.append(thread)
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
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        guard let (loops, threads) = running else { return }
        for loop in loops { loop.requestStop(grace: gracePeriod) }
        for thread in threads { pthread_join(thread, nil) }
        state.withLock { $0 = .stopped(loops: loops) }
    }

    /// Blocks the calling thread until a `shutdown()` (called from another thread) has finished.
    public func waitUntilStopped() {
        while !state.withLock({ if case .stopped = $0 { true } else { false } }) {
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// Counters summed over all loops: open connections, accepted, rejected, timed out, responses by status.
    public func metrics() -> HTTPServerMetrics {
        var metrics = HTTPServerMetrics()
        metrics.connectionsOpen = core.openConnections.load(ordering: .relaxed)
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
