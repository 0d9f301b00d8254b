import Synchronization

/// An idle keep-alive connection on its way from one loop to another: what its new `Connection` keeps.
struct ArrivingConnection {
    let fd: Int32
    let id: UInt64
    let peer: HTTPPeerAddress
    let requestIndex: Int
}

// Why connections move. Over loopback (and from a NIC, with the receive queue's interrupt on one CPU) a
// request is handled by the network stack on the CPU its sender runs on. When the loop that owns the
// connection runs on the other CPU, every request wakes that CPU and every answer wakes the sender's back:
// two cross-CPU wake-ups per request, which on a virtual machine are exits to the hypervisor. A client
// with one thread per CPU (wrk, an nginx front with a worker per core, a pool of proxies) gets its
// connections spread over the loops by whichever loop accepted first, so some rounds had every thread of
// the client talking to every loop: 85,000 against 143,000 304s a second on two cores, the same build
// from one run to the next (Benchmarks/RESULTS.md). Moved to the loop that runs where its requests
// arrive, a connection's requests and answers stay on one CPU and the scheduler keeps each client thread
// beside its loop. The loops are not pinned: each publishes the CPU it woke up on, and a connection goes
// to a loop seen on its CPU. One `getsockopt` per `placementInterval` requests is the whole cost.
extension EventLoop {
    /// Counts a request answered on `connection` and, on every `placementInterval`-th, moves the
    /// connection to the loop running on the CPU its requests arrive on, if it is idle and that is another
    /// loop. Called after a readable event of a connection, on the loop thread.
    @inline(__always)
    func considerMoving(_ connection: Connection) {
        placementCountdown &-= 1
        guard placementCountdown <= 0 else { return }
        placementCountdown = core.configuration.placementInterval
        guard !stopping, connection.isIdleBetweenRequests, let target = placementTarget(for: connection) else { return }
        move(connection, to: target)
    }

    /// The sibling loop `connection` belongs on, nil when it is where it belongs (or nobody knows).
    func placementTarget(for connection: Connection) -> EventLoop? {
        if let probe = core.configuration.placementProbe {
            guard let wanted = probe(connection.fd, index), wanted != index else { return nil }
            return siblings.first { $0.index == wanted }
        }
        let cpus = siblings.lazy.map { $0.cpu.load(ordering: .relaxed) }
        guard let i = EventLoop.sibling(forIncomingCPU: Socket.incomingCPU(connection.fd), ownCPU: cpu.load(ordering: .relaxed), siblingCPUs: cpus)
        else { return nil }
        return siblings[i]
    }

    /// Which of the siblings (by their last published CPU) should serve a connection whose packets arrive on
    /// `incomingCPU`: nil when it is unknown, when it is this loop's CPU, or when no sibling was seen on it.
    static func sibling<CPUs: Sequence<Int32>>(forIncomingCPU incomingCPU: Int32, ownCPU: Int32, siblingCPUs: CPUs) -> Int? {
        guard incomingCPU >= 0, incomingCPU != ownCPU else { return nil }
        for (i, cpu) in siblingCPUs.enumerated() where cpu == incomingCPU { return i }
        return nil
    }

    /// Hands an idle connection to `target`: out of this loop's epoll set and table, into the target's
    /// mailbox. The socket stays open; bytes the client sends meanwhile wait in the kernel, and the target
    /// reads them as soon as it adopts the socket. A target that is stopping refuses, and the connection
    /// stays here.
    func move(_ connection: Connection, to target: EventLoop) {
        let fd = connection.fd
        System.epollRemove(epfd, fd)
        // Out of the table before the target can see it: once queued, the target may close the socket and
        // the kernel reuse its number for a connection this loop accepts.
        connections[Int(fd)] = nil
        connectionCount -= 1
        let arrival = ArrivingConnection(fd: fd, id: connection.id, peer: connection.peer, requestIndex: connection.requestIndex)
        guard target.receive(arrival) else {
            connections[Int(fd)] = connection
            connectionCount += 1
            if !System.epollAdd(epfd, fd, connection.interest, connection.token) { connection.close() }
            return
        }
        connection.handedOver()
        counters.values.withLock { $0.moved += 1 }
    }

    /// Queues a connection moving to this loop (from another loop's thread); false once this loop was asked
    /// to stop.
    func receive(_ arrival: ArrivingConnection) -> Bool {
        let queued = mailbox.withLock { box in
            guard !box.stopRequested else { return false }
            box.arrivals.append(arrival)
            return true
        }
        if queued { wake() }
        return queued
    }
}

extension Connection {
    /// Between requests with nothing queued, read, parsed, held or streaming: it can change loops.
    var isIdleBetweenRequests: Bool {
        phase == .open && inFlight == nil && !hasPendingOutput && inbound.isEmpty && parser.isBetweenRequests
            && headStartedAt == 0 && stream == nil && !readPaused && !sawEndOfStream && !processing && registered
            && reservedBodyBytes == 0 && !clientAskedToClose && !lingerOnClose
    }

    /// This object is done: its socket now belongs to another loop's connection. Nothing may touch the socket
    /// through it any more (a closed phase makes every entry point return).
    func handedOver() {
        phase = .closed
        registered = false
    }
}
