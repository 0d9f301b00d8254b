// Minimal epoll server: per thread an epoll set, one read and one send per request (wrk sends one request and
// waits for its answer). No parsing: it is the floor of what a request costs through the kernel.
#include "common.h"
#include <sys/epoll.h>
static int port;
static void *loop(void *arg) {
  int lfd = listen_on(port), ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  struct epoll_event evs[512]; char buf[65536];
  for (;;) {
    int n = epoll_wait(ep, evs, 512, -1);
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
    }
  }
  return arg;
}
int main(int argc, char **argv) {
  port = atoi(argv[1]); int threads = argc > 2 ? atoi(argv[2]) : 2;
  pthread_t t[16]; for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, loop, 0);
  pthread_join(t[0], 0);
}
