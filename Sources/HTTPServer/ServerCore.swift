import Synchronization

/// State shared by all loops of one server; immutable except for the atomics.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let openConnections = Atomic<Int>(0)
    let nextConnectionID = Atomic<UInt64>(1)
    /// Streams open over all loops (`HTTPStreamLimits.maxStreams`) and subscribers dropped as too slow.
    let openStreams = Atomic<Int>(0)
    let streamsDropped = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }
}
