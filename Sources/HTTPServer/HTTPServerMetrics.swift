import ServerLock
import Synchronization

/// A snapshot of the server's counters, for a Prometheus `/metrics` page.
public struct HTTPServerMetrics: Sendable, Equatable {
    /// Connections open now.
    public var connectionsOpen: Int = 0
    /// Connections accepted since start.
    public var connectionsAccepted: Int = 0
    /// Connections refused with 503 because `maxConnections` was reached.
    public var connectionsRejected: Int = 0
    /// Connections closed by a header, body, idle or write timeout.
    public var connectionsTimedOut: Int = 0
    /// Idle keep-alive connections moved to the loop on the CPU their requests arrive on
    /// (`HTTPServerConfiguration.followsIncomingCPU`).
    public var connectionsMoved: Int = 0
    /// Responses sent, by status code.
    public var responsesByStatus: [Int: Int] = [:]
    /// Responses sent in total.
    public var responsesTotal: Int { responsesByStatus.values.reduce(0, +) }
    /// Body bytes sent.
    public var bodyBytesSent: Int = 0
    /// Streaming responses open now.
    public var streamsOpen: Int = 0
    /// Streams closed because their client stopped reading and the queue passed its limit.
    public var streamsDropped: Int = 0

    /// Zero counters.
    public init() {}
}

/// One loop's counters. The loop is the only writer of the response counts, which are atomics it updates with a
/// relaxed load and store (no lock, no read-modify-write: nobody else writes them); a snapshot reads them from
/// any thread. A lock per response, even uncontended, would cost more than the response's bookkeeping. The connection
/// counts, written seldom, keep the lock.
final class LoopCounters: @unchecked Sendable {
    struct Values {
        var accepted = 0
        var rejected = 0
        var timedOut = 0
        var moved = 0
    }

    let values = PThreadMutex(Values())
    /// Responses per status code (0-599), then body bytes sent.
    private let counts: UnsafeMutablePointer<Atomic<Int>>
    private static let statuses = 600
    private static let slots = statuses + 1

    init() {
        counts = .allocate(capacity: LoopCounters.slots)
        for i in 0..<LoopCounters.slots { (counts + i).initialize(to: Atomic(0)) }
    }

    deinit {
        counts.deinitialize(count: LoopCounters.slots)
        counts.deallocate()
    }

    /// Counts one response (on the loop thread only).
    func recordResponse(status: Int, bodyBytes: Int) {
        let slot = status >= 0 && status < LoopCounters.statuses ? status : 0
        counts[slot].store(counts[slot].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        let bytes = LoopCounters.statuses
        counts[bytes].store(counts[bytes].load(ordering: .relaxed) &+ bodyBytes, ordering: .relaxed)
    }

    func add(into metrics: inout HTTPServerMetrics) {
        values.withLock { v in
            metrics.connectionsAccepted += v.accepted
            metrics.connectionsRejected += v.rejected
            metrics.connectionsTimedOut += v.timedOut
            metrics.connectionsMoved += v.moved
        }
        metrics.bodyBytesSent += counts[LoopCounters.statuses].load(ordering: .relaxed)
        for code in 0..<LoopCounters.statuses {
            let count = counts[code].load(ordering: .relaxed)
            if count > 0 { metrics.responsesByStatus[code, default: 0] += count }
        }
    }
}
