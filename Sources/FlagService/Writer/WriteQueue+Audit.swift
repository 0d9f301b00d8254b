import FlagStore

/// Audit lines the writer commits for others: refusals (`RouteAuditor`) and writes that changed nothing.
///
/// A refused request must cost no fsync of its own (a client sending refused writes in a loop would otherwise
/// make the disk the bottleneck), so its line waits in memory for the writer's next group commit
/// (`publish(batch:audit:)`), or, while no write comes, for a transaction of its own once refusals have
/// gathered for `auditGatherNanoseconds`: at most about 20 audit commits a second under any flood. Memory is
/// bounded: past `auditCapacity` waiting lines a line is dropped, counted (`flagserver_audit_dropped_total`)
/// and reported in one log line per commit (`event=audit_dropped`).
extension WriteQueue {
    /// Most lines waiting for a commit. Each is cut to its stored bounds (a few KB at most, ~300 bytes usually).
    static let auditCapacity = 4096
    /// How long lines wait for company while no write comes.
    static let auditGatherNanoseconds: UInt64 = 50_000_000
    /// As many waiting lines as this are written at once, without gathering longer.
    static let auditFlushCount = 512

    /// Queues `record` for the next commit. Never waits for the disk; drops (and counts) the line when
    /// `auditCapacity` lines are already waiting, and after `stop()` (nothing would write it).
    public func recordAudit(_ record: AuditRecord) {
        let line = record.bounded()
        let accepted = queue.withLock { queue in
            guard !queue.finished, queue.audit.count < Self.auditCapacity else {
                queue.auditDropped += 1
                return false
            }
            queue.audit.append(line)
            return true
        }
        guard accepted else {
            metrics.auditDropped.add(1, ordering: .relaxed)
            return
        }
        metrics.auditQueued.add(1, ordering: .relaxed)
        queue.signal()
    }

    /// Writes `lines` in a transaction of their own (nothing to publish came with them).
    func writeAudit(_ lines: [AuditRecord]) {
        guard !lines.isEmpty else { return }
        do {
            try store.appendAudit(lines)
        } catch {
            auditLost(lines.count, error)
        }
    }

    /// Counts and logs `count` lines whose commit failed: they are not retried (a full disk would make the
    /// writer spin), the log line says how many and why.
    func auditLost(_ count: Int, _ error: any Error) {
        guard count > 0 else { return }
        metrics.auditDropped.add(count, ordering: .relaxed)
        logger.log(.warning, "audit_write_failed", ["lines": "\(count)", "error": "\(error)"])
    }
}
