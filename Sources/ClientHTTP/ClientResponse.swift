import Foundation

/// A complete HTTP response as received: the final status, its header fields and the whole body.
public struct ClientResponse: Sendable, Equatable {
    /// The status code of the final response (interim 1xx responses are skipped).
    public var status: Int
    /// The header fields of the final response, in received order.
    public var headers: ClientHeaders
    /// The body bytes, never more than the transport's `maxResponseBodyBytes`.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: ClientHeaders = ClientHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
