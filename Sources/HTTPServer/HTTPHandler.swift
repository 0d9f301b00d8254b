/// Something that answers requests. The server and the router call `handle` on an event-loop thread:
/// it must not block. Answer by calling `responder.respond(_:)` exactly once, either before returning
/// (the fast path: no thread hop, no allocation) or later from any thread (after a disk write, for example).
/// A responder that is never called leaves the connection waiting until the client gives up.
public protocol HTTPHandler: Sendable {
    /// Answers `request` through `responder`.
    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder)

    /// Decides on a request that has a body from its head alone, before any of the body is read or
    /// `100 Continue` is sent: a response to send instead (the connection then closes, the body unread),
    /// or nil to receive the body and call `handle`. `request.body` is empty here. Runs on the loop thread:
    /// it must not block (no database). The default accepts everything.
    func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse?
}

extension HTTPHandler {
    /// Accepts every head: the body is read and `handle` decides.
    public func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? { nil }
}

/// A synchronous handler: computes the response on the loop thread. A thrown `HTTPError` is sent as
/// its own response; any other error becomes a 500.
public typealias HTTPSyncHandlerFunction = @Sendable (HTTPRequest, HTTPRequestContext) throws -> HTTPResponse

/// An asynchronous handler: runs in a `Task`, the response is sent when it returns.
public typealias HTTPAsyncHandlerFunction = @Sendable (HTTPRequest, HTTPRequestContext) async throws -> HTTPResponse

/// A deferred handler: gets the responder and calls it later from any thread (a serial writer thread, a queue).
public typealias HTTPDeferredHandlerFunction = @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponder) -> Void

/// Adapts a synchronous closure to `HTTPHandler`.
public struct HTTPSyncHandler: HTTPHandler {
    let body: HTTPSyncHandlerFunction

    /// Wraps `body`.
    public init(_ body: @escaping HTTPSyncHandlerFunction) { self.body = body }

    /// Calls the closure and responds at once.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        do {
            responder.respond(try body(request, context))
        } catch {
            responder.respond(HTTPError.response(for: error))
        }
    }
}

/// Adapts an `async` closure to `HTTPHandler`; the closure runs in an unstructured `Task` off the loop.
public struct HTTPAsyncHandler: HTTPHandler {
    let body: HTTPAsyncHandlerFunction

    /// Wraps `body`.
    public init(_ body: @escaping HTTPAsyncHandlerFunction) { self.body = body }

    /// Starts a task that runs the closure and responds when it finishes.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        let body = self.body
        Task {
            do {
                responder.respond(try await body(request, context))
            } catch {
                responder.respond(HTTPError.response(for: error))
            }
        }
    }
}

/// Adapts a closure that receives the responder itself.
public struct HTTPDeferredHandler: HTTPHandler {
    let body: HTTPDeferredHandlerFunction

    /// Wraps `body`.
    public init(_ body: @escaping HTTPDeferredHandlerFunction) { self.body = body }

    /// Passes everything to the closure.
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        body(request, context, responder)
    }
}

/// The one-shot answer channel of a request. Copyable and `Sendable`: call `respond` once from any thread;
/// later calls are ignored, and so is a response to a connection that has closed in the meantime.
public struct HTTPResponder: Sendable {
    enum Target: Sendable {
        case connection(Connection, UInt64)
        case callback(@Sendable (HTTPResponse) -> Void)
    }

    let target: Target

    init(connection: Connection, sequence: UInt64) { target = .connection(connection, sequence) }

    /// A responder that hands the response to `callback`: for testing handlers without a server.
    public init(_ callback: @escaping @Sendable (HTTPResponse) -> Void) { target = .callback(callback) }

    /// Sends `response`. On the request's own loop thread it is written at once (in pipeline order);
    /// from another thread it is handed to the loop through its wake-up eventfd.
    public func respond(_ response: HTTPResponse) {
        switch target {
        case .connection(let connection, let sequence):
            connection.loop.deliver(connection, sequence: sequence, response: response)
        case .callback(let callback):
            callback(response)
        }
    }

    /// Sends `error` as its JSON response.
    public func fail(_ error: HTTPError) { respond(error.response) }
}
