#ifndef CEPOLL_SHIM_H
#define CEPOLL_SHIM_H

// Wrappers for what Swift cannot use directly: `struct epoll_event` is packed on x86_64 (its layout is
// kept on the C side), the SOCK_/EFD_/EPOLL flags are macros or anonymous enums, and accept4/eventfd
// flags must be combined in C to stay portable across glibc versions.

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>

static const uint32_t CEPOLL_IN = EPOLLIN;
static const uint32_t CEPOLL_OUT = EPOLLOUT;
static const uint32_t CEPOLL_ERR = EPOLLERR;
static const uint32_t CEPOLL_HUP = EPOLLHUP;
static const uint32_t CEPOLL_RDHUP = EPOLLRDHUP;
static const uint32_t CEPOLL_EXCLUSIVE = EPOLLEXCLUSIVE;

/// Size of one `struct epoll_event`, so Swift can allocate arrays of them without knowing the packed layout.
static inline size_t cepoll_event_size(void) { return sizeof(struct epoll_event); }

/// A second descriptor for the same socket, close-on-exec (fcntl is variadic, which Swift cannot call).
static inline int cepoll_dup_cloexec(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

static inline int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static inline int cepoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

static inline int cepoll_add(int epfd, int fd, uint32_t events, uint64_t data) {
    return cepoll_ctl(epfd, EPOLL_CTL_ADD, fd, events, data);
}

static inline int cepoll_mod(int epfd, int fd, uint32_t events, uint64_t data) {
    return cepoll_ctl(epfd, EPOLL_CTL_MOD, fd, events, data);
}

static inline int cepoll_del(int epfd, int fd) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &ev);
}

static inline int cepoll_wait(int epfd, void *events, int maxevents, int timeout_ms) {
    return epoll_wait(epfd, (struct epoll_event *)events, maxevents, timeout_ms);
}

static inline uint64_t cepoll_event_data(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].data.u64;
}

static inline uint32_t cepoll_event_flags(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].events;
}

static inline int cepoll_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// A non-blocking, close-on-exec TCP socket.
static inline int cepoll_tcp_socket(int family) {
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

// The per-request calls (accept4, read, send, close) go through syscall(2) instead of their glibc
// wrappers: those are thread-cancellation points and switch asynchronous cancellation on and off around
// every call, 1-2% of a request's CPU. The server never cancels threads, so it skips that.

/// accept4 with the accepted socket already non-blocking and close-on-exec.
static inline int cepoll_accept(int fd, struct sockaddr_storage *addr, socklen_t *len) {
    return (int)syscall(SYS_accept4, fd, (struct sockaddr *)addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// read(2).
static inline ssize_t cepoll_read(int fd, void *buf, size_t len) {
    return (ssize_t)syscall(SYS_read, fd, buf, len);
}

/// close(2); EINTR is not retried (on Linux the descriptor is released anyway).
static inline int cepoll_close(int fd) {
    return (int)syscall(SYS_close, fd);
}

static inline int cepoll_set_int_option(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof value);
}

static inline ssize_t cepoll_send(int fd, const void *buf, size_t len) {
    return (ssize_t)syscall(SYS_sendto, fd, buf, len, MSG_NOSIGNAL, NULL, 0);
}

/// send with MSG_MORE: the kernel holds the tail segment back, so a close() right after tacks the FIN
/// onto it (tcp_send_fin) and the response and the FIN leave as one segment instead of two.
static inline ssize_t cepoll_send_more(int fd, const void *buf, size_t len) {
    return (ssize_t)syscall(SYS_sendto, fd, buf, len, MSG_NOSIGNAL | MSG_MORE, NULL, 0);
}

static inline int cepoll_errno(void) { return errno; }

/// Monotonic clock in nanoseconds (vDSO, no syscall).
static inline uint64_t cepoll_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/// Wall-clock seconds since the epoch (for the Date header).
static inline int64_t cepoll_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    return (int64_t)ts.tv_sec;
}

/// Identity of the calling thread, comparable with `==` (pthread_t is an integer on Linux/glibc).
static inline uint64_t cepoll_thread_id(void) { return (uint64_t)pthread_self(); }

/// The CPU the calling thread runs on, -1 if unknown. glibc reads it from the thread's rseq area (or the
/// vDSO): no system call. Declared here because <sched.h> declares it only under _GNU_SOURCE.
int sched_getcpu(void);
static inline int32_t cepoll_current_cpu(void) { return sched_getcpu(); }

/// The CPU whose network stack handled the socket's last incoming packet (`SO_INCOMING_CPU`, Linux 3.19),
/// -1 if unknown. Over loopback it is the CPU the sending thread ran on; from a NIC, the CPU of its
/// receive queue's interrupt.
static inline int32_t cepoll_incoming_cpu(int fd) {
    int cpu = -1;
    socklen_t length = sizeof cpu;
    if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &length) != 0) return -1;
    return cpu;
}

#endif
