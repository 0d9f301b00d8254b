extension Connection {
    var pendingOutputBytes: Int { outbound.count - outboundOffset + (usesSharedOutput ? loop.sharedOutput.count : 0) }

    /// Runs `body` on the buffer the next output bytes belong in: the connection's own buffer while it
    /// still holds unsent bytes (order), the loop's shared one otherwise.
    func withOutputBuffer(_ body: (inout [UInt8]) -> Void) {
        if outboundOffset < outbound.count {
            body(&outbound)
            return
        }
        if !usesSharedOutput {
            // Never let bytes of another connection go out on this one.
            loop.sharedOutput.removeAll(keepingCapacity: true)
            usesSharedOutput = true
        }
        var buffer: [UInt8] = []
        swap(&buffer, &loop.sharedOutput)
        body(&buffer)
        swap(&buffer, &loop.sharedOutput)
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
            var shared: [UInt8] = []
            swap(&shared, &loop.sharedOutput)
            var sent = 0
            var failed = false
            shared.withUnsafeBytes { bytes in
                while sent < bytes.count {
                    switch Socket.send(fd, UnsafeRawBufferPointer(rebasing: bytes[sent...]), finBehind: finBehind) {
                    case .wrote(let n): sent += n
                    case .wouldBlock: return
                    case .failed:
                        failed = true
                        return
                    }
                }
            }
            if !failed && sent < shared.count {
                // Own buffer is empty here: shared output is only used when nothing else is pending.
                outbound.append(contentsOf: shared[sent...])
            }
            shared.removeAll(keepingCapacity: shared.capacity <= 1 << 20)
            swap(&shared, &loop.sharedOutput)
            if failed {
                close()
                return
            }
        }
        while outboundOffset < outbound.count {
            let result = outbound.withUnsafeBytes {
                Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[outboundOffset...]), finBehind: finBehind)
            }
            switch result {
            case .wrote(let n): outboundOffset += n
            case .wouldBlock: return
            case .failed:
                // The client went away mid-response (EPIPE, ECONNRESET): nothing left to do for it.
                close()
                return
            }
        }
        outbound.removeAll(keepingCapacity: outbound.capacity <= 64 * 1024)
        outboundOffset = 0
    }
}
