import Glibc
import ServerLock
import Synchronization

/// One epoll loop on its own thread, with its own descriptor of the shared listener (or its own
/// `SO_REUSEPORT` listener).
/// The loop's mutable state (`connections`, buffers, `now`, `date`, `stopping`) is touched only by the
/// loop's thread; that is why the class is `@unchecked Sendable`. Other threads use only `deliver`,
/// `requestStop` and the lock and atomic members.
final class EventLoop: @unchecked Sendable {
    static let listenerToken = UInt64.max
    static let wakeToken = UInt64.max - 1
    static let outputHighWater = 1 << 20
    static let maxEvents: Int32 = 512
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let statusLinePrefix: [UInt8] = Array("HTTP/1.1 ".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let colonSpace: [UInt8] = [0x3A, 0x20]
    static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
    static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)

    struct Mailbox {
        var deliveries: [(Connection, UInt64, HTTPResponse)] = []
        var streamOperations: [(HTTPStream, HTTPStream.Operation)] = []
        var stopGrace: Duration?
        /// Connections other loops hand to this one (`EventLoop+Placement.swift`).
        var arrivals: [ArrivingConnection] = []
        /// Set by `requestStop` and never cleared: from then on this loop takes no arrivals.
        var stopRequested = false
    }

    let index: Int
    let core: ServerCore
    let epfd: Int32
    let wakeFD: Int32
    @exclusivity(unchecked) var listenFD: Int32
    let threadID = Atomic<UInt64>(0)
    let mailbox = PThreadMutex(Mailbox())
    let wakePending = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    let counters = LoopCounters()

    @exclusivity(unchecked) var connections: [Connection?] = []
    @exclusivity(unchecked) var connectionCount = 0
    @exclusivity(unchecked) var generation: UInt32 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    let events: UnsafeMutableRawPointer
    @exclusivity(unchecked) var date = HTTPDate()
    /// `date.line`'s bytes where every response copies them from without retaining the array (`dateLineCount` of them).
    let dateLine = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
    @exclusivity(unchecked) var dateLineCount = 0
    /// Responses are serialized here and sent at once; see `Connection.withOutputBuffer`.
    let output = OutputBuffer()
    @exclusivity(unchecked) var now: UInt64 = 0
    @exclusivity(unchecked) var stopping = false
    @exclusivity(unchecked) var forceCloseAt: UInt64 = .max
    @exclusivity(unchecked) var nextSweep: UInt64 = 0
    @exclusivity(unchecked) var listenerPausedUntil: UInt64 = 0
    /// The server's other loops, set before the threads start when `followsIncomingCPU` is on (else empty), and
    /// emptied by `HTTPServer` once the threads have exited (the loops hold each other strongly until then). Not
    /// weak: a weak reference gives the loop a side table, and every retain and release of it (a connection
    /// retains its loop several times per request) then takes the slow path.
    @exclusivity(unchecked) var siblings: [EventLoop] = []
    /// Requests until the next placement check (`considerMoving`).
    @exclusivity(unchecked) var placementCountdown = 0
    /// When the loop next publishes its CPU (monotonic nanoseconds).
    @exclusivity(unchecked) var nextCPUPublish: UInt64 = 0
    /// The CPU this loop last woke up on, published for its siblings (-1 before it ran, or with no siblings).
    let cpu = Atomic<Int32>(-1)
    let sweepInterval: UInt64
    /// `EPOLLIN`, with `EPOLLEXCLUSIVE` when the listener is shared (which epoll_ctl cannot MOD, only DEL and ADD).
    let listenerEvents: UInt32
    /// Copies of configuration values read on every request (no retain/release of the whole configuration).
    let accessLog: HTTPAccessLog
    /// Whether `accessLog` is `.off` (then a request's target is not kept for its log line).
    let accessLogOff: Bool
    let timeouts: (header: UInt64, body: UInt64, idle: UInt64, write: UInt64, linger: UInt64)
    let streamHeartbeatNanoseconds: UInt64

    init(index: Int, core: ServerCore, listenFD: Int32, exclusiveListener: Bool) throws(HTTPError) {
        let ep = try System.epollCreate()
        let wake: Int32
        do {
            wake = try System.eventFD()
        } catch {
            Socket.close(ep)
            throw error
        }
        let listenerEvents = exclusiveListener ? System.readable | System.exclusive : System.readable
        guard System.epollAdd(ep, listenFD, listenerEvents, EventLoop.listenerToken), System.epollAdd(ep, wake, System.readable, EventLoop.wakeToken)
        else {
            let e = errno
            Socket.close(ep)
            Socket.close(wake)
            throw HTTPError.system("epoll_ctl", errno: e)
        }
        self.index = index
        self.core = core
        self.epfd = ep
        self.wakeFD = wake
        self.listenFD = listenFD
        self.listenerEvents = listenerEvents
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        events = System.allocateEvents(EventLoop.maxEvents)
        let t = core.configuration.timeouts
        let heartbeat = core.configuration.streams.heartbeatInterval
        let shortest = [t.header, t.body, t.idle, t.write, t.linger, heartbeat].map(\.nanoseconds).min() ?? 1_000_000_000
        streamHeartbeatNanoseconds = max(heartbeat.nanoseconds, 1_000_000)
        sweepInterval = min(max(shortest / 4, 5_000_000), 500_000_000)
        accessLog = core.configuration.accessLog
        if case .off = accessLog { accessLogOff = true } else { accessLogOff = false }
        timeouts = (t.header.nanoseconds, t.body.nanoseconds, t.idle.nanoseconds, t.write.nanoseconds, t.linger.nanoseconds)
    }

    deinit {
        // Closed here rather than when the loop exits: a late responder may still signal the eventfd.
        Socket.close(epfd)
        Socket.close(wakeFD)
        if listenFD >= 0 { Socket.close(listenFD) }
        readBuffer.deallocate()
        events.deallocate()
        dateLine.deallocate()
    }

    /// Runs until stopped and every connection is closed (or the grace period ends).
    func run() {
        threadID.store(Socket.currentThread(), ordering: .releasing)
        if !siblings.isEmpty { cpu.store(Socket.currentCPU(), ordering: .relaxed) }
        now = Socket.monotonicNanoseconds()
        updateDate()
        nextSweep = now &+ sweepInterval
        while true {
            let timeoutMs = Int32(clamping: (sweepInterval + 999_999) / 1_000_000)
            guard let n = System.epollWait(epfd, events, EventLoop.maxEvents, timeoutMs: timeoutMs) else { break }
            now = Socket.monotonicNanoseconds()
            updateDate()
            let placing = !siblings.isEmpty
            if placing && now >= nextCPUPublish {
                // At most once a millisecond: a loop changes CPUs far less often, and reading the CPU is not free
                // everywhere (without rseq, as under valgrind, it is a system call).
                nextCPUPublish = now &+ 1_000_000
                cpu.store(Socket.currentCPU(), ordering: .relaxed)
            }
            for i in 0..<n {
                let (token, flags) = System.event(events, i)
                switch token {
                case EventLoop.listenerToken: acceptAll()
                case EventLoop.wakeToken: drainMailbox()
                default:
                    let fd = Int(token & 0xFFFF_FFFF)
                    guard fd < connections.count, let connection = connections[fd], connection.token == token else { continue }
                    if flags & System.errorOrHangUp != 0 && flags & System.readable == 0 {
                        connection.close()
                        continue
                    }
                    if flags & System.writable != 0 { connection.onWritable() }
                    if flags & System.readable != 0 {
                        connection.onReadable()
                        if placing { considerMoving(connection) }
                    }
                }
            }
            if now >= nextSweep {
                nextSweep = now &+ sweepInterval
                sweep()
            }
            if stopping && (connectionCount == 0 || now >= forceCloseAt) { break }
        }
        for case let connection? in connections { connection.close() }
        if listenFD >= 0 {
            Socket.close(listenFD)
            listenFD = -1
        }
        finished.store(true, ordering: .releasing)
    }

    /// The `Date` line for this second, and its copy in `dateLine`.
    @inline(__always)
    func updateDate() {
        let second = date.second
        date.update(now: System.wallSeconds())
        guard date.second != second else { return }
        date.line.withUnsafeBytes { line in
            let count = min(line.count, 64)
            if let base = line.baseAddress { dateLine.copyMemory(from: base, byteCount: count) }
            dateLineCount = count
        }
    }

    /// The `Date` line's bytes.
    var dateLineBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: dateLine, count: dateLineCount) }

    // MARK: cross-thread entry points

    /// Hands a response to its connection: directly on the loop thread, through the mailbox otherwise.
    func deliver(_ connection: Connection, sequence: UInt64, response: HTTPResponse) {
        if Socket.currentThread() == threadID.load(ordering: .acquiring) {
            connection.complete(sequence: sequence, response: response)
        } else {
            mailbox.withLock { $0.deliveries.append((connection, sequence, response)) }
            wake()
        }
    }

    /// Asks the loop to stop accepting and close connections once their work is done.
    func requestStop(grace: Duration) {
        mailbox.withLock {
            $0.stopGrace = grace
            $0.stopRequested = true
        }
        wake()
    }

    func wake() {
        // Coalesces wake-ups: one eventfd write per batch of deliveries.
        if !wakePending.exchange(true, ordering: .acquiringAndReleasing) { Socket.signal(eventFD: wakeFD) }
    }

    func drainMailbox() {
        Socket.drain(eventFD: wakeFD)
        // Cleared before taking the deliveries, so a delivery posted after the swap signals again.
        wakePending.store(false, ordering: .releasing)
        let (deliveries, streamOperations, grace, arrivals) = mailbox.withLock { box in
            let taken = (box.deliveries, box.streamOperations, box.stopGrace, box.arrivals)
            box.deliveries = []
            box.streamOperations = []
            box.stopGrace = nil
            box.arrivals = []
            return taken
        }
        // Before a stop: `beginStop` then closes them like its own idle connections.
        for arrival in arrivals {
            adopt(fd: arrival.fd, id: arrival.id, peer: arrival.peer, deadline: now &+ timeouts.idle, requestIndex: arrival.requestIndex)
        }
        for (connection, sequence, response) in deliveries {
            connection.complete(sequence: sequence, response: response)
        }
        for (stream, operation) in streamOperations { stream.connection.apply(operation, to: stream) }
        if let grace, !stopping { beginStop(grace: grace) }
    }

    // MARK: loop-thread work

    func beginStop(grace: Duration) {
        stopping = true
        forceCloseAt = now &+ grace.nanoseconds
        if listenFD >= 0 {
            System.epollRemove(epfd, listenFD)
            Socket.close(listenFD)
            listenFD = -1
        }
        finishStreams()
        for case let connection? in connections {
            // Requests already sent but not yet read are "in flight" too: pick them up first.
            if connection.phase == .open { connection.onReadable() }
            if connection.phase == .open && connection.inFlight == nil && !connection.hasPendingOutput
                && connection.inbound.isEmpty && connection.parser.isBetweenRequests
            {
                connection.close()
            } else if connection.phase == .open && connection.parser.isBetweenRequests {
                // Finish what was asked, then close: responses now carry `Connection: close`.
                connection.phase = .noMoreRequests
                connection.afterProcessing()
            }
        }
    }

    func acceptAll() {
        guard listenFD >= 0, now >= listenerPausedUntil else { return }
        let limit = core.configuration.limits.maxConnections
        // Counted once at the end of the pass: one lock, not one per accept.
        var acceptedNow = 0
        defer { if acceptedNow > 0 { counters.values.withLock { $0.accepted += acceptedNow } } }
        while let accepted = Socket.accept(listenFD) {
            guard case .accepted(let fd, let peer) = accepted else {
                if case .failed(let e) = accepted, e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM {
                    // Out of descriptors or memory: the pending connection stays queued and the level-triggered
                    // listener would wake us forever. Stop accepting briefly instead of spinning.
                    listenerPausedUntil = now &+ 100_000_000
                    System.epollRemove(epfd, listenFD)
                    return
                }
                continue
            }
            let open = core.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
            if open > limit || stopping {
                rejectOverLimit(fd)
                core.openConnections.wrappingSubtract(1, ordering: .relaxed)
                counters.values.withLock { $0.rejected += 1 }
                continue
            }
            acceptedNow += 1
            // A new connection must send its first request within the header timeout (an opened, silent
            // connection is the cheapest slowloris); the idle timeout applies between requests.
            adopt(fd: fd, id: core.nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue, peer: peer,
                  deadline: now &+ timeouts.header)
        }
    }

    /// Makes an open socket (accepted here, or handed over by a sibling) one of this loop's connections.
    func adopt(fd: Int32, id: UInt64, peer: HTTPPeerAddress, deadline: UInt64, requestIndex: Int = 0) {
        generation &+= 1
        let token = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        let limits = core.configuration.limits
        let connection = Connection(
            fd: fd, token: token, id: id, peer: peer, loop: self,
            limits: HTTPRequestParser.Limits(
                maxRequestLineBytes: limits.maxRequestLineBytes, maxHeaderBytes: limits.maxHeaderBytes,
                maxHeaderCount: limits.maxHeaderCount, maxBodyBytes: limits.maxBodyBytes))
        connection.requestIndex = requestIndex
        let slot = Int(fd)
        if slot >= connections.count { connections.append(contentsOf: repeatElement(nil, count: slot + 1 - connections.count + 64)) }
        connections[slot] = connection
        connectionCount += 1
        connection.deadline = deadline
        // Under load the first request has usually arrived by the time the connection is accepted (or handed
        // over): read it now instead of after another epoll_wait. A connection that is answered and closed in
        // this one step (`Connection: close`) never costs an epoll_ctl at all; one that stays open is
        // registered with whatever interest the first read left it with.
        connection.onReadable()
        if connection.phase != .closed && !connection.register() {
            connection.close()
        }
    }

    /// Best-effort 503 to a connection over the limit; the socket is new, so one send normally takes it all.
    func rejectOverLimit(_ fd: Int32) {
        var error = HTTPError(.serviceUnavailable, code: "too_many_connections", message: "server is at its connection limit")
        error.headers.add(name: .retryAfter, value: "1")
        let response = error.response
        var bytes: [UInt8] = []
        bytes.append(contentsOf: "HTTP/1.1 503 Service Unavailable\r\n".utf8)
        for field in response.headers {
            bytes.append(contentsOf: "\(field.name): \(field.value)\r\n".utf8)
        }
        bytes.append(contentsOf: date.line)
        bytes.append(contentsOf: "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n".utf8)
        bytes.append(contentsOf: response.body)
        _ = bytes.withUnsafeBytes { Socket.send(fd, $0) }
        Socket.close(fd)
        counters.recordResponse(status: 503, bodyBytes: response.body.count)
    }

    /// Closes connections past their deadline (header, body, idle, write or linger timeout).
    func sweep() {
        if listenFD >= 0 && listenerPausedUntil != 0 && now >= listenerPausedUntil {
            listenerPausedUntil = 0
            _ = System.epollAdd(epfd, listenFD, listenerEvents, EventLoop.listenerToken)
        }
        for case let connection? in connections where connection.deadline <= now {
            if connection.streamDeadlinePassed() { continue }
            if connection.phase == .lingering {
                connection.close()
                continue
            }
            counters.values.withLock { $0.timedOut += 1 }
            if connection.hasPendingOutput && connection.stream == nil {
                // Write timeout: the answers the kernel holds still go out, then an orderly close.
                connection.abandonOutput()
                continue
            }
            if connection.phase == .open && connection.inFlight == nil && !connection.hasPendingOutput && connection.headStartedAt != 0 {
                // Slowloris: the header section did not arrive in time (RFC 9110 §15.5.9).
                connection.refuse(HTTPError(.requestTimeout, code: "header_timeout", message: "request header not received in time", closesConnection: true))
                connection.flush()
            }
            connection.close()
        }
        if stopping && now >= forceCloseAt {
            for case let connection? in connections { connection.close() }
        }
    }

    func forget(_ connection: Connection) {
        let slot = Int(connection.fd)
        guard slot < connections.count, connections[slot] === connection else { return }
        connections[slot] = nil
        connectionCount -= 1
        core.openConnections.wrappingSubtract(1, ordering: .relaxed)
    }
}
