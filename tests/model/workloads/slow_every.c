/* slow_every — one request per run, every EVERY-th one slow: what
 * `rsp record --repeat N` and `rsp report --requests runs` are for.
 * Each run does FAST_MS of CPU in handle_request; the runs whose number
 * (counted in COUNTER_FILE, which the runs share) is a multiple of EVERY
 * also sleep SLOW_MS in slow_path, which the other runs never reach.
 *
 * Usage: slow_every COUNTER_FILE [EVERY [FAST_MS [SLOW_MS]]]
 *        (defaults: every 5th run, 5 ms of CPU, 40 ms of sleep)
 * Planted cause: the slow tail is EVERY-th run, and its extra time is
 * SLOW_MS of deliberate sleep in slow_every.
 */
#include "workload.h"

NOINLINE unsigned long
handle_request (long long work_ns, unsigned long x)
{
  return burn_cpu (work_ns, x);
}

NOINLINE void
slow_path (long long sleep_ns)
{
  struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* This run's number, from 1, and the next one's written back. */
static long
next_run_number (const char *path)
{
  long n = 0;
  FILE *f = fopen (path, "r");
  if (f != NULL)
    {
      if (fscanf (f, "%ld", &n) != 1)
        n = 0;
      fclose (f);
    }
  n++;
  f = fopen (path, "w");
  if (f == NULL)
    die (path);
  fprintf (f, "%ld\n", n);
  if (fclose (f) != 0)
    die (path);
  return n;
}

int
main (int argc, char **argv)
{
  workload_name = "slow_every";
  if (argc < 2)
    {
      fprintf (stderr, "usage: slow_every COUNTER_FILE [EVERY [FAST_MS [SLOW_MS]]]\n");
      return 2;
    }
  long every = argc > 2 ? strtol (argv[2], NULL, 0) : 5;
  long long fast_ns = (argc > 3 ? strtoll (argv[3], NULL, 0) : 5) * NS_PER_MS;
  long long slow_ns = (argc > 4 ? strtoll (argv[4], NULL, 0) : 40) * NS_PER_MS;
  long n = next_run_number (argv[1]);
  handle_request (fast_ns, (unsigned long) n);
  if (every > 0 && n % every == 0)
    slow_path (slow_ns);
  return 0;
}
