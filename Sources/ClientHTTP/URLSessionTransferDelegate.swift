import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of a ``URLSessionTransport``: one table of transfers in flight, keyed by task identifier,
/// fed by URLSession's callbacks on the transport's serial queue and ended by them, by the caller's
/// cancellation or by the total timeout, whichever comes first. The first ending wins; later ones find nothing.
final class URLSessionTransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable state is inside `transfers` (a lock); `options` and `anchors` never change.

    /// One transfer in flight.
    private struct Transfer {
        let url: String
        let continuation: CheckedContinuation<Result<ClientResponse, TransportError>, Never>
        var response: HTTPURLResponse?
        var body = Data()
        /// Why we cancelled the task ourselves (body limit, timeout, the caller, refused trust), if we did.
        var ending: (kind: TransportError.Kind, message: String)?
        /// Streaming: the body goes to the sink as it arrives; false from it stops the transfer (a success).
        var sink: (@Sendable ([UInt8]) -> Bool)?
        var stopped = false
        var lastByteAt = DispatchTime.now()
    }

    private let options: TransportOptions
    private let transfers = Locked<[Int: Transfer]>([:])
    /// The certificates of ``TransportOptions/caFile`` (DER), or why they cannot be used.
    let anchors: Result<[Data], TransportError>?

    init(options: TransportOptions) {
        self.options = options
        anchors = options.caFile.map(Self.loadAnchors)
    }

    /// Why no request can be sent with this delegate's trust settings, or `nil`.
    var trustProblem: String? {
        if case .failure(let error) = anchors { return error.message }
        return nil
    }

    /// Starts tracking a task before it is resumed.
    func register(_ id: Int, url: String, continuation: CheckedContinuation<Result<ClientResponse, TransportError>, Never>,
                  sink: (@Sendable ([UInt8]) -> Bool)? = nil) {
        transfers.withLock { $0[id] = Transfer(url: url, continuation: continuation, sink: sink) }
    }

    /// Nanoseconds since a streaming transfer last received a byte; nil once it has ended.
    func silence(_ id: Int) -> UInt64? {
        transfers.withLock { table in
            table[id].map { DispatchTime.now().uptimeNanoseconds &- $0.lastByteAt.uptimeNanoseconds }
        }
    }

    /// Ends a transfer early for `kind`: the task is cancelled and completes with this error. No-op once it ended.
    func end(_ task: URLSessionTask, _ kind: TransportError.Kind, _ message: String) {
        let ended = transfers.withLock { table -> Bool in
            guard table[task.taskIdentifier] != nil, table[task.taskIdentifier]?.ending == nil else { return false }
            table[task.taskIdentifier]?.ending = (kind, message)
            return true
        }
        if ended { task.cancel() }
    }

    // MARK: URLSessionDataDelegate

    /// An announced `Content-Length` above the limit ends the transfer before any body is read.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let limit = options.maxResponseBodyBytes
        let http = response as? HTTPURLResponse
        let tooLarge = transfers.withLock { table -> Bool in
            table[dataTask.taskIdentifier]?.response = http
            guard let http, http.expectedContentLength > Int64(limit) else { return false }
            table[dataTask.taskIdentifier]?.ending = (.bodyTooLarge(limit: limit),
                                                      "announced body of \(http.expectedContentLength) bytes exceeds limit \(limit) bytes")
            return true
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    /// Body bytes as they stream in; past the limit the transfer stops, it is never buffered first.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let sink = transfers.withLock { table -> (@Sendable ([UInt8]) -> Bool)? in
            table[dataTask.taskIdentifier]?.lastByteAt = DispatchTime.now()
            return table[dataTask.taskIdentifier]?.sink
        }
        if let sink {
            // Called outside the lock, in order: the delegate queue is serial.
            guard !sink(Array(data)) else { return }
            transfers.withLock { $0[dataTask.taskIdentifier]?.stopped = true }
            dataTask.cancel()
            return
        }
        let limit = options.maxResponseBodyBytes
        let over = transfers.withLock { table -> Bool in
            guard var transfer = table[dataTask.taskIdentifier], transfer.ending == nil else { return false }
            guard transfer.body.count + data.count <= limit else {
                table[dataTask.taskIdentifier]?.ending = (.bodyTooLarge(limit: limit), "response body exceeds limit \(limit) bytes")
                return true
            }
            table[dataTask.taskIdentifier] = nil  // no copy of the body while appending
            transfer.body.append(data)
            table[dataTask.taskIdentifier] = transfer
            return false
        }
        if over { dataTask.cancel() }
    }

    /// Redirects are not followed: the 3xx is the response (the client must never be sent elsewhere silently).
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// The end of every transfer: resumes the caller with the response or the classified error.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.continuation.resume(returning: Self.result(of: transfer, error: error))
    }

    private static func result(of transfer: Transfer, error: (any Error)?) -> Result<ClientResponse, TransportError> {
        if transfer.stopped, let response = transfer.response {
            return .success(ClientResponse(status: response.statusCode, headers: headers(of: response), body: Data()))
        }
        if let (kind, message) = transfer.ending {
            return .failure(TransportError(kind: kind, message: message, url: transfer.url))
        }
        if let error {
            let code = (error as NSError).domain == NSURLErrorDomain ? (error as NSError).code : nil
            var kind = code.map(TransportError.kind(forURLErrorCode:)) ?? .other
            // FoundationNetworking passes libcurl's errors on as URLError codes where it has one and as
            // `unknown` (-1) otherwise, with curl's text. Before any response on an https URL, the unmapped ones
            // are the TLS failures (handshake, certificate); connect, DNS and timeouts all have codes.
            if code == -1, transfer.response == nil, transfer.url.lowercased().hasPrefix("https:") { kind = .tls }
            // A body cut short of its announced length: URLSession says "connection lost" or "cannot parse".
            if let expected = transfer.response?.expectedContentLength, expected >= 0, transfer.body.count < Int(expected),
               kind == .network || kind == .invalidResponse || kind == .other {
                kind = .truncatedBody
            }
            return .failure(TransportError(kind: kind, urlErrorCode: code, message: error.localizedDescription, url: transfer.url))
        }
        guard let response = transfer.response, response.statusCode >= 100 else {
            return .failure(TransportError(kind: .invalidResponse, message: "no HTTP status received", url: transfer.url))
        }
        return .success(ClientResponse(status: response.statusCode, headers: headers(of: response), body: transfer.body))
    }

    /// URLSession hands over a dictionary (repeated fields already joined with ", ", RFC 9110 section 5.3), so
    /// the received order is gone; the fields are put in name order to be the same on every run.
    private static func headers(of response: HTTPURLResponse) -> ClientHeaders {
        var fields: [ClientHeaders.Field] = []
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            fields.append((name: name, value: (value as? String) ?? "\(value)"))
        }
        fields.sort { $0.name.lowercased() < $1.name.lowercased() }
        return ClientHeaders(fields)
    }

    /// Reads the PEM file of ``TransportOptions/caFile`` into DER certificates.
    private static func loadAnchors(_ path: String) -> Result<[Data], TransportError> {
        #if canImport(Security)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .failure(TransportError(kind: .setupFailed, message: "cannot read the CA file \(path)", url: ""))
        }
        let certificates = PEMCertificates.der(fromPEM: text)
        guard !certificates.isEmpty else {
            return .failure(TransportError(kind: .setupFailed, message: "no certificate in the CA file \(path)", url: ""))
        }
        return .success(certificates)
        #else
        // FoundationNetworking (libcurl inside) never asks the delegate about server trust and has no CA setting.
        return .failure(TransportError(kind: .setupFailed, message: "a custom CA file (\(path)) needs the server-trust "
            + "challenge, which FoundationNetworking on Linux does not offer; use CurlTransport there", url: ""))
        #endif
    }
}
