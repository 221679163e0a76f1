/* poll_flag — the paper's curl finding: the main thread polls with a short
 * timeout for a flag that a resolver thread sets when its work is done,
 * and the resolver never wakes the poll.  Every wait of the main thread
 * ends by its timeout.
 *
 * Usage: poll_flag [TIMEOUT_MS [WORK_MS]]   (defaults: 5 ms, like curl's
 *        resolver wait, and 200 ms of resolver work)
 * The resolver's work is split over four named steps (resolver_read_hosts,
 * resolver_parse, resolver_sort, resolver_format), so that no single CPU
 * finding competes with the main thread's polls.
 * Planted cause: "waits that timed out" under poll() in the main thread.
 */
#include "workload.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int resolved;
static long long step_ns;

NOINLINE unsigned long
resolver_read_hosts (unsigned long x)
{
  return burn_cpu (step_ns, x);
}

NOINLINE unsigned long
resolver_parse (unsigned long x)
{
  return burn_cpu (step_ns, x);
}

NOINLINE unsigned long
resolver_sort (unsigned long x)
{
  return burn_cpu (step_ns, x);
}

NOINLINE unsigned long
resolver_format (unsigned long x)
{
  return burn_cpu (step_ns, x);
}

static void *
resolver_thread (void *arg)
{
  (void) arg;
  set_comm ("resolver");
  unsigned long x = resolver_read_hosts (3);
  x = resolver_parse (x);
  x = resolver_sort (x);
  x = resolver_format (x);
  workload_sink = x;
  /* Sets the flag and wakes nobody: the bug the paper found in curl. */
  atomic_store (&resolved, 1);
  return NULL;
}

/* The main thread's wait: poll with a timeout until the flag is set. */
NOINLINE unsigned long
wait_resolved (int timeout_ms)
{
  unsigned long polls = 0;
  while (!atomic_load (&resolved))
    {
      if (poll (NULL, 0, timeout_ms) < 0 && errno != EINTR)
        die ("poll");
      polls++;
    }
  return polls;
}

int
main (int argc, char **argv)
{
  workload_name = "poll_flag";
  int timeout_ms = argc > 1 ? atoi (argv[1]) : 5;
  long long work_ms = argc > 2 ? strtoll (argv[2], NULL, 0) : 200;
  step_ns = work_ms * NS_PER_MS / 4;
  pthread_t thread;
  int err = pthread_create (&thread, NULL, resolver_thread, NULL);
  if (err != 0)
    {
      errno = err;
      die ("pthread_create");
    }
  unsigned long polls = wait_resolved (timeout_ms);
  pthread_join (thread, NULL);
  printf ("poll_flag: %lu polls of %d ms for %lld ms of resolver work\n", polls, timeout_ms, work_ms);
  return 0;
}
