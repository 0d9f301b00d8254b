import Glibc

/// Per-request facts the server and the router know: path parameters, the peer, the connection.
public struct HTTPRequestContext: Sendable {
    /// Values of the `{name}` segments of the matched route pattern, percent-decoded.
    public var pathParameters: HTTPPathParameters
    /// The client's address.
    public let peer: HTTPPeerAddress
    /// A number unique to the connection within this server (for logs and correlation).
    public let connectionID: UInt64
    /// 0 for the first request on the connection, then 1, 2, …
    public let requestIndex: Int
    /// Monotonic clock reading (nanoseconds) when the request was complete.
    public let receivedAtNanoseconds: UInt64
    /// The index of the event loop that read the request (0 up to the server's `eventLoops`): state a handler
    /// keeps per loop (counters) can be picked by it, so loops on different cores do not share it.
    public internal(set) var eventLoop = 0
    /// Whether the handler's `checkHead` saw this request's head (it has a body) and accepted it, so a check it
    /// made there need not be repeated in `handle`. Only a handler that implements `checkHead` may rely on it.
    public var headAccepted = false

    /// A context, for testing handlers without a server.
    public init(
        pathParameters: HTTPPathParameters = HTTPPathParameters(), peer: HTTPPeerAddress = .unspecified,
        connectionID: UInt64 = 0, requestIndex: Int = 0, receivedAtNanoseconds: UInt64 = 0
    ) {
        self.pathParameters = pathParameters
        self.peer = peer
        self.connectionID = connectionID
        self.requestIndex = requestIndex
        self.receivedAtNanoseconds = receivedAtNanoseconds
    }
}

/// The `{name}` → value pairs of a matched route, in pattern order.
public struct HTTPPathParameters: Sendable, Equatable {
    // Most routes have one parameter (`{env}`): it is kept inline, so matching such a route allocates no
    // array (an allocation and a free per request on the document route). Further pairs go to `rest`.
    private var first: (name: String, value: String)?
    private var rest: [(name: String, value: String)] = []

    /// The pairs in order.
    public var pairs: [(name: String, value: String)] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// No parameters.
    public init() {}

    /// Given pairs.
    public init(_ pairs: [(name: String, value: String)]) {
        for pair in pairs { append(name: pair.name, value: pair.value) }
    }

    /// Adds a pair after the others.
    mutating func append(name: String, value: String) {
        if first == nil {
            first = (name, value)
        } else {
            rest.append((name, value))
        }
    }

    /// The value of parameter `name`, or nil.
    public subscript(name: String) -> String? {
        guard let first else { return nil }
        if first.name == name { return first.value }
        for pair in rest where pair.name == name { return pair.value }
        return nil
    }

    /// Compares names and values in order.
    public static func == (lhs: HTTPPathParameters, rhs: HTTPPathParameters) -> Bool {
        let l = lhs.pairs, r = rhs.pairs
        return l.count == r.count && zip(l, r).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A peer's IP address and port, kept as raw bytes; formatting happens only when asked.
public struct HTTPPeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 (`4`), IPv6 (`6`) or unknown (`0`).
    public let family: Int
    /// The TCP port.
    public let port: Int
    let high: UInt64
    let low: UInt64

    /// An unknown address (for tests).
    public static let unspecified = HTTPPeerAddress(family: 0, port: 0, high: 0, low: 0)

    init(family: Int, port: Int, high: UInt64, low: UInt64) {
        self.family = family
        self.port = port
        self.high = high
        self.low = low
    }

    /// The numeric host (`127.0.0.1`, `::1`).
    public var host: String {
        switch family {
        case 4:
            // `low` holds s_addr as stored in memory (network order).
            return withUnsafeBytes(of: UInt32(truncatingIfNeeded: low)) { System.numericHost(family: AF_INET, address: Array($0)) }
        case 6:
            return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { System.numericHost(family: AF_INET6, address: Array($0)) }
        default: return "unknown"
        }
    }

    /// `127.0.0.1:52314` or `[::1]:52314`.
    public var description: String { family == 6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
