import FlagKit
import Foundation

/// Fetching the environment's document: `GET` with `If-None-Match`, validation, cache replacement, value swap.
extension FlagClient {
    /// Fetches the document unless the refresh schedule says to wait, and installs it if, and only if, it is a valid
    /// document of this environment no older than the one in use.
    ///
    /// `force` (pull to refresh) skips the minimum interval and the failure backoff, never a server's `Retry-After`.
    /// Concurrent calls share one fetch. Cancelling the calling task aborts the transfer. Never throws: every
    /// failure is an outcome, and leaves the values as they were.
    @discardableResult
    public func refresh(force: Bool = false) async -> RefreshOutcome {
        guard FlagCache.isValidEnvironment(configuration.environment) else {
            return .failed(.invalidConfiguration("environment \(configuration.environment.debugDescription) is not a plain name"))
        }
        let now = Date()
        enum Start { case skip(Date, RefreshWaitReason), join(Task<RefreshOutcome, Never>) }
        let start = state.withLock { state -> Start in
            if let running = state.inFlight { return .join(running) }
            if case .wait(let until, let reason) = state.schedule.decide(now: now, forced: force) { return .skip(until, reason) }
            state.schedule.recordAttempt(at: now)
            // The validator is derived from the document in use, never taken from a stored header (FlagEnvelope.entityTag).
            let etag = state.snapshot.envelope?.entityTag
            let task = Task { await self.fetch(etag: etag) }
            state.inFlight = task
            return .join(task)
        }
        switch start {
        case .skip(let until, let reason):
            return .skipped(until: until, reason: reason)
        case .join(let task):
            return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        }
    }

    /// One fetch and its bookkeeping: the schedule learns the result and the in-flight marker is cleared.
    ///
    /// A conditional request that is refused (a 4xx other than 429, or a request the transport will not send) is
    /// tried once more at once without `If-None-Match`: whatever an intermediary holds against the validator, it
    /// must never keep a later document (an unlock) from arriving.
    private func fetch(etag: String?) async -> RefreshOutcome {
        var (outcome, status, retryAfter) = await exchange(etag: etag)
        if etag != nil, Self.validatorMayBeTheProblem(outcome) {
            (outcome, status, retryAfter) = await exchange(etag: nil)
        }
        let finished = Date()
        state.withLock { state in
            state.inFlight = nil
            switch outcome {
            case .updated, .notModified:
                state.schedule.recordSuccess(at: finished)
            case .failed(.transport(let error)) where error.kind == .cancelled:
                break  // the app gave up, the server did nothing wrong: no backoff
            case .failed:
                state.schedule.recordFailure(at: finished, status: status, retryAfter: retryAfter)
            case .skipped:
                break
            }
        }
        return outcome
    }

    /// One `GET` of the document, conditional on `etag` when given.
    private func exchange(etag: String?) async -> (RefreshOutcome, status: Int?, retryAfter: String?) {
        // gzip: the document is about a third as many bytes on the wire (docs/client.md); both transports decode it,
        // and the decoded envelope's document is verified against its contentHash as any other (FlagEnvelope).
        var request = ClientRequest(url: configuration.documentURL,
                                    headers: [.accept: "application/json", .acceptEncoding: "gzip"])
        if let etag { request.headers.set(name: .ifNoneMatch, value: etag) }
        if let token = configuration.readToken { request.headers.set(name: .authorization, value: "Bearer \(token)") }
        do {
            let response = try await transport.send(request)
            return (await handle(response, sentETag: etag), response.status, response.headers[.retryAfter])
        } catch {
            return (.failed(.transport(error)), nil, nil)
        }
    }

    /// Whether a failed conditional fetch may have failed because of its validator: a client error (400, 412,
    /// 431, ...) but not one about who asks or what (401, 403, 404) nor `429` (which asks to wait, and is
    /// honoured), or a request refused before it was sent.
    static func validatorMayBeTheProblem(_ outcome: RefreshOutcome) -> Bool {
        switch outcome {
        case .failed(.httpStatus(let status, _, _)): return (400...499).contains(status) && ![401, 403, 404, 429].contains(status)
        case .failed(.transport(let error)): return error.kind == .invalidRequest
        default: return false
        }
    }

    /// What a complete response means for the values.
    private func handle(_ response: ClientResponse, sentETag: String?) async -> RefreshOutcome {
        switch response.status {
        case 200:
            return await install(response)
        case 304:
            guard sentETag != nil else { return .failed(.unexpectedNotModified) }
            return await confirm()
        default:
            return .failed(.httpStatus(response.status, retryAfter: response.headers[.retryAfter],
                                       body: Self.logExcerpt(response.body)))
        }
    }

    /// A `200`: validate completely, refuse another environment or an older version, then write the cache and swap.
    private func install(_ response: ClientResponse) async -> RefreshOutcome {
        let envelope: FlagEnvelope
        do {
            envelope = try FlagEnvelope.decode(response.body)
        } catch {
            return .failed(.invalidEnvelope(error))
        }
        let environment = configuration.environment
        guard envelope.environment == environment else {
            return .failed(.environmentMismatch(expected: environment, received: envelope.environment))
        }
        let current = snapshot
        if let inUse = current.envelope, envelope.isOlder(than: inUse) {
            return .failed(.olderVersion(received: envelope.version, current: inUse.version))
        }
        let now = Date()
        // The cache keeps the tag of the envelope itself; the response's ETag header is not trusted as a validator.
        let entry = FlagCacheEntry(environment: environment, etag: envelope.entityTag, version: envelope.version,
                                   fetchedAt: now, document: response.body)
        let cacheError = await store(entry)
        // Evaluated outside the lock; if the app's context changed meanwhile, evaluated again for the new one.
        var fresh = FlagSnapshot(envelope: envelope, safeDefaults: configuration.safeDefaults,
                                 source: .server(version: envelope.version, fetchedAt: now), context: current.context)
        let previous = state.withLock { state -> FlagSnapshot in
            let previous = state.snapshot
            if previous.context != fresh.context { fresh = fresh.evaluated(for: previous.context) }
            state.snapshot = fresh
            state.entry = entry
            return previous
        }
        let changed = previous.envelope?.version != envelope.version || previous.envelope?.contentHash != envelope.contentHash
        if changed { notify(fresh) }
        return .updated(version: envelope.version, previousVersion: previous.envelope?.version, cacheError: cacheError)
    }

    /// A `304`: the document in use is current. Its cache entry gets the new confirmation time, the source says "server".
    private func confirm() async -> RefreshOutcome {
        let now = Date()
        let confirmed = state.withLock { state -> (FlagCacheEntry, Int)? in
            guard var entry = state.entry, let version = state.snapshot.envelope?.version else { return nil }
            entry.fetchedAt = now
            state.entry = entry
            state.snapshot = state.snapshot.withSource(.server(version: version, fetchedAt: now))
            return (entry, version)
        }
        guard let (entry, version) = confirmed else { return .failed(.unexpectedNotModified) }
        return .notModified(version: version, cacheError: await store(entry))
    }

    /// Writes the cache on a serial queue of its own: `fsync` of the file and the directory takes milliseconds,
    /// which must not hold a thread of Swift's cooperative pool. Serial, so writes land in the order made.
    private func store(_ entry: FlagCacheEntry) async -> FlagCacheError? {
        let cache = self.cache
        return await withCheckedContinuation { (continuation: CheckedContinuation<FlagCacheError?, Never>) in
            Self.diskQueue.async {
                do throws(FlagCacheError) {
                    try cache.store(entry)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
    }

    /// The queue of every cache write (serial queues are overcommitted by libdispatch: never starved).
    private static let diskQueue = DispatchQueue(label: "FlagClient.cache")

    /// The start of an error body for a log line: at most 200 bytes, control characters replaced.
    static func logExcerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
            + (body.count > 200 ? "…" : "")
    }
}
