/// Something that performs HTTP exchanges: ``URLSessionTransport`` on Apple platforms, ``CurlTransport`` on Linux.
///
/// Every transport keeps one contract (tested against both by `ClientHTTPTests`): no redirect is followed, a reply
/// that is not HTTP is an error, the body limit holds for an announced length and while streaming, the connect and
/// total timeouts hold, cancelling the calling task aborts the transfer, and any status is a response. A request with
/// `Accept-Encoding: gzip` gets the body decoded (`Content-Encoding: gzip` on the wire, the plain bytes in
/// `ClientResponse.body`; libcurl through `CURLOPT_ACCEPT_ENCODING`, URLSession by itself).
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns the complete response, whatever its status.
    /// Throws only when no complete response arrived (no connection, timeout, garbage, truncated, too large, cancelled).
    func send(_ request: ClientRequest) async throws(TransportError) -> ClientResponse

    /// Performs `request` and hands the body to `onBytes` as it arrives (an event stream), until the server
    /// ends it or `onBytes` returns false; returns the status. The total timeout bounds SILENCE here (no byte
    /// for that long ends the stream with `timedOut`), not the whole stream; no body limit applies (the
    /// consumer bounds what it keeps). Cancelling the calling task aborts it with `cancelled`.
    func stream(_ request: ClientRequest, onBytes: @escaping @Sendable ([UInt8]) -> Bool) async throws(TransportError) -> Int
}

/// The transports this module has, for a configuration that chooses one.
public enum TransportKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ``URLSessionTransport``: Foundation's URL loading system (FoundationNetworking on Linux).
    case urlSession
    #if canImport(CCurl)
    /// ``CurlTransport``: libcurl's easy interface. Only where libcurl is linked (Linux, not in the
    /// `FLAGCLIENT_TRANSPORT=urlsession` build).
    case curl
    #endif

    /// libcurl where it is linked (Linux: flagctl, server-side consumers, the tests), else URLSession (iOS, macOS).
    public static var platformDefault: TransportKind {
        #if canImport(CCurl)
        return .curl
        #else
        return .urlSession
        #endif
    }

    /// A new transport of this kind with `options`.
    public func makeTransport(options: TransportOptions = TransportOptions()) -> any HTTPTransport {
        switch self {
        case .urlSession: return URLSessionTransport(options: options)
        #if canImport(CCurl)
        case .curl: return CurlTransport(options: options)
        #endif
        }
    }

    /// `urlSession` or `curl`.
    public var description: String { rawValue }
}
