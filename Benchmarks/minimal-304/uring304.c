// Minimal io_uring server: per thread a ring (single issuer, deferred task work), multishot accept, a recv and a
// send per request, all submitted and reaped by one io_uring_enter per pass.
#include "common.h"
#include <liburing.h>
static int port;
enum { ACCEPT = 1, RECV = 2, SEND = 3 };
#define MAXC 4096
static void *loop(void *arg) {
  int lfd = listen_on(port);
  struct io_uring ring; struct io_uring_params p = {0};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(1024, &ring, &p) < 0) { p.flags = 0; if (io_uring_queue_init_params(1024, &ring, &p) < 0) { perror("uring"); exit(1);} }
  char (*bufs)[2048] = calloc(MAXC, 2048);
  struct io_uring_sqe *s = io_uring_get_sqe(&ring);
  io_uring_prep_multishot_accept(s, lfd, NULL, NULL, 0); io_uring_sqe_set_data64(s, ACCEPT);
  for (;;) {
    io_uring_submit_and_wait(&ring, 1);
    struct io_uring_cqe *cqe; unsigned head, count = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      count++;
      unsigned long long d = cqe->user_data; int kind = d & 0xff, fd = d >> 8, res = cqe->res;
      if (kind == ACCEPT) {
        if (res >= 0 && res < MAXC) {
          int one = 1; setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          s = io_uring_get_sqe(&ring); io_uring_prep_recv(s, res, bufs[res], 2048, 0); io_uring_sqe_set_data64(s, ((unsigned long long)res << 8) | RECV);
        }
        if (!(cqe->flags & IORING_CQE_F_MORE)) { s = io_uring_get_sqe(&ring); io_uring_prep_multishot_accept(s, lfd, NULL, NULL, 0); io_uring_sqe_set_data64(s, ACCEPT); }
      } else if (kind == RECV) {
        if (res <= 0) { close(fd); continue; }
        s = io_uring_get_sqe(&ring); io_uring_prep_send(s, fd, RESP, sizeof RESP - 1, MSG_NOSIGNAL); io_uring_sqe_set_data64(s, ((unsigned long long)fd << 8) | SEND);
      } else {
        if (res < 0) { close(fd); continue; }
        s = io_uring_get_sqe(&ring); io_uring_prep_recv(s, fd, bufs[fd], 2048, 0); io_uring_sqe_set_data64(s, ((unsigned long long)fd << 8) | RECV);
      }
    }
    io_uring_cq_advance(&ring, count);
  }
  return arg;
}
int main(int argc, char **argv) {
  port = atoi(argv[1]); int threads = argc > 2 ? atoi(argv[2]) : 2;
  pthread_t t[16]; for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, loop, 0);
  pthread_join(t[0], 0);
}
