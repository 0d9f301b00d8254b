/// Streaming responses on the loop thread (see `HTTPStream`). A streaming connection parses no further
/// request: its phase stays `.noMoreRequests` and `stream` is set until the stream ends, when the
/// connection closes (after the last chunk, unless the client is gone).
extension Connection {
    /// Applies one posted stream operation; runs on the loop thread only.
    func apply(_ operation: HTTPStream.Operation, to stream: HTTPStream) {
        switch operation {
        case .start(let sequence, let head):
            // The connection may have closed (client gone, timeout) before the handler opened the stream.
            guard phase != .closed && phase != .lingering, stream.connection === self, self.stream == nil,
                  inFlight?.sequence == sequence, inFlight?.response == nil
            else {
                stream.markClosed()
                return
            }
            self.stream = stream
            complete(sequence: sequence, response: head)
        case .data(let bytes):
            guard self.stream === stream, phase != .closed else { return }
            writeStream(bytes)
        case .finish:
            guard self.stream === stream, phase != .closed else { return }
            endStream()
        }
    }

    /// Called by `writeReady` instead of `serialize` when the response in flight is a stream's head:
    /// the head goes out with `Transfer-Encoding: chunked` (no `Content-Length`, RFC 9112 §6.1) and
    /// `Connection: close`, since the connection ends with the stream.
    func startStream(_ head: HTTPResponse, for request: InFlight) {
        guard let stream else { return }
        stream.chunked = !request.http10
        phase = .noMoreRequests
        withOutputBuffer { out in
            if let encoded = head.encodedHead {
                out.append(contentsOf: encoded)
            } else {
                var sink = out
                HTTPResponse.appendHead(status: head.status, headers: head.headers, to: &sink)
            }
            out.append(contentsOf: loop.date.line)
            if stream.chunked { out.append(contentsOf: Connection.chunkedField) }
            out.append(contentsOf: EventLoop.connectionClose)
            out.append(contentsOf: EventLoop.crlf)
        }
        loop.counters.recordResponse(status: head.status.code, bodyBytes: 0)
        // HEAD gets the same header section as GET and no body (RFC 9110 §9.3.2); a status that forbids
        // a body has none to stream.
        if request.method == .HEAD || head.status.forbidsBody { endStream(lastChunk: false) }
    }

    static let chunkedField: [UInt8] = Array("Transfer-Encoding: chunked\r\n".utf8)

    /// Queues one chunk, or drops the subscriber when its unsent bytes would pass the limit: a client that
    /// does not read must not make the server buffer without bound.
    func writeStream(_ bytes: [UInt8]) {
        guard let stream else { return }
        if pendingOutputBytes + bytes.count > loop.core.configuration.streams.maxQueuedBytes {
            loop.core.streamsDropped.wrappingAdd(1, ordering: .relaxed)
            close()
            return
        }
        withOutputBuffer { out in
            if stream.chunked {
                var sink = out
                HTTPStream.appendChunk(bytes, to: &sink)
            } else {
                out.append(contentsOf: bytes)
            }
        }
        if !processing { afterProcessing() }
    }

    /// Ends the body (the last chunk, RFC 9112 §7.1) and closes once it is written.
    func endStream(lastChunk: Bool = true) {
        guard let stream else { return }
        if lastChunk && stream.chunked { withOutputBuffer { $0.append(contentsOf: HTTPStream.lastChunk) } }
        self.stream = nil
        stream.markClosed()
        phase = .closeAfterFlush
        if !processing { afterProcessing() }
    }

    /// Deadline of a streaming connection: the write timeout while bytes wait, else the next heartbeat.
    func refreshStreamDeadline() {
        if hasPendingOutput {
            deadline = loop.now &+ loop.timeouts.write
        } else if let stream, !stream.heartbeat.isEmpty {
            deadline = loop.now &+ loop.streamHeartbeatNanoseconds
        } else {
            deadline = .max
        }
    }

    /// At its deadline a stream with nothing queued sends its heartbeat instead of timing out; true if
    /// the connection was handled so.
    func streamDeadlinePassed() -> Bool {
        guard let stream, !hasPendingOutput else { return false }
        writeStream(stream.heartbeat)
        return true
    }
}

extension EventLoop {
    /// Hands a stream operation to the stream's loop: applied at once on the loop thread, posted to the
    /// mailbox and signalled through the eventfd from any other (coalesced with response deliveries).
    func post(_ stream: HTTPStream, _ operation: HTTPStream.Operation) {
        if Socket.currentThread() == threadID.load(ordering: .acquiring) {
            stream.connection.apply(operation, to: stream)
        } else {
            mailbox.withLock { $0.streamOperations.append((stream, operation)) }
            wake()
        }
    }

    /// `post` for many streams of this loop at once: one lock and one wake-up for the batch.
    func post(_ streams: [HTTPStream], _ operation: HTTPStream.Operation) {
        if Socket.currentThread() == threadID.load(ordering: .acquiring) {
            for stream in streams { stream.connection.apply(operation, to: stream) }
        } else {
            mailbox.withLock { box in
                box.streamOperations.reserveCapacity(box.streamOperations.count + streams.count)
                for stream in streams { box.streamOperations.append((stream, operation)) }
            }
            wake()
        }
    }

    /// Graceful stop: every stream ends with its last chunk, so clients see a complete body and reconnect.
    func finishStreams() {
        for case let connection? in connections where connection.stream != nil { connection.endStream() }
    }
}
