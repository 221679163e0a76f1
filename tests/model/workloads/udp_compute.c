/* udp_compute — a client sends UDP queries to a local server (127.0.0.1,
 * ephemeral port) that computes before it answers each one.
 *
 * Usage: udp_compute [QUERIES [WORK_MS]]   (defaults: 3 queries, 100 ms each)
 * Processes: udp_compute (the client, the process of interest) and
 * udp_server (forked by it).  Stacks show client_query (sendto, recvfrom)
 * and server_compute (the server's CPU work).
 * Planted cause: CPU in server_compute in udp_server, reached through the
 * client's wait for the answer (client → server).
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define QUERY_SIZE 32
#define ANSWER_SIZE 256

NOINLINE unsigned long
server_compute (long long work_ns, unsigned long query)
{
  return burn_cpu (work_ns, query);
}

static void
server_main (int sock, long long work_ns)
{
  set_comm ("udp_server");
  char query[QUERY_SIZE], answer[ANSWER_SIZE];
  for (;;)
    {
      struct sockaddr_in from;
      socklen_t len = sizeof from;
      ssize_t n = recvfrom (sock, query, sizeof query, 0, (struct sockaddr *) &from, &len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("recvfrom");
      if (n == 4 && memcmp (query, "quit", 4) == 0)
        break;
      unsigned long x = server_compute (work_ns, (unsigned long) n);
      memset (answer, 0, sizeof answer);
      snprintf (answer, sizeof answer, "answer %lx", x);
      if (sendto (sock, answer, sizeof answer, 0, (struct sockaddr *) &from, len) < 0)
        die ("sendto");
    }
  _exit (0);
}

/* One query: send it, wait for the answer. */
NOINLINE void
client_query (int sock, const struct sockaddr_in *server, unsigned long i)
{
  char query[QUERY_SIZE], answer[ANSWER_SIZE];
  memset (query, 0, sizeof query);
  snprintf (query, sizeof query, "query %lu", i);
  if (sendto (sock, query, sizeof query, 0, (const struct sockaddr *) server, sizeof *server) < 0)
    die ("sendto");
  for (;;)
    {
      ssize_t n = recv (sock, answer, sizeof answer, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("recv");
      break;
    }
}

int
main (int argc, char **argv)
{
  workload_name = "udp_compute";
  unsigned long queries = argc > 1 ? strtoul (argv[1], NULL, 0) : 3;
  long long work_ns = (argc > 2 ? strtoll (argv[2], NULL, 0) : 100) * NS_PER_MS;

  int server_sock = socket (AF_INET, SOCK_DGRAM, 0);
  if (server_sock < 0)
    die ("socket");
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  if (bind (server_sock, (struct sockaddr *) &addr, sizeof addr) < 0
      || getsockname (server_sock, (struct sockaddr *) &addr, &len) < 0)
    die ("bind");
  pid_t server = fork ();
  if (server < 0)
    die ("fork");
  if (server == 0)
    server_main (server_sock, work_ns);
  close (server_sock);

  int sock = socket (AF_INET, SOCK_DGRAM, 0);
  if (sock < 0)
    die ("socket");
  /* connected: the client takes answers from the server only */
  if (connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    die ("connect");
  for (unsigned long i = 0; i < queries; i++)
    client_query (sock, &addr, i);
  if (sendto (sock, "quit", 4, 0, (struct sockaddr *) &addr, sizeof addr) < 0)
    die ("sendto quit");
  int status;
  if (waitpid (server, &status, 0) < 0)
    die ("waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "udp_compute: server failed (status %d)\n", status);
      return 1;
    }
  printf ("udp_compute: %lu queries of %lld ms to 127.0.0.1:%d\n", queries, work_ns / NS_PER_MS,
          ntohs (addr.sin_port));
  return 0;
}
