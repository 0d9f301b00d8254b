import ClientHTTP
import FlagKit
import FlagStore
import Foundation

/// The dispatcher's thread and its attempts.
extension WebhookDispatcher {
    /// The longest sleep while deliveries are pending: a changed wall clock (deliveries are due by it) or a
    /// store that failed once is looked at again within a second.
    static let maximumSleepNanoseconds: UInt64 = 1_000_000_000

    /// Takes events, hands them to the store, starts due attempts, sleeps until the next is due (or forever
    /// when none is pending) or something changes.
    func run() {
        var deadline: UInt64?
        while true {
            let ready = { (state: inout State) in !state.events.isEmpty || state.stopping || state.wake }
            let take = { (state: inout State) -> (events: [Event], dropped: Int, stopping: Bool) in
                defer { (state.events, state.dropped, state.wake) = ([], 0, false) }
                return (state.events, state.dropped, state.stopping)
            }
            let step = if let deadline { state.wait(until: ready, deadline: deadline) { state, _ in take(&state) } }
                else { state.wait(until: ready, then: take) }
            if step.dropped > 0 {
                logger.log(.warning, "webhook_events_dropped", ["events": "\(step.dropped)", "capacity": "\(options.queueCapacity)"])
            }
            enqueue(step.events)
            if step.stopping {
                finish()
                return
            }
            guard leadership.isLeading else {
                // Another node sends; this one is woken when it takes the lease (`reloadReceivers`).
                deadline = nil
                continue
            }
            startDueAttempts()
            deadline = nextDeadline()
        }
    }

    /// Builds each event's body and id and writes their deliveries in one transaction.
    func enqueue(_ events: [Event]) {
        guard !events.isEmpty else { return }
        let stored = events.map { event in
            let id = WebhookEvent.makeID(atMilliseconds: event.atMilliseconds)
            return WebhookEvent(id: id, type: event.type, environment: event.environment, payload: Self.payload(id: id, event),
                                createdAtMilliseconds: event.atMilliseconds)
        }
        do {
            try store.enqueueWebhookEvents(stored)
            metrics.webhookEvents.add(stored.count, ordering: .relaxed)
        } catch {
            metrics.webhookEventsDropped.add(stored.count, ordering: .relaxed)
            logger.log(.warning, "webhook_enqueue_failed", ["events": "\(stored.count)", "error": "\(error)"])
        }
    }

    /// Starts an attempt for every due delivery not in flight, up to `maximumInFlight` at once.
    func startDueAttempts() {
        let busy = state.withLock { $0.inFlight }
        let free = options.maximumInFlight - busy.count
        guard free > 0 else { return }
        let due: [WebhookDelivery]
        do {
            due = try store.pendingWebhookDeliveries(dueBy: ServiceMetrics.wallMilliseconds(), limit: busy.count + free)
        } catch {
            logger.log(.warning, "webhook_read_failed", ["error": "\(error)"])
            return
        }
        var endpoints: [Int64: WebhookEndpoint] = [:]
        for delivery in due.filter({ !busy.contains($0.id) }).prefix(free) {
            do {
                if endpoints[delivery.webhookID] == nil { endpoints[delivery.webhookID] = try store.webhookEndpoint(id: delivery.webhookID) }
            } catch {
                logger.log(.warning, "webhook_read_failed", ["webhook": "\(delivery.webhookID)", "error": "\(error)"])
                continue
            }
            // A webhook deleted meanwhile: its pending deliveries were failed with the deletion.
            guard let endpoint = endpoints[delivery.webhookID], endpoint.record.isActive else { continue }
            let admitted = state.withLock { $0.stopping ? false : $0.inFlight.insert(delivery.id).inserted }
            guard admitted else { continue }
            let task = Task { [self] in await attempt(delivery, endpoint) }
            // The attempt may already be over (and have left `inFlight`): then its task is not kept.
            state.withLock { state in if state.inFlight.contains(delivery.id) { state.tasks[delivery.id] = task } }
        }
    }

    /// One signed POST of `delivery`, then its outcome in the delivery log.
    func attempt(_ delivery: WebhookDelivery, _ endpoint: WebhookEndpoint) async {
        let number = delivery.attempts + 1
        let started = ServiceMetrics.wallMilliseconds()
        let clock = ServiceMetrics.monotonicNanoseconds()
        var status: Int?
        var failure: String?
        var refused = false
        // A request that can never be sent (a URL the client cannot parse or refuses) is not retried.
        var permanent = false
        let destination = URL(string: endpoint.record.url) == nil ? nil : await decide(endpoint.record.url)
        if case .refused(let reason)? = destination {
            // Retried like any failure: a name that resolves inside now may be a rebinding that ends, and each
            // refusal is recorded (`docs/operations.md`, "Webhook destinations").
            failure = "refused: " + reason
            refused = true
            metrics.webhookRefused.add(1, ordering: .relaxed)
            logger.log(.warning, "webhook_refused", ["webhook": "\(delivery.webhookID)", "delivery": "\(delivery.id)",
                                                     "url": endpoint.record.url, "reason": reason])
        } else if case .unresolved(let reason)? = destination {
            failure = reason
        } else if let url = URL(string: endpoint.record.url), case .connect(let addresses)? = destination {
            var headers = ClientHeaders()
            headers.add(name: ClientHeaderName.contentType.rawValue, value: "application/json")
            headers.add(name: ClientHeaderName.userAgent.rawValue, value: "flagserver-webhooks/1")
            headers.add(name: APIHeader.webhookID, value: delivery.eventID)
            headers.add(name: APIHeader.webhookEvent, value: delivery.eventType)
            headers.add(name: APIHeader.webhookAttempt, value: String(number))
            headers.add(name: APIHeader.webhookSignature,
                        value: WebhookSignature.header(secret: endpoint.secret, timestamp: started / 1000, body: delivery.payload))
            do {
                // One checked address, a different one on each attempt when the name has several (the connection
                // never falls back to an address of its own lookup).
                let address = addresses[(number - 1) % addresses.count]
                let response = try await transport.send(ClientRequest(method: .post, url: url, headers: headers, body: Data(delivery.payload),
                                                                      connectAddress: address.description))
                status = response.status
                failure = Self.failure(status: response.status)
            } catch {
                failure = "\(error.kind): \(error.message)"
                permanent = error.kind == .invalidRequest
            }
        } else {
            failure = "not a URL the client can send to"
            permanent = true
        }
        let elapsed = Int((ServiceMetrics.monotonicNanoseconds() - clock) / 1_000_000)
        let outcome = permanent ? .failed : options.retry.outcome(afterAttempt: number, delivered: failure == nil,
                                                                   now: ServiceMetrics.wallMilliseconds(), jitter: Double.random(in: 0..<1))
        record(delivery, WebhookAttempt(number: number, atMilliseconds: started, responseStatus: status, error: failure,
                                        durationMilliseconds: elapsed, refused: refused), outcome, url: endpoint.record.url)
    }

    /// `options.destinations`' decision on `url`, on a thread of its own: a lookup blocks (up to the policy's
    /// `lookupTimeout`), which must hold neither this dispatcher's thread nor one of the cooperative pool's.
    func decide(_ url: String) async -> WebhookDestinationPolicy.Decision {
        let policy = options.destinations
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: policy.decide(url)) }
            thread.name = "flagserver-webhook-resolve"
            thread.start()
        }
    }

    /// Why a status is not a delivery, or nil for 2xx. Redirects are not followed: the receiver must answer itself.
    static func failure(status: Int) -> String? {
        switch status {
        case 200..<300: nil
        case 300..<400: "HTTP \(status): redirects are not followed"
        default: "HTTP \(status)"
        }
    }

    /// Writes the attempt and its outcome, unless the dispatcher is stopping (then the delivery stays pending
    /// and the attempt is made again after a restart: at least once, and receivers de-duplicate by the id).
    private func record(_ delivery: WebhookDelivery, _ attempt: WebhookAttempt, _ outcome: WebhookAttemptOutcome, url: String) {
        let proceed = state.withLock { state in
            guard !state.stopping else { return false }
            state.recording += 1
            return true
        }
        if proceed {
            do {
                try store.recordWebhookAttempt(deliveryID: delivery.id, attempt, outcome: outcome)
                count(outcome, delivery, attempt, url: url)
            } catch {
                logger.log(.warning, "webhook_record_failed", ["delivery": "\(delivery.id)", "error": "\(error)"])
            }
        }
        state.withLock { state in
            if proceed { state.recording -= 1 }
            state.inFlight.remove(delivery.id)
            state.tasks[delivery.id] = nil
            state.wake = true
        }
        state.broadcast()
    }

    private func count(_ outcome: WebhookAttemptOutcome, _ delivery: WebhookDelivery, _ attempt: WebhookAttempt, url: String) {
        switch outcome {
        case .delivered:
            metrics.webhookDelivered.add(1, ordering: .relaxed)
        case .retry:
            metrics.webhookRetried.add(1, ordering: .relaxed)
        case .failed:
            metrics.webhookFailed.add(1, ordering: .relaxed)
            logger.log(.warning, "webhook_failed", ["webhook": "\(delivery.webhookID)", "delivery": "\(delivery.id)",
                                                    "event": delivery.eventID, "url": url, "attempts": "\(attempt.number)",
                                                    "error": attempt.error ?? ""])
        }
    }

    /// When to look again: at the next due time (at most a second away), never while nothing is pending.
    private func nextDeadline() -> UInt64? {
        let next: Int64?
        do {
            next = try store.nextWebhookAttemptTime()
        } catch {
            logger.log(.warning, "webhook_read_failed", ["error": "\(error)"])
            return ServiceMetrics.monotonicNanoseconds() + Self.maximumSleepNanoseconds
        }
        guard let next else { return nil }
        let wait = UInt64(clamping: max(0, next - ServiceMetrics.wallMilliseconds())) &* 1_000_000
        // Due already: every due delivery is in flight (their end wakes the thread) or the slots are full.
        return ServiceMetrics.monotonicNanoseconds() + (wait == 0 ? Self.maximumSleepNanoseconds : min(wait, Self.maximumSleepNanoseconds))
    }

    /// Cancels the attempts in flight and waits (at most two seconds) for those writing their outcome.
    private func finish() {
        let tasks = state.withLock { Array($0.tasks.values) }
        for task in tasks { task.cancel() }
        state.wait(until: { $0.recording == 0 }, deadline: ServiceMetrics.monotonicNanoseconds() + 2_000_000_000) { state, _ in
            state.finished = true
        }
        state.broadcast()
    }
}
