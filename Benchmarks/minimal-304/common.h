// Shared by the two minimal servers of Benchmarks/minimal-304.sh: the ceiling a server doing nothing but read a
// request and send flagserver's 304 bytes reaches on this machine, with epoll and with io_uring.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <arpa/inet.h>
// flagserver's 304 for the production document, byte for byte (headers and all).
static const char RESP[] = "HTTP/1.1 304 Not Modified\r\nETag: \"1-ac027c2f972f9b13\"\r\nCache-Control: public, max-age=5, stale-while-revalidate=30, stale-if-error=86400\r\nVary: Authorization, Accept-Encoding\r\nLast-Modified: Thu, 03 Dec 2026 13:52:33 GMT\r\nDate: Thu, 03 Dec 2026 13:52:40 GMT\r\n\r\n";
// A listener per thread on PORT (SO_REUSEPORT): the kernel spreads connections over the threads.
static int listen_on(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (void *)&a, sizeof a) || listen(fd, 1024)) { perror("listen"); exit(1); }
  return fd;
}
