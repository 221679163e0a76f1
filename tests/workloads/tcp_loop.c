/* tcp_loop — a client and a server process exchange request/response
 * messages over TCP on 127.0.0.1 (ephemeral port), N round trips.
 *
 * Usage: tcp_loop [ROUND_TRIPS [WORK]]   (defaults: 500 round trips, 150000 units)
 * Stacks show tcp_client_work (send a request, wait for the answer),
 * tcp_server_work (serve requests) and tcp_compute (the server's CPU work).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline))
#define REQUEST_SIZE 64
#define RESPONSE_SIZE 512

static volatile unsigned long sink;

static void
die (const char *who, const char *what)
{
  fprintf (stderr, "tcp_loop %s: %s: %s\n", who, what, strerror (errno));
  exit (1);
}

/* Reads exactly SIZE bytes; returns 0 at a clean end of stream. */
static int
read_full (int fd, void *buf, size_t size, const char *who)
{
  size_t got = 0;
  while (got < size)
    {
      ssize_t n = recv (fd, (char *) buf + got, size - got, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die (who, "recv");
      if (n == 0)
        {
          if (got == 0)
            return 0;
          errno = EPROTO;
          die (who, "short message");
        }
      got += (size_t) n;
    }
  return 1;
}

static void
write_full (int fd, const void *buf, size_t size, const char *who)
{
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = send (fd, (const char *) buf + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die (who, "send");
      done += (size_t) n;
    }
}

NOINLINE unsigned long
tcp_compute (unsigned long units, unsigned long seed)
{
  unsigned long x = seed | 1;
  for (unsigned long i = 0; i < units; i++)
    x = x * 6364136223846793005UL + 1013904223UL + (x >> 27);
  sink = x;
  return x;
}

NOINLINE void
tcp_server_work (int listen_fd, unsigned long units)
{
  int fd = accept (listen_fd, NULL, NULL);
  if (fd < 0)
    die ("server", "accept");
  int one = 1;
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  unsigned char request[REQUEST_SIZE], response[RESPONSE_SIZE];
  while (read_full (fd, request, sizeof request, "server"))
    {
      unsigned long x = tcp_compute (units, request[0]);
      memset (response, (int) (x & 0xff), sizeof response);
      memcpy (response, request, sizeof request);
      write_full (fd, response, sizeof response, "server");
    }
  close (fd);
}

NOINLINE unsigned long
tcp_client_work (const struct sockaddr_in *addr, unsigned long round_trips)
{
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    die ("client", "socket");
  if (connect (fd, (const struct sockaddr *) addr, sizeof *addr) < 0)
    die ("client", "connect");
  int one = 1;
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  unsigned char request[REQUEST_SIZE], response[RESPONSE_SIZE];
  unsigned long sum = 0;
  for (unsigned long i = 0; i < round_trips; i++)
    {
      memset (request, (int) (i & 0xff), sizeof request);
      write_full (fd, request, sizeof request, "client");
      if (!read_full (fd, response, sizeof response, "client"))
        {
          errno = ECONNRESET;
          die ("client", "server closed early");
        }
      if (response[0] != request[0])
        {
          errno = EPROTO;
          die ("client", "response does not match request");
        }
      sum += response[RESPONSE_SIZE - 1];
    }
  close (fd);
  return sum;
}

int
main (int argc, char **argv)
{
  unsigned long round_trips = argc > 1 ? strtoul (argv[1], NULL, 0) : 500;
  unsigned long units = argc > 2 ? strtoul (argv[2], NULL, 0) : 150000;

  int listen_fd = socket (AF_INET, SOCK_STREAM, 0);
  if (listen_fd < 0)
    die ("server", "socket");
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind (listen_fd, (struct sockaddr *) &addr, sizeof addr) < 0
      || listen (listen_fd, 1) < 0
      || getsockname (listen_fd, (struct sockaddr *) &addr, &len) < 0)
    die ("server", "bind/listen");

  pid_t server = fork ();
  if (server < 0)
    die ("client", "fork");
  if (server == 0)
    {
      tcp_server_work (listen_fd, units);
      _exit (0);
    }
  close (listen_fd);
  unsigned long sum = tcp_client_work (&addr, round_trips);
  int status;
  if (waitpid (server, &status, 0) < 0)
    die ("client", "waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "tcp_loop: server failed (status %d)\n", status);
      return 1;
    }
  printf ("tcp_loop: %lu round trips on port %u (checksum %lu)\n", round_trips,
          ntohs (addr.sin_port), sum);
  return 0;
}
