import ClientHTTP
import FlagKit

/// Why ``FlagClient/offerSignature(product:offer:appAccountToken:)`` has no signature. Every case means the same to
/// the paywall: show the arm's product at its own terms, without the offer.
public enum OfferSignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No complete response: refused, timed out, TLS, cancelled.
    case transport(TransportError)
    /// Another status than `200`, with the server's error code when it sent one (`offer_not_in_experiment`: the
    /// offer is no arm of the flag; `offer_signing_unavailable`: the server has no offer key) and the start of the body.
    case httpStatus(Int, code: String?, body: String)
    /// A `200` whose body is not a valid signature (JSON path of the problem inside).
    case invalidResponse(FlagEnvelopeError)
    /// The answer signs another product or offer than the one asked for.
    case mismatch(String)
    /// The configuration cannot produce a request (an environment name that is not a plain name).
    case invalidConfiguration(String)

    /// One line for logs.
    public var description: String {
        switch self {
        case .transport(let error): "transport: \(error)"
        case .httpStatus(let status, let code, let body): "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (body.isEmpty ? "" : ": \(body)")
        case .invalidResponse(let error): "invalid response body: \(error)"
        case .mismatch(let detail): "the answer does not match the request: \(detail)"
        case .invalidConfiguration(let detail): "invalid configuration: \(detail)"
        }
    }
}
