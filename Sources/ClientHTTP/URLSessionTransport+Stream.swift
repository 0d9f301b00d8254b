import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Streams the body of `request` to `onBytes` (see ``HTTPTransport/stream(_:onBytes:)``): the delegate's
    /// `didReceive data` hands each piece over as it arrives. A timer of ours ends the stream after
    /// `totalTimeout` without a byte (the request timeout is not enforced alike on every platform).
    public func stream(_ request: ClientRequest, onBytes: @escaping @Sendable ([UInt8]) -> Bool) async throws(TransportError) -> Int {
        let url = request.url.absoluteString
        if let problem = request.urlSessionProblem { throw TransportError(kind: .invalidRequest, message: problem, url: url) }
        if let problem = delegate.trustProblem { throw TransportError(kind: .setupFailed, message: problem, url: url) }
        if Task.isCancelled {
            throw TransportError(kind: .cancelled, message: "the task was cancelled before the transfer started", url: url)
        }
        var urlRequest = urlRequest(for: request)
        urlRequest.timeoutInterval = Self.seconds(options.totalTimeout)
        let task = streamSession.dataTask(with: urlRequest)
        let id = task.taskIdentifier
        let delegate = self.delegate
        let idle = UInt64(TransportOptions.milliseconds(options.totalTimeout)) * 1_000_000
        let total = options.totalTimeout
        let result: Result<ClientResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.register(id, url: url, continuation: continuation, sink: onBytes)
                if Task.isCancelled { delegate.end(task, .cancelled, "the task was cancelled") }
                task.resume()
                Self.watchSilence(task, id: id, idle: idle, delegate: delegate, total: total)
            }
        } onCancel: {
            delegate.end(task, .cancelled, "the task was cancelled")
        }
        return try result.get().status
    }

    /// Checks four times per idle period whether the stream has been silent too long; stops once it ended.
    private static func watchSilence(_ task: URLSessionDataTask, id: Int, idle: UInt64, delegate: URLSessionTransferDelegate,
                                     total: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(max(idle / 4, 1_000_000)))) {
            guard let silent = delegate.silence(id) else { return }
            if silent > idle {
                delegate.end(task, .timedOut, "no byte of the stream within \(total)")
            } else {
                watchSilence(task, id: id, idle: idle, delegate: delegate, total: total)
            }
        }
    }
}
