/// One client connection. Confined to its event loop's thread: every property is read and written only
/// there. It is `@unchecked Sendable` solely so an `HTTPResponder` can carry a reference to another
/// thread and back; off the loop the only thing done with it is handing it to `EventLoop.deliver`.
final class Connection: @unchecked Sendable {
    /// Lifecycle (RFC 9112 §9.6 for the closing steps).
    enum Phase: Equatable {
        /// Reading and parsing requests.
        case open
        /// A request said `Connection: close` (or the server is stopping, or a refusal is queued):
        /// parse nothing more, close once the queued responses are written.
        case noMoreRequests
        /// The final response is queued; close (or linger) when it is written.
        case closeAfterFlush
        /// Write side shut down after a refusal; unread input is drained until EOF or the linger timeout,
        /// so the kernel does not answer it with a reset that would destroy the error response.
        case lingering
        case closed
    }

    /// A request handed to the handler whose response has not been written yet, in arrival order.
    struct InFlight {
        let sequence: UInt64
        let method: HTTPMethod
        let target: String
        let keepAlive: Bool
        let http10: Bool
        let startedAt: UInt64
        var response: HTTPResponse?
    }

    let fd: Int32
    let token: UInt64
    let id: UInt64
    let peer: HTTPPeerAddress
    let loop: EventLoop
    // Every `var` below is marked `@exclusivity(unchecked)`. A connection is confined to its loop's thread
    // and no property is ever accessed while another access to it is open (no closure passed inout
    // touches its own connection), so the dynamic exclusivity checks could never fire, and each one costs a
    // begin/end access plus a thread-local access set on every property touched per request.
    // The compile-time checks still apply.
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Bytes received but not consumed by the parser (a partial request, or pipelined ones while paused).
    @exclusivity(unchecked) var inbound: [UInt8] = []
    /// Bytes a blocked write left over (nil when there are none). Responses are serialized into the loop's
    /// shared buffer and sent from there; only what the socket does not take is copied here, so an idle
    /// connection holds no buffer.
    @exclusivity(unchecked) var outbound: OutputBuffer?
    /// Whether the loop's shared output buffer holds bytes of this connection (only until the next `flush`).
    @exclusivity(unchecked) var usesSharedOutput = false
    /// The request handed to the handler whose response is not written yet. Requests are handled one at a
    /// time per connection, so there is never more than one.
    @exclusivity(unchecked) var inFlight: InFlight?
    @exclusivity(unchecked) var nextSequence: UInt64 = 0
    @exclusivity(unchecked) var requestIndex = 0
    /// The router's last match on this connection (see `HTTPRouter.Match`).
    @exclusivity(unchecked) var lastMatch = HTTPRouter.Match()
    @exclusivity(unchecked) var phase = Phase.open
    @exclusivity(unchecked) var lingerOnClose = false
    /// The client's last request asked to close (`Connection: close`, or HTTP/1.0 without keep-alive).
    @exclusivity(unchecked) var clientAskedToClose = false
    @exclusivity(unchecked) var sawEndOfStream = false
    @exclusivity(unchecked) var readPaused = false
    @exclusivity(unchecked) var processing = false
    @exclusivity(unchecked) var interest: UInt32
    /// Whether the socket is in the loop's epoll set yet (see `EventLoop.acceptAll`).
    @exclusivity(unchecked) var registered = false
    @exclusivity(unchecked) var deadline: UInt64 = .max
    @exclusivity(unchecked) var headStartedAt: UInt64 = 0
    /// Whether the handler accepted the head of the request being received (`HTTPRequestContext.headAccepted`).
    @exclusivity(unchecked) var headAccepted = false
    /// What the body being received holds of the server-wide budget (`Limits.maxBufferedBodyBytes`).
    @exclusivity(unchecked) var reservedBodyBytes = 0
    /// The streaming response this connection is sending, if any (see `Connection+Stream.swift`).
    @exclusivity(unchecked) var stream: HTTPStream?

    init(fd: Int32, token: UInt64, id: UInt64, peer: HTTPPeerAddress, loop: EventLoop, limits: HTTPRequestParser.Limits) {
        self.fd = fd
        self.token = token
        self.id = id
        self.peer = peer
        self.loop = loop
        self.parser = HTTPRequestParser(limits: limits)
        self.interest = System.readable
    }

    var hasPendingOutput: Bool { outbound != nil || usesSharedOutput }

    // MARK: reading

    func onReadable() {
        switch phase {
        case .closed: return
        case .lingering:
            switch Socket.read(fd, into: loop.readBuffer) {
            case .bytes, .wouldBlock: return
            case .endOfStream, .failed: close()
            }
            return
        default: break
        }
        switch Socket.read(fd, into: loop.readBuffer) {
        case .bytes(let n):
            if phase == .open {
                processing = true
                feed(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n]))
                processing = false
            }
            afterProcessing()
        case .wouldBlock:
            return
        case .endOfStream:
            sawEndOfStream = true
            if inFlight == nil && !hasPendingOutput {
                close()
            } else {
                afterProcessing()
            }
        case .failed:
            close()
        }
    }

    func feed(_ bytes: UnsafeRawBufferPointer) {
        if inbound.isEmpty {
            let used = process(bytes)
            if used < bytes.count && (phase == .open || phase == .noMoreRequests) {
                inbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
            }
        } else {
            inbound.append(contentsOf: bytes)
            processInbound()
        }
    }

    func processInbound() {
        var buffer: [UInt8] = []
        swap(&buffer, &inbound)
        let used = buffer.withUnsafeBytes { process($0) }
        if used == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16 * 1024)
        } else {
            buffer.removeFirst(used)
        }
        swap(&buffer, &inbound)
    }

    /// Parses and dispatches as many requests as `buffer` holds; returns the bytes consumed.
    func process(_ buffer: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        parsing: while phase == .open && offset < buffer.count {
            // One request at a time per connection: the next pipelined request is handed to the handler only
            // once the previous response is queued, so a GET pipelined after a PUT sees the PUT's effect.
            // Unparsed bytes wait in `inbound`, and reading stops (TCP applies backpressure to the client).
            if offset < buffer.count && (inFlight != nil || pendingOutputBytes > EventLoop.outputHighWater) {
                readPaused = true
                break
            }
            do {
                let (used, event) = try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                offset += used
                // Consumed, so the request inside is moved to the handler rather than copied and destroyed.
                switch consume event {
                case .needMore:
                    if used == 0 || offset == buffer.count { break parsing }
                case .head(let continueNeeded):
                    // Decided before a byte of the body is read or 100 Continue is sent: a refusal closes
                    // the connection with the body unread, so an unauthorized client costs no body memory.
                    if let refusal = decideOnHead() {
                        refuse(refusal)
                        break parsing
                    }
                    // RFC 9110 §10.1.1: the interim response tells the client to send the body. It may only
                    // go out when no earlier response is still owed, or it would come before that one.
                    if continueNeeded && inFlight == nil { withOutputBuffer { $0.append(contentsOf: EventLoop.continueResponse) } }
                case .request(let request):
                    headStartedAt = 0
                    dispatch(request)
                }
            } catch {
                refuse(error)
                break parsing
            }
        }
        if phase == .open && headStartedAt == 0 && offset < buffer.count { headStartedAt = loop.now }
        return offset
    }

    /// The path's body limit, the handler's `checkHead` on the head just parsed, then the body budget: the
    /// response to refuse with, or nil after reserving the body's bytes.
    func decideOnHead() -> HTTPResponse? {
        guard let head = parser.pendingHead else { return nil }
        // A path's own body limit, like the global one, comes before the handler's checks (the global one is
        // the parser's, earlier still).
        if !loop.core.bodyLimits.isEmpty, let limit = loop.core.bodyLimits.limit(for: head.path),
           !parser.lowerBodyLimit(to: limit) {
            return HTTPError(.contentTooLarge, code: "body_too_large", message: "body larger than \(limit) bytes",
                             closesConnection: true).response
        }
        var context = HTTPRequestContext(peer: peer, connectionID: id, requestIndex: requestIndex, receivedAtNanoseconds: loop.now)
        context.eventLoop = loop.index
        if let response = loop.core.handler.checkHead(head, context: context) { return response }
        let bytes = parser.pendingBodyBytes
        guard loop.core.reserveBody(bytes) else {
            return HTTPError(.serviceUnavailable, code: "too_many_bodies",
                             message: "the server is receiving too many request bodies; retry shortly",
                             headers: [.retryAfter: "1"], closesConnection: true).response
        }
        reservedBodyBytes = bytes
        headAccepted = true
        return nil
    }

    /// Gives the body's reservation back (the body is complete and handed on, or the connection ends).
    func releaseBodyReservation() {
        guard reservedBodyBytes > 0 else { return }
        loop.core.releaseBody(reservedBodyBytes)
        reservedBodyBytes = 0
    }

    func dispatch(_ request: HTTPRequest) {
        releaseBodyReservation()
        let sequence = nextSequence
        nextSequence += 1
        let clientKeepsAlive = request.wantsKeepAlive
        let keepAlive = clientKeepsAlive && !loop.stopping
        // The target is kept for the access log only (a retain and release per request otherwise).
        let target = loop.accessLogOff ? "" : request.target
        inFlight = InFlight(
            sequence: sequence, method: request.method, target: target, keepAlive: keepAlive,
            http10: request.minorVersion == 0, startedAt: loop.now, response: nil)
        if !keepAlive { phase = .noMoreRequests }
        if !clientKeepsAlive { clientAskedToClose = true }
        var context = HTTPRequestContext(peer: peer, connectionID: id, requestIndex: requestIndex, receivedAtNanoseconds: loop.now)
        context.eventLoop = loop.index
        if headAccepted {
            context.headAccepted = true
            headAccepted = false
        }
        requestIndex += 1
        let responder = HTTPResponder(connection: self, sequence: sequence)
        if let router = loop.core.router {
            router.route(request, context: &context, responder: responder, last: &lastMatch)
        } else {
            loop.core.handler.handle(request, context: context, responder: responder)
        }
    }

    /// Queues the refusal and stops reading requests. Parsing only happens with no request in flight,
    /// so the refusal is the next response on the wire.
    func refuse(_ error: HTTPError) { refuse(error.response) }

    /// Queues `response` as a refusal (see `refuse(_:)` for an `HTTPError`).
    func refuse(_ refusal: HTTPResponse) {
        releaseBodyReservation()
        let sequence = nextSequence
        nextSequence += 1
        var response = refusal
        response.closeConnection = true
        lingerOnClose = true
        inFlight = InFlight(
            sequence: sequence, method: HTTPMethod("-"), target: "-", keepAlive: false, http10: false,
            startedAt: loop.now, response: response)
        phase = .noMoreRequests
        writeReady()
    }

    // MARK: responding

    /// A handler's response arrives (on the loop thread).
    func complete(sequence: UInt64, response: HTTPResponse) {
        guard phase != .closed && phase != .lingering else { return }
        guard inFlight?.sequence == sequence, inFlight?.response == nil else { return }
        if stream == nil, let current = inFlight.take() {
            // Written at once rather than stored in `inFlight` and taken out again: a copy of the response
            // (a retain and release of each of its arrays) less per request.
            write(response, for: current)
        } else {
            inFlight?.response = response
            writeReady()
        }
        if !processing { afterProcessing() }
    }

    /// Serializes the response once it is ready; pipeline order (RFC 9112 §9.3.2) holds because the next
    /// request is not parsed before this.
    func writeReady() {
        // Moved out, not copied: a copy would retain and release each of its references.
        if let current = inFlight.take() {
            guard let response = current.response else {
                inFlight = current
                return
            }
            if stream != nil {
                startStream(response, for: current)
                return
            }
            write(response, for: current)
            return
        }
        if phase == .noMoreRequests { phase = .closeAfterFlush }
    }

    /// Serializes `response` to `current` and decides whether the connection ends after it.
    func write(_ response: HTTPResponse, for current: InFlight) {
        let close = !current.keepAlive || response.closeConnection || loop.stopping
        serialize(response, for: current, close: close)
        if close {
            phase = .closeAfterFlush
        } else if phase == .noMoreRequests {
            phase = .closeAfterFlush
        }
    }

    /// Resumes paused parsing, writes what is queued, and updates epoll interest and the deadline.
    func afterProcessing() {
        if phase == .closed { return }
        if hasPendingOutput { flush() }
        // A loop, not one pass: parsing may pause again at the high-water mark and the flush after it may
        // then send everything. Left paused with nothing to send, the connection would want neither reading
        // nor writing, and the pipelined requests still in `inbound` would wait for a timeout.
        while readPaused && phase == .open && inFlight == nil
            && pendingOutputBytes <= EventLoop.outputHighWater
        {
            readPaused = false
            if !inbound.isEmpty {
                processing = true
                processInbound()
                processing = false
            }
            if hasPendingOutput && phase != .closed { flush() }
        }
        if phase == .closed { return }
        if phase == .closeAfterFlush && !hasPendingOutput { finishClosing() }
        if sawEndOfStream && inFlight == nil && !hasPendingOutput && phase != .lingering { close() }
        if phase == .closed { return }
        updateInterest()
        refreshDeadline()
    }
}
