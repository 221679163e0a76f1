/* pingpong — the paper's `pass`: two processes pass a token back and forth
 * over two pipes, each doing a little CPU work before passing it on.
 *
 * Usage: pingpong [PASSES [WORK]]   (defaults: 1000 passes, 80000 work units)
 * Stacks show pingpong_work (CPU) under pingpong_pass (the pipe loop).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline))

static volatile unsigned long sink;

/* The CPU work done on each pass: a little arithmetic the compiler must
 * keep. */
NOINLINE unsigned long
pingpong_work (unsigned long units, unsigned long seed)
{
  unsigned long x = seed | 1;
  for (unsigned long i = 0; i < units; i++)
    x = x * 6364136223846793005UL + 1442695040888963407UL + (x >> 29);
  sink = x;
  return x;
}

static void
die (const char *what)
{
  fprintf (stderr, "pingpong: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void
read_token (int fd, unsigned long *token)
{
  size_t got = 0;
  while (got < sizeof *token)
    {
      ssize_t n = read (fd, (char *) token + got, sizeof *token - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        die ("read");
      got += (size_t) n;
    }
}

static void
write_token (int fd, unsigned long token)
{
  if (write (fd, &token, sizeof token) != (ssize_t) sizeof token)
    die ("write");
}

/* One side of the game: wait for the token, work, pass it on. The side
 * that serves first writes before its first read. */
NOINLINE void
pingpong_pass (int in_fd, int out_fd, unsigned long passes, unsigned long units, int serve)
{
  unsigned long token = 1;
  if (serve)
    write_token (out_fd, token);
  for (unsigned long i = 0; i < passes; i++)
    {
      read_token (in_fd, &token);
      token = pingpong_work (units, token);
      if (serve && i + 1 == passes)
        break;
      write_token (out_fd, token);
    }
}

int
main (int argc, char **argv)
{
  unsigned long passes = argc > 1 ? strtoul (argv[1], NULL, 0) : 1000;
  unsigned long units = argc > 2 ? strtoul (argv[2], NULL, 0) : 80000;
  int ping[2], pong[2];

  if (pipe (ping) < 0 || pipe (pong) < 0)
    die ("pipe");
  pid_t child = fork ();
  if (child < 0)
    die ("fork");
  if (child == 0)
    {
      close (ping[1]);
      close (pong[0]);
      pingpong_pass (ping[0], pong[1], passes, units, 0);
      _exit (0);
    }
  close (ping[0]);
  close (pong[1]);
  pingpong_pass (pong[0], ping[1], passes, units, 1);
  close (ping[1]);
  int status;
  if (waitpid (child, &status, 0) < 0)
    die ("waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "pingpong: child failed (status %d)\n", status);
      return 1;
    }
  printf ("pingpong: %lu passes done\n", passes);
  return 0;
}
