/* tcp_chain — a request chain over TCP across three processes, the last of
 * which sleeps: the client (the process of interest) sends REQUESTS
 * requests to a relay, the relay forwards each to a sleeper over a second
 * TCP connection, and the sleeper sleeps SLEEP_MS in nanosleep before it
 * answers.  Every request's time is the sleeper's deliberate sleep, two
 * hops away, ended by its timer (on an idle CPU: the wake-up perf drops).
 *
 * Usage: tcp_chain [REQUESTS [SLEEP_MS]]   (defaults 10 and 20)
 * Processes: tcp_chain (client), chain_relay (forked by the client),
 * chain_sleeper (forked by the relay).
 * Planted cause: REQUESTS x SLEEP_MS of deliberate sleep in chain_sleeper,
 * under sleeper_wait, reached through client → relay → sleeper.
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define MSG 32

static long sleep_ms = 20;

static int
tcp_listener (struct sockaddr_in *addr)
{
  int l = socket (AF_INET, SOCK_STREAM, 0);
  socklen_t len = sizeof *addr;
  *addr = (struct sockaddr_in) { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (l < 0 || bind (l, (struct sockaddr *) addr, sizeof *addr) < 0 || listen (l, 1) < 0
      || getsockname (l, (struct sockaddr *) addr, &len) < 0)
    die ("listen");
  return l;
}

static int
tcp_connect (const struct sockaddr_in *addr)
{
  int s = socket (AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (s < 0 || connect (s, (const struct sockaddr *) addr, sizeof *addr) < 0)
    die ("connect");
  setsockopt (s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return s;
}

static int
tcp_accept (int l)
{
  int s = accept (l, NULL, NULL);
  int one = 1;
  if (s < 0)
    die ("accept");
  setsockopt (s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  close (l);
  return s;
}

static int
recv_msg (int s, char *buf)
{
  size_t got = 0;
  while (got < MSG)
    {
      ssize_t n = read (s, buf + got, MSG - got);
      if (n == 0)
        return 0;
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          die ("read");
        }
      got += (size_t) n;
    }
  return 1;
}

static void
send_msg (int s, const char *buf)
{
  if (write (s, buf, MSG) != MSG)
    die ("write");
}

/* The sleeper's work for one request. */
NOINLINE void
sleeper_wait (void)
{
  struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * NS_PER_MS };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

static void
sleeper_main (int l)
{
  set_comm ("chain_sleeper");
  int s = tcp_accept (l);
  char buf[MSG];
  while (recv_msg (s, buf))
    {
      sleeper_wait ();
      send_msg (s, buf);
    }
  exit (0);
}

NOINLINE void
relay_forward (int down, int up, char *buf)
{
  send_msg (down, buf);
  if (!recv_msg (down, buf))
    die ("sleeper hung up");
  send_msg (up, buf);
}

static void
relay_main (int l)
{
  set_comm ("chain_relay");
  struct sockaddr_in addr;
  int sl = tcp_listener (&addr);
  pid_t sleeper = fork ();
  if (sleeper < 0)
    die ("fork");
  if (sleeper == 0)
    {
      close (l);
      sleeper_main (sl);
    }
  close (sl);
  int down = tcp_connect (&addr);
  int up = tcp_accept (l);
  char buf[MSG];
  while (recv_msg (up, buf))
    relay_forward (down, up, buf);
  close (down);
  waitpid (sleeper, NULL, 0);
  exit (0);
}

NOINLINE void
client_request (int s, long i)
{
  char buf[MSG] = { 0 };
  snprintf (buf, sizeof buf, "request %ld", i);
  send_msg (s, buf);
  if (!recv_msg (s, buf))
    die ("relay hung up");
}

int
main (int argc, char **argv)
{
  workload_name = "tcp_chain";
  long requests = argc > 1 ? atol (argv[1]) : 10;
  if (argc > 2)
    sleep_ms = atol (argv[2]);
  struct sockaddr_in addr;
  int l = tcp_listener (&addr);
  pid_t relay = fork ();
  if (relay < 0)
    die ("fork");
  if (relay == 0)
    relay_main (l);
  close (l);
  int s = tcp_connect (&addr);
  long long t0 = monotonic_ns ();
  for (long i = 0; i < requests; i++)
    client_request (s, i);
  long long t1 = monotonic_ns ();
  close (s);
  waitpid (relay, NULL, 0);
  printf ("tcp_chain: %ld requests in %.1f ms, %ld ms of sleep each\n", requests, (t1 - t0) / 1e6, sleep_ms);
  return 0;
}
