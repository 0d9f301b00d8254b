import FlagKit
import HTTPServer
import ServerLock

/// The subscribers of every environment's event stream (`GET /v1/environments/{env}/events`). The writer
/// thread publishes each new version after it is committed and its snapshot installed; the event bytes are
/// built once per version and handed to every subscriber's stream, which queues them on its own event loop.
///
/// The events are Server-Sent Events (WHATWG HTML §9.2) in OFREP's shape (`sseEvent`, `sseEventData`): a
/// `refetchEvaluation` with the document's ETag and the version's publication time, `id:` the version.
public final class EventHub: Sendable {
    private let subscribers = PThreadMutex([String: [ObjectIdentifier: HTTPStream]]())
    /// The reconnection delay suggested to clients (`retry:`, milliseconds).
    public let retryMilliseconds: Int

    /// A hub with no subscribers.
    public init(retryMilliseconds: Int = 3000) { self.retryMilliseconds = retryMilliseconds }

    /// An SSE comment (a line starting with a colon is ignored by clients, §9.2.6): the heartbeat.
    public static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

    /// The first bytes of every stream: a comment (so proxies and clients see the body start) and the
    /// `retry:` hint in a block of its own, which sets the reconnection time without dispatching an event.
    public var preamble: [UInt8] { Array(": events\nretry: \(retryMilliseconds)\n\n".utf8) }

    /// Adds `stream` to `environment`'s subscribers. Streams that ended are pruned here and at publish.
    public func subscribe(_ stream: HTTPStream, environment: String) {
        subscribers.withLock { all in
            var list = all[environment] ?? [:]
            // Ends are noticed lazily: prune when the table doubles past a power of two, so a churn of
            // short-lived subscribers without publishes costs amortized O(1) and bounded memory.
            if list.count >= 64 && list.count & (list.count - 1) == 0 { list = list.filter { !$0.value.isClosed } }
            list[ObjectIdentifier(stream)] = stream
            all[environment] = list
        }
    }

    /// Open subscribers of `environment` (closed ones not yet pruned are not counted).
    public func subscriberCount(_ environment: String) -> Int {
        subscribers.withLock { $0[environment]?.values.filter { !$0.isClosed }.count ?? 0 }
    }

    /// Sends `snapshot`'s event to every subscriber of its environment. Called on the writer thread; the
    /// sends only post to the loops' mailboxes, so this takes microseconds per subscriber and never blocks.
    public func publish(_ snapshot: Snapshot) {
        let streams: [HTTPStream] = subscribers.withLock { all in
            guard var list = all[snapshot.environment] else { return [] }
            list = list.filter { !$0.value.isClosed }
            all[snapshot.environment] = list.isEmpty ? nil : list
            return Array(list.values)
        }
        guard !streams.isEmpty else { return }
        HTTPStream.send(Self.event(snapshot), to: streams)
    }

    /// One event: `id:` the version (clients send it back as `Last-Event-ID`, §9.2.4), `data:` the
    /// `refetchEvaluation` JSON on one line (canonical JSON has no newline, so one `data:` line suffices).
    public static func event(_ snapshot: Snapshot) -> [UInt8] {
        let data = JSONValue.object([
            "type": .string("refetchEvaluation"),
            "etag": .string(snapshot.etag),
            "lastModified": .integer(snapshot.record.createdAtMilliseconds / 1000),
        ]).canonicalBytes
        var bytes = Array("id: \(snapshot.version)\ndata: ".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }
}
