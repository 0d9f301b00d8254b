extension Connection {
    func onWritable() {
        guard phase != .closed else { return }
        afterProcessing()
    }

    func finishClosing() {
        if lingerOnClose || !inbound.isEmpty || !parser.isBetweenRequests {
            Socket.shutdownWrite(fd)
            phase = .lingering
            inbound = []
            deadline = loop.now &+ loop.timeouts.linger
        } else {
            close()
        }
    }

    /// The write timeout passed with output still queued: the client stopped reading (a pipelining client that
    /// reads too late). The connection is closed in stages (RFC 9112 §9.6) rather than at once: the write side is
    /// shut behind what the kernel already holds, so those answers still reach the client, followed by the FIN,
    /// and unread requests are drained while lingering. A close with unread input would make the kernel send a
    /// reset, which throws away every answer still on its way and tells the client nothing. The output the
    /// kernel did not take yet is dropped.
    func abandonOutput() {
        outbound = nil
        if usesSharedOutput {
            usesSharedOutput = false
            loop.output.consume(loop.output.count)
        }
        inFlight = nil
        releaseBodyReservation()
        Socket.shutdownWrite(fd)
        phase = .lingering
        inbound = []
        deadline = loop.now &+ loop.timeouts.linger
        updateInterest()
    }

    func updateInterest() {
        var want: UInt32 = 0
        if (phase == .open && !readPaused && !sawEndOfStream) || phase == .lingering
            || (stream != nil && !sawEndOfStream)
        {
            // A stream reads (and discards) so that the client's FIN is seen at once.
            want |= System.readable
        }
        if hasPendingOutput { want |= System.writable }
        if want != interest {
            interest = want
            // Before `register`, the interest is only remembered: the first read after accept runs unregistered.
            if registered { System.epollModify(loop.epfd, fd, want, token) }
        }
    }

    /// Adds the socket to the loop's epoll set with the current interest; false if epoll refuses it.
    func register() -> Bool {
        registered = true
        return System.epollAdd(loop.epfd, fd, interest, token)
    }

    func refreshDeadline() {
        let t = loop.timeouts
        let now = loop.now
        switch phase {
        case .lingering, .closed: return
        default: break
        }
        if stream != nil {
            refreshStreamDeadline()
            return
        }
        if hasPendingOutput {
            deadline = now &+ t.write
        } else if inFlight != nil {
            deadline = .max
        } else if !parser.isBetweenRequests {
            deadline = now &+ t.body
        } else if headStartedAt != 0 {
            deadline = headStartedAt &+ t.header
        } else {
            deadline = now &+ t.idle
        }
    }

    /// Closes the socket and forgets the connection; later responses for it are dropped.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        releaseBodyReservation()
        Socket.close(fd)
        inFlight = nil
        if let stream {
            self.stream = nil
            stream.markClosed()
        }
        outbound = nil
        if usesSharedOutput {
            usesSharedOutput = false
            loop.output.consume(loop.output.count)
        }
        loop.forget(self)
    }
}
