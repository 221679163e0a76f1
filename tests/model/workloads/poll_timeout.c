/* poll_timeout — the resolver whose server never answers (getent against a
 * DNS server that is down, `options timeout:1 attempts:1`), in miniature:
 * a query goes out over UDP to a socket on 127.0.0.1 that nobody reads, and
 * the asker polls for the answer for one second.  Nothing else runs: on an
 * idle machine the poll's timer fires on an idle CPU, where perf drops the
 * timer's wake-up.
 *
 * Usage: poll_timeout [TIMEOUT_MS]   (default 1000)
 * Planted cause: about TIMEOUT_MS of a wait that timed out, under poll() in
 * resolve_wait.
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

/* Waits for the answer that never comes; returns poll's result (0). */
NOINLINE int
resolve_wait (int sock, int timeout_ms)
{
  struct pollfd p = { .fd = sock, .events = POLLIN };
  int n;
  while ((n = poll (&p, 1, timeout_ms)) < 0 && errno == EINTR)
    ;
  if (n < 0)
    die ("poll");
  return n;
}

int
main (int argc, char **argv)
{
  workload_name = "poll_timeout";
  int timeout_ms = argc > 1 ? atoi (argv[1]) : 1000;
  struct sockaddr_in server = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof server;
  /* the "server": bound, never read */
  int dead = socket (AF_INET, SOCK_DGRAM, 0);
  if (dead < 0 || bind (dead, (struct sockaddr *) &server, sizeof server) < 0
      || getsockname (dead, (struct sockaddr *) &server, &len) < 0)
    die ("server socket");
  int sock = socket (AF_INET, SOCK_DGRAM, 0);
  if (sock < 0 || connect (sock, (struct sockaddr *) &server, sizeof server) < 0)
    die ("client socket");
  static const char query[] = "\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03org\x00\x00\x01\x00\x01";
  if (send (sock, query, sizeof query - 1, 0) < 0)
    die ("send");
  int n = resolve_wait (sock, timeout_ms);
  printf ("poll_timeout: no answer after %d ms (poll returned %d)\n", timeout_ms, n);
  return n == 0 ? 0 : 1;
}
