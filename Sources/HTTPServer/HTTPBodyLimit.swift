/// A body limit of its own for one path (and the paths below it), smaller than `Limits.maxBodyBytes`: a
/// route that takes small bodies from anyone (a webhook receiver) refuses a large one on its head, before a
/// byte of it is read or reserved, as the global limit does. Set in the configuration
/// (`HTTPServerConfiguration.Limits.bodyLimits`) or by the router's routes (`HTTPRouter.Builder.limitBody`).
///
/// The limits are looked at only for requests that have a body, after their head is parsed: a request
/// without one (every document GET) never reaches them.
public struct HTTPBodyLimit: Sendable, Equatable {
    /// The path the limit applies to, compared byte for byte with the request's path as the router compares
    /// literal segments: a request whose path is this one or starts with it followed by `/`.
    public var path: String
    /// The largest body accepted there; a larger `Content-Length`, or a chunked body growing past it, gets
    /// 413 `body_too_large`.
    public var maxBytes: Int

    /// A limit of `maxBytes` for `path`.
    public init(path: String, maxBytes: Int) {
        self.path = path
        self.maxBytes = maxBytes
    }

    /// Whether a request for `requestPath` falls under this limit.
    func applies(to requestPath: String) -> Bool {
        guard requestPath.hasPrefix(path) else { return false }
        let rest = requestPath.utf8.dropFirst(path.utf8.count)
        return rest.isEmpty || rest.first == 0x2F || path.hasSuffix("/")
    }
}

extension [HTTPBodyLimit] {
    /// The smallest limit that applies to `path`, or nil (then the global one alone applies).
    func limit(for path: String) -> Int? {
        var smallest: Int?
        for limit in self where limit.applies(to: path) {
            smallest = Swift.min(smallest ?? limit.maxBytes, limit.maxBytes)
        }
        return smallest
    }
}
