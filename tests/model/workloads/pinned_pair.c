/* pinned_pair — two CPU-bound processes pinned to the same CPU take turns
 * on it, each preempted while the other runs.
 *
 * Usage: pinned_pair [WORK_MS]   (default: 300 ms of CPU each)
 * The parent pins itself to the first CPU it may use (sched_setaffinity),
 * forks pinned_peer (which inherits the pinning), both spin WORK_MS of their
 * own CPU time in pinned_spin, and the parent waits for the peer.
 * Planted cause: involuntary sleeps (preemption) and scheduler delay, about
 * half of the parent's time.
 */
#include "workload.h"

#include <sched.h>
#include <sys/wait.h>

NOINLINE unsigned long
pinned_spin (long long work_ns, unsigned long seed)
{
  return burn_cpu (work_ns, seed);
}

int
main (int argc, char **argv)
{
  workload_name = "pinned_pair";
  long long work_ns = (argc > 1 ? strtoll (argv[1], NULL, 0) : 300) * NS_PER_MS;
  cpu_set_t set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) < 0)
    die ("sched_getaffinity");
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET (cpu, &set))
    cpu++;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  if (sched_setaffinity (0, sizeof set, &set) < 0)
    die ("sched_setaffinity");
  pid_t peer = fork ();
  if (peer < 0)
    die ("fork");
  if (peer == 0)
    {
      set_comm ("pinned_peer");
      workload_sink = pinned_spin (work_ns, 5);
      _exit (0);
    }
  workload_sink = pinned_spin (work_ns, 3);
  int status;
  if (waitpid (peer, &status, 0) < 0)
    die ("waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "pinned_pair: peer failed (status %d)\n", status);
      return 1;
    }
  printf ("pinned_pair: two processes on CPU %d, %lld ms of CPU each\n", cpu, work_ns / NS_PER_MS);
  return 0;
}
