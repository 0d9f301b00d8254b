import Glibc
@testable import HTTPServer

/// Starts a server on 127.0.0.1 port 0, runs `body`, and always shuts it down.
func withServer<T>(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (inout HTTPRouter.Builder) -> Void,
    _ body: (HTTPServer, Int) async throws -> T
) async throws -> T {
    var builder = HTTPRouter.Builder()
    routes(&builder)
    var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2)
    configure(&config)
    let server = HTTPServer(configuration: config, handler: try builder.build())
    let port = try server.start()
    do {
        let result = try await body(server, port)
        server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs blocking socket work on its own thread, so it never occupies a thread of the cooperative pool
/// that the server's `async` handlers need (with 2 cores the pool has only 2 threads).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detach {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}
