import Glibc

/// A `PThreadMutex` with a condition variable: for a thread that sleeps until another changes the guarded
/// state (the writer thread waiting for jobs, `HTTPServer.waitUntilStopped()`), without polling.
///
/// Why not a poll loop: a thread that wakes every few milliseconds to look at a flag preempts whatever
/// runs on its core (a woken sleeper goes first), and on a busy machine the event loop it pushed aside
/// can then wait a whole scheduler slice behind other work. Why not `NSCondition`: the server modules have
/// one lock type, and this is that lock plus a `pthread_cond_t`.
public final class PThreadCondition<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock: PThreadMutex<Value>
    // A heap cell (`PThreadCell`).
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A lock around `value` with a condition to wait on.
    public init(_ value: Value) {
        lock = PThreadMutex(value)
        condition = PThreadCell.allocate(pthread_cond_t())
        // The monotonic clock for timed waits, so a wall-clock step (NTP, an operator) neither cuts a wait
        // short nor stretches it. These attribute calls fail only for invalid arguments, which these are not.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        PThreadCell.free(condition)
    }

    /// Runs `body` with the value while holding the lock (no waiting). Inlinable for `PThreadMutex.withLock`'s reason.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock(body)
    }

    /// Takes the lock, sleeps (with the lock released) until `ready` holds, then runs `body` with the lock
    /// still held. `ready` is checked again after every wake-up: condition variables may wake spuriously,
    /// and another thread may have changed the value between the signal and this thread's turn.
    public func wait<Result, Failure: Error>(until ready: (inout Value) -> Bool,
                                              then body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(lock.mutex)
        defer { pthread_mutex_unlock(lock.mutex) }
        while !ready(&lock.value) { pthread_cond_wait(condition, lock.mutex) }
        return try body(&lock.value)
    }

    /// Like `wait(until:then:)`, but sleeps at most until `deadline` (nanoseconds of `CLOCK_MONOTONIC`, the clock of
    /// `ServiceMetrics.monotonicNanoseconds()` and of request times); `body` then runs with the lock held whether or not `ready` holds, and is told
    /// which (false: the time ran out). For a thread with work of its own at a known time: the webhook
    /// dispatcher sleeps until its next retry is due or an event arrives, the writer lets refusals gather briefly.
    public func wait<Result, Failure: Error>(until ready: (inout Value) -> Bool, deadline: UInt64,
                                              then body: (inout Value, Bool) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(lock.mutex)
        defer { pthread_mutex_unlock(lock.mutex) }
        var time = timespec(tv_sec: Int(clamping: deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while !ready(&lock.value) {
            // ETIMEDOUT ends the wait; EINTR and spurious wake-ups check `ready` again.
            if pthread_cond_timedwait(condition, lock.mutex, &time) == ETIMEDOUT {
                return try body(&lock.value, ready(&lock.value))
            }
        }
        return try body(&lock.value, true)
    }

    /// Wakes one waiter (call after changing the value under the lock).
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
