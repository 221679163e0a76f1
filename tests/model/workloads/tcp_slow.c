/* tcp_slow — a small TCP server where every EVERY-th request takes a slow
 * path: what `rsp report --requests tcp:PORT` is for.  The client sends
 * REQUESTS requests of 16 bytes over one keep-alive connection to
 * 127.0.0.1:PORT, each after the previous answer.  The server does 2 ms of
 * CPU per request in handle_request; every EVERY-th request it also
 * overwrites and fdatasyncs a file SYNCS times in slow_path (64 KiB each,
 * in DIR: a real file system, not tmpfs) before it answers.  At the end it
 * prints the mean time of the slow path, for the test to compare with.
 *
 * Usage: tcp_slow [REQUESTS [EVERY [PORT [SYNCS [DIR]]]]]
 *        (defaults: 40 requests, every 5th slow, port 47311, 8 syncs, /var/tmp)
 * Processes: tcp_slow (the server, the recorded command) and tcp_client.
 * Planted cause: the slow requests wait for the disk under fdatasync() in
 * tcp_slow; the others never do.
 */
#include "workload.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define MESSAGE 16
#define CHUNK (64 * 1024)

static char chunk[CHUNK];

NOINLINE unsigned long
handle_request (unsigned long x)
{
  return burn_cpu (2 * NS_PER_MS, x);
}

NOINLINE void
slow_path (int fd, int syncs)
{
  for (int i = 0; i < syncs; i++)
    {
      chunk[0] = (char) i;
      if (pwrite (fd, chunk, CHUNK, (off_t) i * CHUNK) != CHUNK)
        die ("pwrite");
      if (fdatasync (fd) < 0)
        die ("fdatasync");
    }
}

NOINLINE void
client (int port, int requests)
{
  set_comm ("tcp_client");
  int s = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (s < 0 || connect (s, (struct sockaddr *) &addr, sizeof addr) < 0)
    die ("connect");
  char msg[MESSAGE] = "GET /item\n";
  for (int i = 0; i < requests; i++)
    {
      write_full (s, msg, sizeof msg);
      read_full (s, msg, sizeof msg);
    }
  close (s);
}

int
main (int argc, char **argv)
{
  workload_name = "tcp_slow";
  int requests = argc > 1 ? atoi (argv[1]) : 40;
  int every = argc > 2 ? atoi (argv[2]) : 5;
  int port = argc > 3 ? atoi (argv[3]) : 47311;
  int syncs = argc > 4 ? atoi (argv[4]) : 8;
  const char *dir = argc > 5 ? argv[5] : "/var/tmp";

  char path[4096];
  snprintf (path, sizeof path, "%s/tcp_slow.%d", dir, (int) getpid ());
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    die (path);
  unlink (path);
  slow_path (fd, syncs); /* allocate the blocks once: the requests overwrite them */

  int listener = socket (AF_INET, SOCK_STREAM, 0);
  int one = 1;
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (listener < 0 || setsockopt (listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
      || bind (listener, (struct sockaddr *) &addr, sizeof addr) < 0 || listen (listener, 4) < 0)
    die ("listen");
  pid_t pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      close (listener);
      client (port, requests);
      _exit (0);
    }
  int s = accept (listener, NULL, NULL);
  if (s < 0)
    die ("accept");
  char msg[MESSAGE];
  long long slow_ns = 0;
  int n_slow = 0;
  for (int i = 0; i < requests; i++)
    {
      read_full (s, msg, sizeof msg);
      handle_request ((unsigned long) i);
      if (every > 0 && i % every == every - 1)
        {
          long long t0 = monotonic_ns ();
          slow_path (fd, syncs);
          slow_ns += monotonic_ns () - t0;
          n_slow++;
        }
      write_full (s, msg, sizeof msg);
    }
  int status;
  if (waitpid (pid, &status, 0) < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "tcp_slow: the client failed\n");
      return 1;
    }
  printf ("tcp_slow: %d requests on port %d, %d slow: slow path %.3f ms on average\n", requests, port, n_slow,
          n_slow > 0 ? slow_ns / 1e6 / n_slow : 0.0);
  return 0;
}
