/* forkexec — forks, execs itself as a child that does a little work, and
 * waits for it, several times.
 *
 * Usage: forkexec [CHILDREN [WORK]]   (defaults: 12 children, 10000000 units)
 *        forkexec --child WORK        (what each child runs)
 * Stacks show forkexec_work (the parent's loop), forkexec_spawn (fork, exec,
 * waitpid) and forkexec_child_work (the child's CPU work).
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

NOINLINE unsigned long
forkexec_child_work (unsigned long units)
{
  unsigned long x = 7;
  for (unsigned long i = 0; i < units; i++)
    x = x * 2862933555777941757UL + 3037000493UL + (x >> 31);
  sink = x;
  return x;
}

static void
die (const char *what)
{
  fprintf (stderr, "forkexec: %s: %s\n", what, strerror (errno));
  exit (1);
}

/* Runs one child to completion; returns its exit status. */
NOINLINE int
forkexec_spawn (const char *self, const char *units)
{
  pid_t pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      execl (self, self, "--child", units, (char *) NULL);
      fprintf (stderr, "forkexec: exec %s: %s\n", self, strerror (errno));
      _exit (127);
    }
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      die ("waitpid");
  return status;
}

NOINLINE int
forkexec_work (const char *self, unsigned long children, const char *units)
{
  int failures = 0;
  for (unsigned long i = 0; i < children; i++)
    {
      int status = forkexec_spawn (self, units);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        failures++;
    }
  return failures;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--child") == 0)
    {
      forkexec_child_work (argc > 2 ? strtoul (argv[2], NULL, 0) : 0);
      return 0;
    }

  unsigned long children = argc > 1 ? strtoul (argv[1], NULL, 0) : 12;
  const char *units = argc > 2 ? argv[2] : "10000000";
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n < 0)
    die ("readlink /proc/self/exe");
  self[n] = '\0';

  int failures = forkexec_work (self, children, units);
  if (failures)
    {
      fprintf (stderr, "forkexec: %d children failed\n", failures);
      return 1;
    }
  printf ("forkexec: %lu children done\n", children);
  return 0;
}
