/// Something that performs HTTP exchanges: ``CurlTransport`` in production, a stand-in where no server can run.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns the complete response, whatever its status.
    /// Throws only when no complete response arrived (no connection, timeout, garbage, truncated, too large, cancelled).
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
