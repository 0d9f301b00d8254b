/// Why an HTTP exchange produced no response. Keeps the cause: libcurl's `CURLcode` and its error text.
///
/// A response with any status (including 4xx and 5xx) is not an error at this layer; callers decide what a status means.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure, for callers that react differently (e.g. report "offline" versus "server broken").
    public enum Kind: Sendable, Equatable {
        /// The request was refused before anything was sent (bad URL, scheme, method or header).
        case invalidRequest
        /// No connection: refused, unreachable, or the name did not resolve.
        case connectionFailed
        /// The connect timeout or the total timeout expired.
        case timedOut
        /// TLS handshake or certificate verification failed.
        case tls
        /// The peer's reply was not valid HTTP, or the connection closed before any response.
        case invalidResponse
        /// The body ended before its announced length (`Content-Length` or chunked framing).
        case truncatedBody
        /// The response body exceeds the configured limit of `limit` bytes; the transfer was aborted.
        case bodyTooLarge(limit: Int)
        /// Sending or receiving failed on an established connection.
        case network
        /// The calling task was cancelled; the transfer was aborted.
        case cancelled
        /// libcurl itself could not be set up (initialisation or an option the library refuses).
        case setupFailed
        /// Any other libcurl failure; see ``TransportError/curlCode``.
        case other
    }

    /// The class of failure.
    public var kind: Kind
    /// The libcurl result code (`CURLcode`), when libcurl reported the failure.
    public var curlCode: Int?
    /// A human-readable cause: libcurl's error buffer text, `curl_easy_strerror`, or our own explanation.
    public var message: String
    /// The request URL, for logs.
    public var url: String

    /// Creates an error.
    public init(kind: Kind, curlCode: Int? = nil, message: String, url: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
        self.url = url
    }

    /// For example `timedOut (CURLcode 28): Operation timed out after 500 milliseconds with 0 bytes received [http://…]`.
    public var description: String {
        let code = curlCode.map { " (CURLcode \($0))" } ?? ""
        return "\(kind)\(code): \(message) [\(url)]"
    }

    /// Classifies a libcurl result code (see libcurl-errors(3)).
    static func kind(forCurlCode code: Int) -> Kind {
        switch code {
        case 1:  // UNSUPPORTED_PROTOCOL: we only pass http(s) URLs, so this is an HTTP/0.9 (non-HTTP) reply.
            return .invalidResponse
        case 3: return .invalidRequest  // URL_MALFORMAT
        case 5, 6, 7: return .connectionFailed  // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST, COULDNT_CONNECT
        case 8, 52: return .invalidResponse  // WEIRD_SERVER_REPLY, GOT_NOTHING
        case 18: return .truncatedBody  // PARTIAL_FILE
        case 28: return .timedOut  // OPERATION_TIMEDOUT
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98:
            return .tls  // SSL_CONNECT_ERROR, PEER_FAILED_VERIFICATION, SSL_* and certificate problems
        case 42: return .cancelled  // ABORTED_BY_CALLBACK: our progress callback saw a cancelled task
        case 55, 56: return .network  // SEND_ERROR, RECV_ERROR
        case 2, 4, 27, 43, 48: return .setupFailed  // FAILED_INIT, NOT_BUILT_IN, OUT_OF_MEMORY, BAD_FUNCTION_ARGUMENT, UNKNOWN_OPTION
        default: return .other
        }
    }
}
