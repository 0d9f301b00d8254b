// Load generator for Benchmarks/events-fanout.sh and postgres-cluster.sh: N event-stream subscribers on one
// epoll loop, then flips, timing each subscriber's event from the PUT's answer. Run by the scripts; never in CI.
//
//   sse-fanout PORT ENV TOKEN N FLIPS [SUBSCRIBER_PORTS]
//
// PORT takes the PUTs. SUBSCRIBER_PORTS (comma-separated, default PORT) spreads the subscribers over several
// servers, subscriber i on port i % count: nodes of one cluster, where a flip on one node reaches the others'
// streams through the database. Prints "ready N ..." once every stream has its head and `retry:` preamble, then
// per flip the latency from the end of the PUT's response to each subscriber's read of the event, and over all
// flips p50/p99/max (with several ports also per port, and for the subscribers on the other nodes together). The latency includes this program's own time to walk N sockets (one thread, so an upper
// bound of what the server does). Then prints "holding" and keeps the streams open (reading heartbeats)
// until standard input closes.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { CARRY = 24 };

struct sub {
    int fd;
    int sent;       // request written
    int ready;      // preamble seen
    int events;     // refetchEvaluation events seen
    uint64_t at;    // when the latest event was read
    int carry_len;
    char carry[CARRY];
};

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int port;        // where the PUTs go
static int *sub_ports;  // subscriber i connects to sub_ports[i % nports]
static int nports = 1;
static char request[256];

// Counts `needle` in the carried tail plus `data` (a match may straddle two reads), keeps the new tail.
static int scan(struct sub *s, const char *data, size_t n, const char *needle) {
    static char joined[CARRY + 65536];
    memcpy(joined, s->carry, (size_t)s->carry_len);
    memcpy(joined + s->carry_len, data, n);
    size_t total = (size_t)s->carry_len + n, len = strlen(needle);
    int count = 0;
    for (const char *p = joined; (p = memmem(p, total - (size_t)(p - joined), needle, len)) != NULL; p += len) count++;
    size_t keep = total < len - 1 ? total : len - 1;
    memmove(s->carry, joined + total - keep, keep);
    s->carry_len = (int)keep;
    return count;
}

static int open_sub(int ep, struct sub *s, int index) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) { perror("socket"); return -1; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sub_ports[index % nports])};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) { perror("connect"); close(fd); return -1; }
    memset(s, 0, sizeof *s);
    s->fd = fd;
    struct epoll_event e = {.events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t)index};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) { perror("epoll_ctl"); close(fd); return -1; }
    return 0;
}

// One pass of events; returns how many subscribers became ready and counts new events.
static int pump(int ep, struct sub *subs, int timeout_ms, int *stdin_closed) {
    static struct epoll_event events[1024];
    static char buf[65536];
    int became_ready = 0;
    int n = epoll_wait(ep, events, 1024, timeout_ms);
    uint64_t t = now_ns();
    for (int i = 0; i < n; i++) {
        if (events[i].data.u32 == UINT32_MAX) {  // standard input
            ssize_t r = read(0, buf, sizeof buf);
            if (r <= 0 && stdin_closed) *stdin_closed = 1;
            continue;
        }
        struct sub *s = &subs[events[i].data.u32];
        if (!s->sent && (events[i].events & EPOLLOUT)) {
            if (write(s->fd, request, strlen(request)) < 0) { perror("write"); exit(1); }
            s->sent = 1;
            struct epoll_event e = {.events = EPOLLIN, .data.u32 = events[i].data.u32};
            epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &e);
        }
        if (!(events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
        for (;;) {
            ssize_t r = read(s->fd, buf, sizeof buf);
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            if (r <= 0) { fprintf(stderr, "subscriber %u closed (%zd)\n", events[i].data.u32, r); exit(1); }
            if (!s->ready) {
                if (scan(s, buf, (size_t)r, "retry:") > 0) { s->ready = 1; became_ready++; s->carry_len = 0; }
                continue;
            }
            int got = scan(s, buf, (size_t)r, "refetchEvaluation");
            if (got > 0) { s->events += got; s->at = t; }
        }
    }
    return became_ready;
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

// A PUT of the flag on a blocking connection; returns when the response head and body are read.
static void flip(const char *env, const char *token, int value) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect PUT"); exit(1); }
    const char *body = value ? "true" : "false";
    char put[1024];
    int len = snprintf(put, sizeof put,
        "PUT /v1/environments/%s/flags/showIntroFreeSubscriptionBanner HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Authorization: Bearer %s\r\nContent-Type: application/json\r\nX-Change-Message: fan-out benchmark\r\n"
        "Connection: close\r\nContent-Length: %zu\r\n\r\n%s", env, token, strlen(body), body);
    if (write(fd, put, (size_t)len) != len) { perror("write PUT"); exit(1); }
    char response[4096];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof response - 1 && (r = read(fd, response + got, sizeof response - 1 - got)) > 0) got += (size_t)r;
    response[got] = 0;
    close(fd);
    if (strncmp(response, "HTTP/1.1 200", 12) != 0) { fprintf(stderr, "PUT failed: %.200s\n", response); exit(1); }
}

// p50/p99/max of `values` (sorted here), printed after `label`.
static void report(const char *label, int64_t *values, size_t count) {
    if (count == 0) return;
    qsort(values, count, sizeof *values, compare);
    printf("%s: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", label, values[count / 2] / 1e6, values[count * 99 / 100] / 1e6,
           values[count - 1] / 1e6);
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) { fprintf(stderr, "usage: sse-fanout PORT ENV TOKEN N FLIPS [SUBSCRIBER_PORTS]\n"); return 2; }
    port = atoi(argv[1]);
    sub_ports = &port;
    if (argc == 7) {
        sub_ports = calloc(strlen(argv[6]) / 2 + 1, sizeof *sub_ports);
        nports = 0;
        for (char *p = argv[6]; *p; p++) {
            if (p == argv[6] || p[-1] == ',') sub_ports[nports++] = atoi(p);
        }
        if (nports == 0) { fprintf(stderr, "no subscriber ports in '%s'\n", argv[6]); return 2; }
    }
    const char *env = argv[2], *token = argv[3];
    int n = atoi(argv[4]), flips = atoi(argv[5]);
    snprintf(request, sizeof request, "GET /v1/environments/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", env);
    struct sub *subs = calloc((size_t)n, sizeof *subs);
    int ep = epoll_create1(0);
    uint64_t start = now_ns();
    int opened = 0, ready = 0;
    // At most 512 handshakes in flight: the listen backlog is 1024, and a full one drops SYNs (1 s retries).
    while (ready < n) {
        while (opened < n && opened - ready < 512) {
            if (open_sub(ep, &subs[opened], opened) < 0) return 1;
            opened++;
        }
        ready += pump(ep, subs, 100, NULL);
        if (now_ns() - start > 120000000000ull) { fprintf(stderr, "only %d of %d ready after 120 s\n", ready, n); return 1; }
    }
    printf("ready %d subscribers in %.2f s\n", n, (double)(now_ns() - start) / 1e9);
    fflush(stdout);
    int64_t *all = malloc(sizeof(int64_t) * (size_t)n * (size_t)flips);
    int64_t *mine = malloc(sizeof(int64_t) * (size_t)n);
    size_t count = 0;
    printf("latency from the PUT's answer to each subscriber's read of the event:\n");
    for (int k = 1; k <= flips; k++) {
        flip(env, token, k % 2 == 0);
        uint64_t acked = now_ns();
        uint64_t deadline = acked + 10000000000ull;
        int done = 0;
        while (done < n && now_ns() < deadline) {
            pump(ep, subs, 50, NULL);
            done = 0;
            for (int i = 0; i < n; i++) done += subs[i].events >= k;
        }
        if (done < n) { fprintf(stderr, "flip %d: only %d of %d subscribers got the event in 10 s\n", k, done, n); return 1; }
        for (int i = 0; i < n; i++) all[count++] = mine[i] = (int64_t)(subs[i].at - acked);
        char label[64];
        snprintf(label, sizeof label, "flip %d", k);
        report(label, mine, (size_t)n);  // sorts its copy: all[] keeps subscriber order for the per-port figures
        fflush(stdout);
        struct timespec pause = {0, 300000000};
        nanosleep(&pause, NULL);
    }
    if (nports > 1) {
        // all[] is per flip, subscriber i at offset i: group by the subscriber's port.
        int64_t *group = malloc(sizeof(int64_t) * count);
        size_t others = 0;
        for (int p = 0; p < nports; p++) {
            size_t g = 0;
            for (size_t j = 0; j < count; j++) if ((j % (size_t)n) % (size_t)nports == (size_t)p) group[g++] = all[j];
            char label[128];
            snprintf(label, sizeof label, "port %d%s, %zu events", sub_ports[p], sub_ports[p] == port ? " (the PUT's node)" : "", g);
            report(label, group, g);
        }
        for (size_t j = 0; j < count; j++) if (sub_ports[(j % (size_t)n) % (size_t)nports] != port) group[others++] = all[j];
        char label[128];
        snprintf(label, sizeof label, "other nodes' subscribers, %zu events", others);
        report(label, group, others);
        free(group);
    }
    char label[128];
    snprintf(label, sizeof label, "all %d flips x %d subscribers", flips, n);
    report(label, all, count);
    printf("holding\n");
    fflush(stdout);
    struct epoll_event e = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &e);
    int stdin_closed = 0;
    while (!stdin_closed) pump(ep, subs, 1000, &stdin_closed);
    return 0;
}
