/// Being told when values change: an `AsyncStream` of snapshots, or a callback.
///
/// Observers hear about every new document installed by a `200` (and about ``FlagClient/updateApp(_:)``), not about
/// `304`s or failures, which change no value. Callbacks run on the thread that installed the values, outside the
/// client's lock, so they may read the client.
extension FlagClient {
    /// A stream that starts with the current snapshot and then yields each new one. Only the newest undelivered
    /// snapshot is buffered: a slow consumer skips intermediate values, never sees stale ones last.
    public func updates() -> AsyncStream<FlagSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: FlagSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let (id, current) = state.withLock { state -> (UInt64, FlagSnapshot) in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = { continuation.yield($0) }
            return (id, state.snapshot)
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    /// Calls `handler` with each new snapshot until the returned token is cancelled or released.
    public func onChange(_ handler: @escaping @Sendable (FlagSnapshot) -> Void) -> FlagObservation {
        let id = state.withLock { state -> UInt64 in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = handler
            return id
        }
        return FlagObservation { [weak self] in self?.removeObserver(id) }
    }

    /// Forgets an observer.
    func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Hands `snapshot` to every observer, outside the lock.
    func notify(_ snapshot: FlagSnapshot) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(snapshot) }
    }
}

/// A registration made with ``FlagClient/onChange(_:)``. Keep it as long as you want to be called; releasing it or
/// calling ``cancel()`` ends the registration.
public final class FlagObservation: Sendable {
    private let cancellation: Locked<(@Sendable () -> Void)?>

    /// Wraps the action that ends the registration.
    init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = Locked(cancel)
    }

    /// Ends the registration; later calls do nothing.
    public func cancel() {
        let action = cancellation.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
