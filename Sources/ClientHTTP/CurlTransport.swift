#if canImport(CCurl)
import Dispatch
import Foundation

/// An ``HTTPTransport`` on libcurl's easy interface.
///
/// Each request gets its own easy handle on a dedicated dispatch queue, so the blocking `curl_easy_perform`
/// never occupies a thread of Swift's cooperative pool; the calling task awaits a continuation.
/// Certificate and host name verification are always on; `CURLOPT_NOSIGNAL` is always set (timeouts must not
/// use signals in a multi-threaded process); redirects are not followed; only `http` and `https` are allowed.
public struct CurlTransport: HTTPTransport {
    /// The limits and trust settings every request of this transport uses.
    public let options: TransportOptions

    /// Creates a transport. libcurl's global state is initialised once per process, on first use.
    public init(options: TransportOptions = TransportOptions()) {
        self.options = options
    }

    /// Performs `request` and returns the complete response, whatever its status.
    ///
    /// Cancelling the calling task aborts the transfer (within about a second) with ``TransportError/Kind/cancelled``.
    public func send(_ request: ClientRequest) async throws(TransportError) -> ClientResponse {
        try await perform(request, sink: nil).get()
    }

    /// Streams the body of `request` to `onBytes` (see ``HTTPTransport/stream(_:onBytes:)``); the write
    /// callback hands each piece over as libcurl receives it.
    public func stream(_ request: ClientRequest, onBytes: @escaping @Sendable ([UInt8]) -> Bool) async throws(TransportError) -> Int {
        try await perform(request, sink: onBytes).get().status
    }

    /// One transfer on a thread of its own; cancelling the calling task sets the flag libcurl's progress callback reads.
    private func perform(_ request: ClientRequest, sink: (@Sendable ([UInt8]) -> Bool)?) async -> Result<ClientResponse, TransportError> {
        let cancellation = Locked(false)
        let options = self.options
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // One thread per transfer (see `startThread`): blocking in curl_easy_perform must never wait
                // for a free worker, or a transfer's timeout would start only after other transfers ended.
                Self.startThread {
                    let transfer = CurlTransfer(request: request, options: options, cancellation: cancellation, sink: sink)
                    continuation.resume(returning: transfer.perform())
                }
            }
        } onCancel: {
            cancellation.withLock { $0 = true }
        }
    }

    /// Runs `work` on a new thread of its own. Not a concurrent dispatch queue: libdispatch does not overcommit
    /// those (their width is the number of CPUs), so on a 2-core machine a third transfer waited in the queue
    /// while its caller's clock ran, and a 1.5 s timeout took 30 s under a parallel test run. A thread costs
    /// tens of microseconds, nothing beside a network round trip.
    private static func startThread(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = "FlagClient.CurlTransport"
        thread.start()
    }
}

#endif
