import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on URLSession: the transport of the iOS app (iOS ships no libcurl), and on Linux the same
/// code on FoundationNetworking, so it is tested here against the same real servers as ``CurlTransport``.
///
/// One ephemeral session per transport, with no URL cache, no cookies and no credential storage: a flag
/// client must see every `304` and `200` exactly as the server sent it. The session delegate stops a body at
/// the limit while it streams, refuses redirects, and (on Apple platforms) evaluates the server trust against
/// ``TransportOptions/caFile``. Where FoundationNetworking differs: `docs/client.md`, "Two transports".
public final class URLSessionTransport: HTTPTransport {
    /// The limits and trust settings every request of this transport uses.
    public let options: TransportOptions
    private let session: URLSession
    /// For `stream`: no resource timeout (a stream lasts as long as the app listens); silence is bounded per request.
    let streamSession: URLSession
    let delegate: URLSessionTransferDelegate

    /// Creates a transport and its session. The CA file, if any, is read here; a problem with it fails every
    /// request with ``TransportError/Kind/setupFailed``, saying why.
    public init(options: TransportOptions = TransportOptions()) {
        self.options = options
        delegate = URLSessionTransferDelegate(options: options)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        // URLSession has no connect timeout: its request timeout is the longest silence between packets, which
        // also bounds the connect. The total timeout is the resource timeout, and a timer of ours (`send`) besides.
        configuration.timeoutIntervalForRequest = Self.seconds(options.connectTimeout)
        configuration.timeoutIntervalForResource = Self.seconds(options.totalTimeout)
        // A serial delegate queue: the callbacks of one transfer arrive in order.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "ClientHTTP.URLSessionTransport"
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        configuration.timeoutIntervalForRequest = Self.seconds(options.totalTimeout)
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        streamSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // A session keeps its delegate until it is invalidated; transfers still running end as cancelled.
        session.invalidateAndCancel()
        streamSession.invalidateAndCancel()
    }

    /// Performs `request` and returns the complete response, whatever its status.
    ///
    /// Cancelling the calling task cancels the data task at once with ``TransportError/Kind/cancelled``.
    public func send(_ request: ClientRequest) async throws(TransportError) -> ClientResponse {
        let url = request.url.absoluteString
        if let problem = request.urlSessionProblem { throw TransportError(kind: .invalidRequest, message: problem, url: url) }
        if let problem = delegate.trustProblem { throw TransportError(kind: .setupFailed, message: problem, url: url) }
        if Task.isCancelled {
            throw TransportError(kind: .cancelled, message: "the task was cancelled before the transfer started", url: url)
        }
        let task = session.dataTask(with: urlRequest(for: request))
        let id = task.taskIdentifier
        let delegate = self.delegate
        let total = options.totalTimeout
        let result: Result<ClientResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.register(id, url: url, continuation: continuation)
                // A cancellation that came before `register` found nothing to end; it is seen here instead.
                if Task.isCancelled { delegate.end(task, .cancelled, "the task was cancelled") }
                task.resume()
                // Our own total timeout: the resource timeout is not enforced alike on every platform.
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(total)) {
                    delegate.end(task, .timedOut, "no complete response within the total timeout of \(total)")
                }
            }
        } onCancel: {
            delegate.end(task, .cancelled, "the task was cancelled")
        }
        return try result.get()
    }

    /// The request as URLSession takes it. `Expect` is the transport's business (no `100-continue` waits).
    func urlRequest(for request: ClientRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: Self.seconds(options.connectTimeout))
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers where !ClientHeaders.sameName(name, ClientHeaderName.expect.rawValue) {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if request.sendsBody { urlRequest.httpBody = request.body ?? Data() }
        return urlRequest
    }

    /// A duration in seconds for Foundation's `TimeInterval` settings (at least a millisecond: 0 means "none").
    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(TransportOptions.milliseconds(duration)) / 1000
    }
}
