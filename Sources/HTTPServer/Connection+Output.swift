extension Connection {
    var pendingOutputBytes: Int { (outbound?.count ?? 0) + (usesSharedOutput ? loop.output.count : 0) }

    /// Runs `body` on the buffer the next output bytes belong in: the connection's own buffer while it
    /// still holds unsent bytes (order), the loop's shared one otherwise.
    @inline(__always)
    func withOutputBuffer(_ body: (OutputBuffer) -> Void) {
        if let own = outbound {
            body(own)
            return
        }
        if !usesSharedOutput {
            // Never let bytes of another connection go out on this one.
            loop.output.consume(loop.output.count)
            usesSharedOutput = true
        }
        body(loop.output)
    }

    /// Whether the bytes being flushed end the connection and the close follows at once, so they may wait
    /// in the kernel for the FIN (see `Socket.send(_:_:finBehind:)`). Only when the client itself asked to
    /// close (RFC 9112 §9.6: it sends nothing more), nothing is unread, and no linger is due: a close with
    /// unread input makes the kernel send a reset and drop what is still held back.
    var finFollowsOutput: Bool {
        phase == .closeAfterFlush && clientAskedToClose && !lingerOnClose && !sawEndOfStream
            && inbound.isEmpty && parser.isBetweenRequests
    }

    func flush() {
        let finBehind = finFollowsOutput
        if usesSharedOutput {
            usesSharedOutput = false
            let shared = loop.output
            let fd = self.fd
            let (sent, failed) = shared.withUnsent { bytes -> (Int, Bool) in
                var sent = 0
                while sent < bytes.count {
                    switch Socket.send(fd, UnsafeRawBufferPointer(rebasing: bytes[sent...]), finBehind: finBehind) {
                    case .wrote(let n): sent += n
                    case .wouldBlock: return (sent, false)
                    case .failed: return (sent, true)
                    }
                }
                return (sent, false)
            }
            if !failed && sent < shared.count {
                // Own buffer is empty here: shared output is only used when nothing else is pending.
                outbound = shared.withUnsent { OutputBuffer(copying: UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            }
            shared.removeAll(keepingAtMost: 1 << 20)
            if failed {
                close()
                return
            }
        }
        while let own = outbound {
            let result = own.withUnsent { Socket.send(fd, $0, finBehind: finBehind) }
            switch result {
            case .wrote(let n):
                own.consume(n)
                // An idle connection holds no buffer.
                if own.isEmpty { outbound = nil }
            case .wouldBlock: return
            case .failed:
                // The client went away mid-response (EPIPE, ECONNRESET): nothing left to do for it.
                close()
                return
            }
        }
    }
}
