import ClientHTTP
import Foundation

/// Listening to the environment's event stream while the app is in the foreground: a published version
/// reaches the app within about a second instead of at its next poll.
///
/// The stream only says "something changed"; the values still come from `refresh()`, with its validation,
/// cache and rules, so a hostile or broken stream can at worst cause refreshes, never install a value.
/// Polling (`refresh()` on launch and foreground) goes on as before: the listener adds to it.
extension FlagClient {
    /// Events within this window after the first give one refresh.
    static let eventCoalescing: Duration = .milliseconds(150)
    /// A stream silent this long is dead (the server sends a heartbeat every 25 s).
    static let streamSilence: Duration = .seconds(60)
    /// OFREP's default `inactivityDelaySec`: how long a backgrounded app keeps its stream.
    public static let defaultInactivityDelay: Duration = .seconds(120)

    /// Starts following the event stream (call when the app comes to the foreground). Idempotent; cancels a
    /// pending `stopListening(after:)`. Never delays launch values: it runs in a task of its own.
    public func startListening() {
        state.withLock { state in
            state.listenerStop?.cancel()
            state.listenerStop = nil
            guard state.listener == nil else { return }
            state.listener = Task.detached { [self] in await listen() }
        }
    }

    /// Stops following the stream `after` the given delay (OFREP's `inactivityDelaySec`, 120 s by default: an app
    /// that comes back sooner keeps its connection); `.zero` stops now.
    public func stopListening(after delay: Duration = FlagClient.defaultInactivityDelay) {
        let stop = Task.detached { [self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            let listener = state.withLock { state in
                defer { state.listener = nil; state.listenerStop = nil }
                return state.listener
            }
            listener?.cancel()
        }
        state.withLock { state in
            state.listenerStop?.cancel()
            state.listenerStop = stop
        }
    }

    /// Whether a listener is running.
    public var isListening: Bool { state.withLock { $0.listener != nil } }

    /// Connects, follows, reconnects with jittered exponential backoff (1 s doubling to 60 s, or the server's
    /// `retry:` if longer) until cancelled. `Last-Event-ID` carries the last version seen across reconnects.
    func listen() async {
        var options = configuration.transportOptions
        options.totalTimeout = Self.streamSilence
        let transport = configuration.transport.makeTransport(options: options)
        let session = Locked(ListenSession())
        var failures = 0
        while !Task.isCancelled {
            var request = ClientRequest(url: configuration.eventsURL, headers: [.accept: "text/event-stream"])
            let lastID = session.withLock { $0.parser.lastEventID }
            if !lastID.isEmpty { request.headers.set(name: .lastEventID, value: lastID) }
            if let token = configuration.readToken { request.headers.set(name: .authorization, value: "Bearer \(token)") }
            session.withLock { $0.receivedEvent = false }
            let status = try? await transport.stream(request) { [self] bytes in
                let (outputs, broken) = session.withLock { session -> ([SSEParser.Output], Bool) in
                    do {
                        return (try session.parser.feed(bytes), false)
                    } catch {
                        // A line or event past 64 KiB: drop the stream, start the next one with a fresh parser.
                        session.parser = SSEParser()
                        return ([], true)
                    }
                }
                for output in outputs { handle(output, session) }
                return !broken && !Task.isCancelled
            }
            if Task.isCancelled { return }
            let healthy = status == 200 && session.withLock { $0.receivedEvent || $0.parser.lastEventID != lastID }
            failures = healthy ? 0 : failures + 1
            let retry = session.withLock { $0.retry }
            try? await Task.sleep(for: Self.backoff(failures: failures, retry: retry))
        }
    }

    private func handle(_ output: SSEParser.Output, _ session: Locked<ListenSession>) {
        switch output {
        case .retry(let milliseconds):
            session.withLock { $0.retry = .milliseconds(min(milliseconds, 600_000)) }
        case .comment:
            break
        case .event(let event):
            // OFREP's sseEventData: act on refetchEvaluation, ignore unknown types (forward compatibility).
            guard event.data.contains("\"refetchEvaluation\"") else { return }
            session.withLock { $0.receivedEvent = true }
            scheduleEventRefresh()
        }
    }

    /// One refresh for a burst: the first event schedules it `eventCoalescing` later, the rest join it.
    func scheduleEventRefresh() {
        let first = state.withLock { state -> Bool in
            defer { state.eventRefreshPending = true }
            return !state.eventRefreshPending
        }
        guard first else { return }
        Task.detached { [self] in
            try? await Task.sleep(for: Self.eventCoalescing)
            state.withLock { $0.eventRefreshPending = false }
            await refresh(force: true)
        }
    }

    /// Jittered exponential backoff (full jitter on the upper half, so reconnecting apps spread out).
    static func backoff(failures: Int, retry: Duration) -> Duration {
        let base = failures == 0 ? 1.0 : min(60.0, pow(2.0, Double(min(failures, 6))))
        let seconds = max(base * Double.random(in: 0.5...1.0), Double(retry.components.seconds) + Double(retry.components.attoseconds) / 1e18)
        return .milliseconds(Int(seconds * 1000))
    }
}

/// What the listener keeps across one stream's callbacks and across reconnects.
struct ListenSession: Sendable {
    var parser = SSEParser()
    var retry: Duration = .zero
    var receivedEvent = false
}
