import FlagKit
import Foundation

/// What one ``FlagClient/refresh(force:)`` did. Only `.updated` changes the values.
public enum RefreshOutcome: Sendable, Equatable {
    /// A valid document (`200`) replaced the values; `previousVersion` is `nil` when the safe defaults were in use.
    /// `cacheError` is set when the values are in use but could not be written to disk (the next launch starts
    /// from the older cache or the safe defaults).
    case updated(version: Int, previousVersion: Int?, cacheError: FlagCacheError?)
    /// The server confirmed the cached document (`304`): values unchanged, now marked fresh.
    case notModified(version: Int, cacheError: FlagCacheError?)
    /// Not fetched: the minimum interval, a backoff after failures, or the server's `Retry-After` runs until `until`.
    case skipped(until: Date, reason: RefreshWaitReason)
    /// Fetched, but nothing usable came back; the values are untouched.
    case failed(RefreshError)

    /// Whether the server was reached and gave a usable answer (`updated` or `notModified`).
    public var isSuccess: Bool {
        switch self {
        case .updated, .notModified: true
        case .skipped, .failed: false
        }
    }

    /// The error, when the refresh failed.
    public var error: RefreshError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

/// Why a fetched answer was not used. Every case leaves the current values in place.
public enum RefreshError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No complete response: refused, timed out, TLS, garbage instead of HTTP, truncated, too large, cancelled.
    case transport(TransportError)
    /// A status other than `200` or `304` (4xx, 5xx), with `Retry-After` if sent and the start of the body for logs.
    case httpStatus(Int, retryAfter: String?, body: String)
    /// A `304` although no `If-None-Match` was sent (nothing to keep): a confused proxy.
    case unexpectedNotModified
    /// A `200` whose body is not a valid envelope or document (JSON path of the problem inside).
    case invalidEnvelope(FlagEnvelopeError)
    /// A valid document, but for another environment than the client's.
    case environmentMismatch(expected: String, received: String)
    /// A valid document older than the one in use: a stale proxy or CDN (a server rollback is a new, higher version).
    case olderVersion(received: Int, current: Int)
    /// The configuration cannot produce a request (an environment name that is not a plain name).
    case invalidConfiguration(String)

    /// One line for logs.
    public var description: String {
        switch self {
        case .transport(let error): "transport: \(error)"
        case .httpStatus(let status, let retryAfter, let body):
            "HTTP \(status)" + (retryAfter.map { " (Retry-After: \($0))" } ?? "") + (body.isEmpty ? "" : ": \(body)")
        case .unexpectedNotModified: "304 Not Modified without If-None-Match"
        case .invalidEnvelope(let error): "invalid response body: \(error)"
        case .environmentMismatch(let expected, let received): "document for environment \(received.debugDescription), not \(expected.debugDescription)"
        case .olderVersion(let received, let current): "version \(received) is older than version \(current) in use"
        case .invalidConfiguration(let detail): "invalid configuration: \(detail)"
        }
    }
}
