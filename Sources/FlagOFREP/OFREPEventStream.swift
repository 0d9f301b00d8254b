import HTTPServer

/// The bulk response's real-time change notification entry (OFREP `eventStream`, ADR-0008): where an
/// SSE stream of `refetchEvaluation` events for the environment is, and after how many seconds of app
/// inactivity the provider should close it.
public struct OFREPEventStream: Sendable, Equatable {
    /// The events endpoint: absolute when the request named its host, else a path on the OFREP origin.
    public var url: String
    /// `inactivityDelaySec` (spec default 120).
    public var inactivityDelaySec: Int

    /// An entry of type `sse`.
    public init(url: String, inactivityDelaySec: Int = 120) {
        self.url = url
        self.inactivityDelaySec = inactivityDelaySec
    }

    /// The entry for `path` as a request reached it: `http(s)://<Host><path>` when the request has a `Host`
    /// (RFC 9112 §3.2 makes it mandatory in HTTP/1.1), the scheme `https` only when a trusted proxy says so
    /// in `X-Forwarded-Proto` (the TLS front); the bare path otherwise.
    public static func forRequest(_ request: HTTPRequest, peer: HTTPPeerAddress, path: String,
                                  proxies: HTTPTrustedProxies, inactivityDelaySec: Int) -> OFREPEventStream {
        guard let host = request.headers[.host], !host.isEmpty else {
            return OFREPEventStream(url: path, inactivityDelaySec: inactivityDelaySec)
        }
        let forwardedTLS = proxies.addresses.contains(peer.host)
            && request.headers[.xForwardedProto]?.lowercased() == "https"
        return OFREPEventStream(url: (forwardedTLS ? "https://" : "http://") + host + path, inactivityDelaySec: inactivityDelaySec)
    }
}

extension OFREPJSONWriter {
    /// `"eventStreams":[...]` (the spec's name) and the same array as `"refreshConnections"` (the name of
    /// the older ADR drafts), so providers written to either find it.
    mutating func eventStreams(_ stream: OFREPEventStream) {
        for name in ["eventStreams", "refreshConnections"] {
            beginArray(name)
            beginObject()
            string("type", "sse")
            string("url", stream.url)
            integer("inactivityDelaySec", stream.inactivityDelaySec)
            endObject()
            endArray()
        }
    }
}
