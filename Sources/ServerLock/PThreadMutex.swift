import Glibc

/// A value guarded by a `pthread_mutex_t`: the one lock type of the server modules (HTTPServer, FlagStore,
/// FlagService, FlagOFREP), for state touched on every request and for everything else.
///
/// Why not `Synchronization.Mutex`: on Linux each of its `lock()` calls makes a `gettid` system call to
/// record the owner (strace shows one per lock), and a GET took three such locks, each costing more
/// than the work it protects. glibc's default mutex locks and unlocks in user space unless contended,
/// when it waits in the kernel like any futex. Why not `NSLock`: the same glibc mutex behind an
/// Objective-C-style object, and FlagStore would be the only module to lock differently.
///
/// Where a thread must sleep until the guarded state changes, `PThreadCondition` pairs one of these with
/// a condition variable.
public final class PThreadMutex<Value: Sendable>: @unchecked Sendable {
    // A heap cell (`PThreadCell`). Not private: `PThreadCondition` waits on it, and `withLock`
    // is inlined into the modules that lock (below).
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only touched inside `withLock`, whose lock already excludes a second access: a nested `withLock` on
    // the same mutex would deadlock before it could overlap. The dynamic check is skipped.
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        mutex = PThreadCell.allocate(pthread_mutex_t())
        // Default attributes cannot fail to initialize (EINVAL/ENOMEM are for attributes we do not pass).
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        PThreadCell.free(mutex)
    }

    /// Runs `body` with the value while holding the lock; the lock is released when `body` returns or throws.
    ///
    /// `@inlinable` and `public` (not `package`): the lock lives in its own module, and a generic method
    /// called across modules runs unspecialized (type metadata, a closure context, an indirect call, the
    /// `defer` outlined) unless its body is inlined into the caller. Swift 6.3 inlines a `public @inlinable`
    /// body across modules but not a `package` one (checked with a two-module build and objdump). Inlined,
    /// a lock costs the two glibc calls and the body.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
