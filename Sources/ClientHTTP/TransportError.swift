/// Why an HTTP exchange produced no response. Keeps the cause: libcurl's `CURLcode` or URLSession's `URLError`
/// code, and the error text. Both transports report the same ``Kind`` for the same fault.
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
        /// The transport itself could not be set up (libcurl initialisation or an option it refuses, an unreadable
        /// CA file, a trust setting the platform cannot apply).
        case setupFailed
        /// Any other failure; see ``TransportError/curlCode`` and ``TransportError/urlErrorCode``.
        case other
    }

    /// The class of failure.
    public var kind: Kind
    /// The libcurl result code (`CURLcode`), when libcurl reported the failure.
    public var curlCode: Int?
    /// The `URLError.Code` raw value (`NSURLErrorDomain`), when URLSession reported the failure.
    public var urlErrorCode: Int?
    /// A human-readable cause: libcurl's error buffer text, `curl_easy_strerror`, or our own explanation.
    public var message: String
    /// The request URL, for logs.
    public var url: String

    /// Creates an error.
    public init(kind: Kind, curlCode: Int? = nil, urlErrorCode: Int? = nil, message: String, url: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.urlErrorCode = urlErrorCode
        self.message = message
        self.url = url
    }

    /// For example `timedOut (CURLcode 28): Operation timed out after 500 milliseconds with 0 bytes received [http://…]`.
    public var description: String {
        let code = curlCode.map { " (CURLcode \($0))" } ?? urlErrorCode.map { " (URLError \($0))" } ?? ""
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

    /// Classifies a URLSession failure by its `URLError.Code` raw value (`NSURLError.h`). The codes a transport
    /// produces itself (body over the limit, the total timeout, a refused trust) are classified where they arise.
    static func kind(forURLErrorCode code: Int) -> Kind {
        switch code {
        case -999: return .cancelled  // cancelled
        case -1000, -1022: return .invalidRequest  // badURL, appTransportSecurityRequiresSecureConnection
        // unsupportedURL: every request was checked to be absolute http(s) before it was sent, so this comes from
        // the reply: FoundationNetworking reports libcurl's refusal of an HTTP/0.9 (non-HTTP) reply so.
        case -1002: return .invalidResponse
        case -1001: return .timedOut  // timedOut
        case -1003, -1004, -1006, -1009, -1018, -1019, -1020: return .connectionFailed  // cannotFindHost, cannotConnectToHost, dnsLookupFailed, notConnectedToInternet, roaming, call active, data not allowed
        case -1005: return .network  // networkConnectionLost
        case -1011, -1014, -1015, -1016, -1017: return .invalidResponse  // badServerResponse, zeroByteResource, cannotDecode*, cannotParseResponse
        case -1206 ... -1200: return .tls  // secureConnectionFailed, serverCertificate*, clientCertificate*
        default: return .other
        }
    }
}
