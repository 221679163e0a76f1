/* fsync_chain — the paper's Squirrelmail finding in miniature: a client
 * asks a server over TCP (127.0.0.1), the server asks a helper over a UNIX
 * socket, and the helper writes and fsyncs a file several times per request
 * before anyone answers.
 *
 * Usage: fsync_chain [REQUESTS [SYNCS [KB [DIR]]]]
 *        (defaults: 4 requests, 150 write+fsync per request, 64 KiB per
 *        write, the file in /var/tmp: a real file system, not tmpfs)
 * The helper writes the whole file once before it serves (helper_prepare),
 * so that the requests overwrite allocated blocks: their fsyncs wait for
 * the helper's own disk writes, not for a kworker converting unwritten
 * extents.
 * Processes: fsync_chain (the client, the process of interest),
 * chain_server (forked by the client), chain_helper (forked by the server).
 * Stacks show helper_sync calling fsync, server_forward and client_request.
 * Planted cause: blocking disk I/O under fsync() in chain_helper, reached
 * through client → server → helper.
 */
#include "workload.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define MSG_SIZE 64

static unsigned long syncs_per_request = 150;
static size_t write_size = 64 * 1024;
static char file_path[4096];

/* The helper's work for one request: write and fsync, SYNCS times. */
NOINLINE void
helper_sync (int fd, char *buf, unsigned long request)
{
  for (unsigned long i = 0; i < syncs_per_request; i++)
    {
      buf[0] = (char) (request + i);
      if (pwrite (fd, buf, write_size, (off_t) (i * write_size)) != (ssize_t) write_size)
        die ("pwrite");
      if (fsync (fd) < 0)
        die ("fsync");
    }
}

/* Allocates the file's blocks before the first request. */
NOINLINE void
helper_prepare (int fd, char *buf)
{
  for (unsigned long i = 0; i < syncs_per_request; i++)
    write_full (fd, buf, write_size);
  if (fsync (fd) < 0)
    die ("fsync");
}

static void
helper_main (int sock)
{
  set_comm ("chain_helper");
  int fd = open (file_path, O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0)
    die (file_path);
  char *buf = malloc (write_size);
  if (buf == NULL)
    die ("malloc");
  for (size_t i = 0; i < write_size; i++)
    buf[i] = (char) (i * 131 + 7);
  helper_prepare (fd, buf);
  char msg[MSG_SIZE];
  unsigned long request = 0;
  for (;;)
    {
      ssize_t n = recv (sock, msg, sizeof msg, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("recv");
      if (n == 0)
        break;
      helper_sync (fd, buf, request++);
      write_full (sock, msg, (size_t) n);
    }
  close (fd);
  if (unlink (file_path) < 0)
    die ("unlink");
  free (buf);
  _exit (0);
}

/* The server's part of one request: pass it to the helper, wait, answer. */
NOINLINE void
server_forward (int client, int helper, char *msg)
{
  write_full (helper, msg, MSG_SIZE);
  read_full (helper, msg, MSG_SIZE);
  write_full (client, msg, MSG_SIZE);
}

static void
server_main (int listener)
{
  set_comm ("chain_server");
  int pair[2];
  if (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, pair) < 0)
    die ("socketpair");
  pid_t helper = fork ();
  if (helper < 0)
    die ("fork");
  if (helper == 0)
    {
      close (listener);
      close (pair[0]);
      helper_main (pair[1]);
    }
  close (pair[1]);
  int client = accept (listener, NULL, NULL);
  if (client < 0)
    die ("accept");
  close (listener);
  char msg[MSG_SIZE];
  for (;;)
    {
      ssize_t n = recv (client, msg, sizeof msg, MSG_WAITALL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("recv");
      if (n == 0)
        break;
      if (n != MSG_SIZE)
        {
          errno = EPROTO;
          die ("short request");
        }
      server_forward (client, pair[0], msg);
    }
  close (pair[0]); /* the helper sees the end and exits */
  int status;
  if (waitpid (helper, &status, 0) < 0)
    die ("waitpid helper");
  _exit (WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : 1);
}

/* The client's request: send it, wait for the answer. */
NOINLINE void
client_request (int sock, unsigned long i)
{
  char msg[MSG_SIZE];
  memset (msg, 0, sizeof msg);
  snprintf (msg, sizeof msg, "request %lu", i);
  write_full (sock, msg, sizeof msg);
  read_full (sock, msg, sizeof msg);
}

int
main (int argc, char **argv)
{
  workload_name = "fsync_chain";
  unsigned long requests = argc > 1 ? strtoul (argv[1], NULL, 0) : 4;
  if (argc > 2)
    syncs_per_request = strtoul (argv[2], NULL, 0);
  if (argc > 3)
    write_size = strtoul (argv[3], NULL, 0) * 1024;
  const char *dir = argc > 4 ? argv[4] : "/var/tmp";
  snprintf (file_path, sizeof file_path, "%s/rsp-fsync-chain-%d.dat", dir, (int) getpid ());

  int listener = socket (AF_INET, SOCK_STREAM, 0);
  if (listener < 0)
    die ("socket");
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  if (bind (listener, (struct sockaddr *) &addr, sizeof addr) < 0 || listen (listener, 1) < 0
      || getsockname (listener, (struct sockaddr *) &addr, &len) < 0)
    die ("bind/listen");

  pid_t server = fork ();
  if (server < 0)
    die ("fork");
  if (server == 0)
    server_main (listener);
  close (listener);

  int sock = socket (AF_INET, SOCK_STREAM, 0);
  if (sock < 0)
    die ("socket");
  int one = 1;
  setsockopt (sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    die ("connect");
  for (unsigned long i = 0; i < requests; i++)
    client_request (sock, i);
  close (sock);
  int status;
  if (waitpid (server, &status, 0) < 0)
    die ("waitpid server");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "fsync_chain: server failed (status %d)\n", status);
      return 1;
    }
  printf ("fsync_chain: %lu requests of %lu write+fsync of %zu KiB on %s\n", requests, syncs_per_request,
          write_size / 1024, dir);
  return 0;
}
