import Synchronization

/// What the server allows streaming responses (see `HTTPResponder.openStream`).
public struct HTTPStreamLimits: Sendable {
    /// Most streams open at once over all loops; `openStream` answers 503 beyond.
    public var maxStreams: Int = 12 * 1024
    /// Most bytes a stream may have queued and unsent. A subscriber that stops reading is closed once its
    /// queue would pass this, so a slow reader costs at most this much memory, never an unbounded buffer.
    public var maxQueuedBytes: Int = 64 * 1024
    /// How long a stream may be silent before its heartbeat bytes are sent (keeps proxies and NATs from
    /// dropping an idle connection and finds clients that went away without a FIN).
    public var heartbeatInterval: Duration = .seconds(25)

    /// Defaults.
    public init() {}
}

/// A response kept open after its head: bytes written to it from any thread go out in order as chunks
/// (RFC 9112 §7.1, `Transfer-Encoding: chunked`; an HTTP/1.0 client gets them unframed and the close ends
/// the body). Writes are posted to the connection's event loop through the loop's mailbox and eventfd, as
/// handler responses are, so the connection itself is never locked or touched off its loop.
///
/// A stream ends when `finish()` sends the last chunk (`0\r\n\r\n`), when the client closes, when it stops
/// reading and its queue passes `HTTPStreamLimits.maxQueuedBytes`, or at graceful stop (last chunk too).
/// `isClosed` says so; writes after that are dropped.
public final class HTTPStream: @unchecked Sendable {
    // @unchecked: `chunked` and `heartbeat` are written before the stream is handed to its loop and read
    // only there; everything else is immutable or atomic.
    enum Operation {
        case start(sequence: UInt64, head: HTTPResponse)
        case data([UInt8])
        case finish
    }

    let connection: Connection
    let core: ServerCore
    /// Sent when the stream was silent for the heartbeat interval (an SSE comment, for example); empty: none.
    let heartbeat: [UInt8]
    private let closed = Atomic<Bool>(false)
    /// Loop-confined: whether bytes are chunk-framed (false for an HTTP/1.0 request).
    @exclusivity(unchecked) var chunked = true

    init(connection: Connection, core: ServerCore, heartbeat: [UInt8]) {
        self.connection = connection
        self.core = core
        self.heartbeat = heartbeat
    }

    /// Whether the stream has ended (finished, client gone, dropped as too slow, server stopping).
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Queues `bytes` as one chunk; returns false when the stream has already ended. Any thread.
    /// An empty array is ignored: a zero-size chunk would end the body (RFC 9112 §7.1).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard !isClosed else { return false }
        if !bytes.isEmpty { connection.loop.post(self, .data(bytes)) }
        return true
    }

    /// Queues `bytes` as one chunk on every stream of `streams` that is still open. Any thread. The streams
    /// of one event loop are posted under one lock with one wake-up, so a publish to 10,000 subscribers
    /// costs two mailbox locks on two loops instead of 10,000 (and the loops drain whole batches).
    public static func send(_ bytes: [UInt8], to streams: [HTTPStream]) {
        guard !bytes.isEmpty else { return }
        var byLoop: [ObjectIdentifier: (loop: EventLoop, streams: [HTTPStream])] = [:]
        for stream in streams where !stream.isClosed {
            byLoop[ObjectIdentifier(stream.connection.loop), default: (stream.connection.loop, [])].streams.append(stream)
        }
        for (loop, group) in byLoop.values { loop.post(group, .data(bytes)) }
    }

    /// Ends the body with the last chunk, then closes the connection. Any thread; once.
    public func finish() {
        guard !isClosed else { return }
        connection.loop.post(self, .finish)
    }

    /// Marks the stream ended and gives back its place under `maxStreams` (exactly once).
    func markClosed() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            core.openStreams.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    /// Chunk framing of `bytes`: size in hex, CRLF, data, CRLF (RFC 9112 §7.1).
    static func appendChunk<Sink: ByteSink>(_ bytes: [UInt8], to out: inout Sink) {
        var size = bytes.count
        var hex: [UInt8] = []
        repeat {
            let digit = UInt8(size & 0xF)
            hex.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
            size >>= 4
        } while size > 0
        out.append(contentsOf: Array(hex.reversed()))
        out.append(contentsOf: EventLoop.crlf)
        out.append(contentsOf: bytes)
        out.append(contentsOf: EventLoop.crlf)
    }

    /// The last chunk with no trailer section (RFC 9112 §7.1).
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}

extension HTTPResponder {
    /// Answers with `head` (status and fields; its body is ignored) and keeps the response open as an
    /// `HTTPStream`. Returns nil when the server is at `HTTPStreamLimits.maxStreams` (the request is then
    /// answered 503 with `Retry-After`), or when this responder has no connection (a test callback, which
    /// gets `head` as a plain response). Call it instead of `respond`, once.
    public func openStream(_ head: HTTPResponse, heartbeat: [UInt8] = []) -> HTTPStream? {
        guard case .connection(let connection, let sequence) = target else {
            respond(head)
            return nil
        }
        let core = connection.loop.core
        let limit = core.configuration.streams.maxStreams
        if core.openStreams.wrappingAdd(1, ordering: .relaxed).newValue > limit {
            core.openStreams.wrappingSubtract(1, ordering: .relaxed)
            var error = HTTPError(.serviceUnavailable, code: "too_many_streams", message: "server is at its stream limit")
            error.headers.add(name: .retryAfter, value: "5")
            respond(error.response)
            return nil
        }
        let stream = HTTPStream(connection: connection, core: core, heartbeat: heartbeat)
        connection.loop.post(stream, .start(sequence: sequence, head: head))
        return stream
    }
}
