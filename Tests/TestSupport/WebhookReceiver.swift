import FlagKit
import Foundation
import HTTPServer
import Synchronization

/// A webhook receiver for the tests: a real `HTTPServer` on 127.0.0.1, port 0, recording every request and
/// answering the n-th with `answer(n)`'s status, or never (nil: the request waits until the sender gives up).
package final class WebhookReceiver: Sendable {
    /// One request as received.
    package struct Delivery: Sendable {
        /// The request's header fields.
        package let headers: HTTPHeaders
        /// The request's body.
        package let body: [UInt8]
        /// When it arrived.
        package let receivedAt: Date

        /// The body as JSON (an error when it is not).
        package func json() throws -> JSONValue { try JSONParser.parse(body).value }

        /// Header `name` (one of `APIHeader`'s).
        package func header(_ name: String) -> String? { headers[name] }
    }

    /// The requests so far (a class: a `Mutex` cannot be copied into the handler).
    private final class Log: Sendable {
        let items = Mutex<[Delivery]>([])
    }

    private struct Recorder: HTTPHandler {
        let log: Log
        let answer: @Sendable (Int) -> Int?

        func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
            let count = log.items.withLock { list in
                list.append(Delivery(headers: request.headers, body: request.body, receivedAt: Date()))
                return list.count
            }
            guard let status = answer(count) else { return }
            responder.respond(HTTPResponse.text("ok", status: HTTPStatus(code: status)))
        }
    }

    private let log = Log()
    private let server: HTTPServer
    /// The bound port.
    package let port: Int

    /// A receiver answering with `answer(n)` for the n-th request (1-based).
    package init(answer: @escaping @Sendable (Int) -> Int? = { _ in 200 }) throws {
        let handler = Recorder(log: log, answer: answer)
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 1), handler: handler)
        port = try server.start()
    }

    /// Where webhooks should POST.
    package var url: String { "http://127.0.0.1:\(port)/hooks/symi" }

    /// What arrived so far.
    package var deliveries: [Delivery] { log.items.withLock { $0 } }

    /// The deliveries once there are `count` (polling; fails after `timeout` seconds).
    package func waitFor(_ count: Int, timeout: Double = 15) async throws -> [Delivery] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let now = deliveries
            if now.count >= count { return now }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the receiver got \(deliveries.count) of \(count) deliveries in \(timeout) s")
    }

    /// Stops listening (requests left unanswered are closed).
    package func stop() { server.shutdown(gracePeriod: .milliseconds(100)) }
}
