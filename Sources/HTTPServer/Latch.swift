import Glibc

/// A one-way gate on a pthread condition variable: `wait()` blocks until `open()` has been called, and
/// returns at once ever after.
///
/// Why not a poll loop: a thread that wakes every few milliseconds to look at a flag preempts whatever
/// runs on its core (a woken sleeper goes first), and on a busy machine the event loop it pushed aside
/// can then wait a whole scheduler slice behind other work: a latency spike for every connection on it.
final class Latch: @unchecked Sendable {
    // Heap cells: pthread objects must not move once initialized.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var isOpen = false

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Default attributes: these cannot fail.
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        mutex.deinitialize(count: 1)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Opens the gate and wakes every waiter.
    func open() {
        pthread_mutex_lock(mutex)
        isOpen = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until the gate is open.
    func wait() {
        pthread_mutex_lock(mutex)
        // A loop: condition variables may wake spuriously.
        while !isOpen { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Whether `open()` has been called.
    var opened: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return isOpen
    }
}
