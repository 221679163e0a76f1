/* fork_shell — runs a CPU-bound grandchild through /bin/sh and waits:
 * fork_shell → sh -c '...' → fork_shell --grandchild (renamed "grandchild").
 *
 * Usage: fork_shell [WORK_MS]            (default: 300 ms)
 *        fork_shell --grandchild WORK_MS (what the shell runs)
 * The shell command runs the grandchild and then `true`, so that the shell
 * forks it and waits rather than exec'ing it in place.  Stacks show
 * run_shell (fork, exec, waitpid) and grandchild_spin (the grandchild's CPU).
 * Planted cause: CPU in grandchild_spin in the grandchild, reached through
 * the wait/exit links fork_shell → sh → grandchild.
 */
#include "workload.h"

#include <sys/wait.h>

NOINLINE unsigned long
grandchild_spin (long long work_ns)
{
  return burn_cpu (work_ns, 11);
}

/* Forks /bin/sh -c COMMAND and waits for it; returns its status. */
NOINLINE int
run_shell (const char *command)
{
  pid_t pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      execl ("/bin/sh", "sh", "-c", command, (char *) NULL);
      die ("exec /bin/sh");
    }
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      die ("waitpid");
  return status;
}

int
main (int argc, char **argv)
{
  workload_name = "fork_shell";
  if (argc > 2 && strcmp (argv[1], "--grandchild") == 0)
    {
      set_comm ("grandchild");
      workload_sink = grandchild_spin (strtoll (argv[2], NULL, 0) * NS_PER_MS);
      return 0;
    }
  long long work_ms = argc > 1 ? strtoll (argv[1], NULL, 0) : 300;
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n < 0)
    die ("readlink /proc/self/exe");
  self[n] = '\0';
  if (strchr (self, '\'') != NULL)
    {
      errno = EINVAL;
      die ("a quote in the workload's path");
    }
  char command[8192];
  snprintf (command, sizeof command, "'%s' --grandchild %lld; true", self, work_ms);
  int status = run_shell (command);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "fork_shell: the shell failed (status %d)\n", status);
      return 1;
    }
  printf ("fork_shell: grandchild spun %lld ms\n", work_ms);
  return 0;
}
