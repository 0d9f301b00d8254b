/// Everything the server needs to know before it starts. The defaults suit a small API server.
public struct HTTPServerConfiguration: Sendable {
    /// Numeric address or name to listen on (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`).
    public var host: String
    /// TCP port; 0 picks a free one (read it from `start()`).
    public var port: Int
    /// Event-loop threads. Defaults to the number of online cores.
    public var eventLoops: Int
    /// How the loops share the listening port.
    public var listener: Listener
    /// `listen(2)` backlog.
    public var backlog: Int
    /// Accept a connection only once its first bytes have arrived (`TCP_DEFER_ACCEPT`, Linux), as Apache
    /// httpd does by default and nginx with `listen ... deferred`. The loop then reads the request in the
    /// same step as the accept, and a connection that is answered and closed (`Connection: close`) costs
    /// four system calls and no wake-up of its own. A client that connects and stays silent is held by the
    /// kernel (no descriptor, no slot against `maxConnections`) and handed over, to face the header
    /// timeout, after about this many seconds. nil: accept at once.
    public var deferAcceptSeconds: Int?
    /// Size limits; past them requests are refused with 413/414/431.
    public var limits: Limits
    /// Timeouts; past them connections are closed.
    public var timeouts: Timeouts
    /// Where access log lines go.
    public var accessLog: HTTPAccessLog
    /// Streaming responses: how many, how much queued output each, how often a heartbeat.
    public var streams = HTTPStreamLimits()
    /// Whether an idle keep-alive connection moves to the loop that runs on the CPU its requests arrive on
    /// (`SO_INCOMING_CPU`; see `EventLoop+Placement.swift`). A client thread then talks to one loop that
    /// the scheduler keeps on its CPU, instead of waking a loop on the other CPU for every request. With one
    /// loop it does nothing.
    public var followsIncomingCPU = true
    /// How often a loop checks where a connection's requests arrive: after one request in this many.
    package var placementInterval = 64
    /// Tests: replaces the CPU check; given a connection's socket and its loop's index, the index of the
    /// loop it should move to (nil: stay).
    package var placementProbe: (@Sendable (_ fd: Int32, _ loopIndex: Int) -> Int?)?

    /// How event loops get new connections.
    public enum Listener: Sendable, Equatable {
        /// One listening socket in every loop's epoll set with `EPOLLEXCLUSIVE`: the kernel wakes one
        /// loop that is waiting, and that loop accepts what is queued. Connections go to loops with time
        /// to spare, so on a busy machine they gather on fewer loops (fewer context switches), as with
        /// nginx's default `listen`. The default.
        case shared
        /// A `SO_REUSEPORT` listener per loop: the kernel spreads connections over the loops by a hash of
        /// the addresses, whether or not a loop is busy (nginx's `listen ... reuseport`).
        case reusePortPerLoop
    }

    /// Limits on what clients may send and hold.
    public struct Limits: Sendable {
        /// Longest request line (method, target, version) before 414.
        public var maxRequestLineBytes: Int = 8 * 1024
        /// Most bytes of header fields (and trailer fields) before 431.
        public var maxHeaderBytes: Int = 16 * 1024
        /// Most header fields before 431.
        public var maxHeaderCount: Int = 100
        /// Largest body before 413.
        public var maxBodyBytes: Int = 1024 * 1024
        /// Open connections across all loops; a connection past this gets 503 and is closed.
        public var maxConnections: Int = 16 * 1024
        /// Request-body bytes all connections together may be receiving at once (a `Content-Length` body counts
        /// its declared length, a chunked one `maxBodyBytes`, from its head until it is handed to the handler).
        /// A request whose body does not fit gets 503 with `Retry-After: 1` before any of its body is read, so
        /// many connections each sending an almost complete large body cannot exhaust memory. Never below
        /// `maxBodyBytes` (one body of the largest size always fits).
        public var maxBufferedBodyBytes: Int = 32 * 1024 * 1024
        /// Smaller body limits for some paths (with those the router's routes declare, the smallest that
        /// applies wins); checked on the head of a request with a body only.
        public var bodyLimits: [HTTPBodyLimit] = []

        /// Default limits.
        public init() {}
    }

    /// Timeouts, as `Duration`s.
    public struct Timeouts: Sendable {
        /// From the first byte of a request to the end of its header section (slowloris defence).
        public var header: Duration = .seconds(10)
        /// Longest pause between two reads of a body.
        public var body: Duration = .seconds(30)
        /// An open connection with no request in progress is closed after this.
        public var idle: Duration = .seconds(60)
        /// Longest time a blocked write may make no progress.
        public var write: Duration = .seconds(30)
        /// How long a refused connection is drained after the error response before it is closed (RFC 9112 §9.6).
        public var linger: Duration = .seconds(2)

        /// Default timeouts.
        public init() {}
    }

    /// A configuration; every parameter has a default.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, eventLoops: Int? = nil, listener: Listener = .shared,
        backlog: Int = 1024, deferAcceptSeconds: Int? = 1, limits: Limits = Limits(), timeouts: Timeouts = Timeouts(),
        accessLog: HTTPAccessLog = .off
    ) {
        self.host = host
        self.port = port
        self.eventLoops = eventLoops ?? System.onlineCores()
        self.listener = listener
        self.backlog = backlog
        self.deferAcceptSeconds = deferAcceptSeconds
        self.limits = limits
        self.timeouts = timeouts
        self.accessLog = accessLog
    }
}

/// One access-log record: what was asked, what was answered, how long it took.
public struct HTTPAccessLogEntry: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The request-target as sent.
    public var target: String
    /// The status code sent.
    public var status: Int
    /// Body bytes sent (0 for HEAD).
    public var bodyBytes: Int
    /// From the complete request to the response being queued for writing, in microseconds.
    public var microseconds: Int
    /// The client.
    public var peer: HTTPPeerAddress

    /// `GET /healthz 200 2 17µs` style line: `method target status bytes microseconds peer`.
    public var line: String { "\(method) \(target) \(status) \(bodyBytes) \(microseconds) \(peer)" }
}

/// Access logging: off (the default), one line per response on standard error, or a closure.
public enum HTTPAccessLog: Sendable {
    /// No logging.
    case off
    /// `HTTPAccessLogEntry.line` on standard error.
    case standardError
    /// Calls the closure on the loop thread for every response; it must not block.
    case custom(@Sendable (HTTPAccessLogEntry) -> Void)
}
