// Minimal epoll server: per thread an epoll set, one read and one send per request (wrk sends one request and
// waits for its answer). No parsing: it is the floor of what a request costs through the kernel.
// Like flagserver (EventLoop+Placement.swift), every 64th request it moves the connection to the thread last
// seen on the CPU its requests arrive on (SO_INCOMING_CPU), so that each wrk thread talks to one server thread.
#include "common.h"
#include <sched.h>
#include <sys/epoll.h>
static int port, threads;
static int eps[16];
static volatile int cpus[16];
static void *loop(void *arg) {
  long self = (long)arg;
  int lfd = listen_on(port), ep = eps[self];
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  struct epoll_event evs[512]; char buf[65536]; unsigned long count = 0;
  for (;;) {
    int n = epoll_wait(ep, evs, 512, -1), me = sched_getcpu();
    cpus[self] = me;
    for (int i = 0; i < n; i++) {
      int fd = evs[i].data.fd;
      if (fd == lfd) {
        int c;
        while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          int one = 1; setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
        }
        continue;
      }
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) { if (r == 0 || errno != EAGAIN) close(fd); continue; }
      send(fd, RESP, sizeof RESP - 1, MSG_NOSIGNAL);
      if (++count % 64) continue;
      int cpu = -1; socklen_t l = sizeof cpu;
      if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &l) || cpu < 0 || cpu == me) continue;
      for (int k = 0; k < threads; k++) {
        if (k == self || cpus[k] != cpu) continue;
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};
        epoll_ctl(eps[k], EPOLL_CTL_ADD, fd, &e);
        break;
      }
    }
  }
  return arg;
}
int main(int argc, char **argv) {
  port = atoi(argv[1]); threads = argc > 2 ? atoi(argv[2]) : 2;
  if (threads > 16) threads = 16;
  for (int i = 0; i < threads; i++) { eps[i] = epoll_create1(0); cpus[i] = -1; }
  pthread_t t[16]; for (long i = 0; i < threads; i++) pthread_create(&t[i], 0, loop, (void *)i);
  pthread_join(t[0], 0);
}
