/* pass — the paper's toy program: two processes pass the act of doing work
 * back and forth over two pipes.  Each turn does WORK_US of CPU in
 * pass_work, then writes the token to the other side and blocks reading the
 * token back.  The second process is named pass_peer.
 *
 * Usage: pass [TURNS [WORK_US]]   (defaults: 300 turns in all, 1500 µs each)
 * Planted cause: the time is CPU in pass_work, alternating between the two
 * processes: one control path holds both, and pass_work in each process is
 * a top finding.
 */
#include "workload.h"

#include <sys/wait.h>

NOINLINE unsigned long
pass_work (long long work_ns, unsigned long token)
{
  return burn_cpu (work_ns, token);
}

/* One side: wait for the token, work, pass it on.  The side that serves
 * first writes before its first read; TURNS counts this side's turns. */
NOINLINE void
pass_loop (int in_fd, int out_fd, unsigned long turns, long long work_ns, int serve)
{
  unsigned long token = 1;
  if (serve)
    {
      token = pass_work (work_ns, token);
      write_full (out_fd, &token, sizeof token);
      turns--;
    }
  for (unsigned long i = 0; i < turns; i++)
    {
      read_full (in_fd, &token, sizeof token);
      token = pass_work (work_ns, token);
      write_full (out_fd, &token, sizeof token);
    }
  if (serve)
    read_full (in_fd, &token, sizeof token); /* the peer's last turn */
}

int
main (int argc, char **argv)
{
  workload_name = "pass";
  unsigned long turns = argc > 1 ? strtoul (argv[1], NULL, 0) : 300;
  long long work_ns = (argc > 2 ? strtoll (argv[2], NULL, 0) : 1500) * NS_PER_US;
  if (turns < 2)
    turns = 2;
  int ping[2], pong[2];
  if (pipe (ping) < 0 || pipe (pong) < 0)
    die ("pipe");
  pid_t child = fork ();
  if (child < 0)
    die ("fork");
  if (child == 0)
    {
      set_comm ("pass_peer");
      close (ping[1]);
      close (pong[0]);
      pass_loop (ping[0], pong[1], turns / 2, work_ns, 0);
      _exit (0);
    }
  close (ping[0]);
  close (pong[1]);
  pass_loop (pong[0], ping[1], turns - turns / 2, work_ns, 1);
  int status;
  if (waitpid (child, &status, 0) < 0)
    die ("waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "pass: peer failed (status %d)\n", status);
      return 1;
    }
  printf ("pass: %lu turns of %lld µs\n", turns, work_ns / NS_PER_US);
  return 0;
}
