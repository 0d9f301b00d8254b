import Synchronization

/// State shared by all loops of one server; immutable except for the atomics.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    /// `handler` when it is a router: then requests go to `HTTPRouter.route` directly (no existential call, no
    /// copy of the request context).
    let router: HTTPRouter?
    let openConnections = Atomic<Int>(0)
    let nextConnectionID = Atomic<UInt64>(1)
    /// Body bytes reserved by requests whose body is being received (`Limits.maxBufferedBodyBytes`).
    let bufferedBodyBytes = Atomic<Int>(0)
    /// The configuration's per-path body limits and the router's (`HTTPBodyLimit`).
    let bodyLimits: [HTTPBodyLimit]

    /// Reserves `bytes` of the server-wide body budget; false (nothing reserved) when they do not fit.
    func reserveBody(_ bytes: Int) -> Bool {
        // At least one body of the largest allowed size always fits.
        let limit = max(configuration.limits.maxBufferedBodyBytes, configuration.limits.maxBodyBytes)
        var current = bufferedBodyBytes.load(ordering: .relaxed)
        while true {
            guard current + bytes <= limit else { return false }
            let (exchanged, original) = bufferedBodyBytes.compareExchange(
                expected: current, desired: current + bytes, successOrdering: .relaxed, failureOrdering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back what `reserveBody` took.
    func releaseBody(_ bytes: Int) {
        if bytes > 0 { bufferedBodyBytes.subtract(bytes, ordering: .relaxed) }
    }
    /// Streams open over all loops (`HTTPStreamLimits.maxStreams`) and subscribers dropped as too slow.
    let openStreams = Atomic<Int>(0)
    let streamsDropped = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        router = handler as? HTTPRouter
        bodyLimits = configuration.limits.bodyLimits + (router?.bodyLimits ?? [])
    }
}
