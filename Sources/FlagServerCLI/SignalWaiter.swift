import Glibc

/// SIGTERM and SIGINT without a signal handler: both are blocked in every thread (the mask is inherited,
/// so this must run before any thread is created) and the main thread collects them with `sigwait(3)`,
/// where any work is safe.
public enum SignalWaiter {
    /// Blocks SIGTERM and SIGINT for this thread and every thread it creates later; ignores SIGPIPE
    /// (a client that disconnects must not kill the server).
    public static func blockTerminationSignals() {
        var set = terminationSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Waits for SIGTERM or SIGINT; returns its number.
    static func wait() -> Int32 {
        var set = terminationSet()
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    private static func terminationSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}
