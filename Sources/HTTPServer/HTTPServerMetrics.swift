import ServerLock

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

/// One loop's counters. The loop is the only writer; the lock is uncontended except while a snapshot is taken.
final class LoopCounters: Sendable {
    struct Values {
        var accepted = 0
        var rejected = 0
        var timedOut = 0
        var bodyBytes = 0
        var byStatus = [Int](repeating: 0, count: 600)
    }

    let values = PThreadMutex(Values())

    func recordResponse(status: Int, bodyBytes: Int) {
        values.withLock { v in
            if status >= 0 && status < 600 { v.byStatus[status] += 1 }
            v.bodyBytes += bodyBytes
        }
    }

    func add(into metrics: inout HTTPServerMetrics) {
        values.withLock { v in
            metrics.connectionsAccepted += v.accepted
            metrics.connectionsRejected += v.rejected
            metrics.connectionsTimedOut += v.timedOut
            metrics.bodyBytesSent += v.bodyBytes
            for (code, count) in v.byStatus.enumerated() where count > 0 {
                metrics.responsesByStatus[code, default: 0] += count
            }
        }
    }
}
