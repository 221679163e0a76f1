/* calls — one process calling serve_one COUNT times, every EVERY-th call
 * slow: what `rsp record --probe BINARY:serve_one` and `rsp report
 * --requests probe:serve_one` are for.  Each call does 2 ms of CPU in
 * serve_work; every EVERY-th also sleeps SLOW_MS in slow_path.  Between
 * calls main does 1 ms of CPU in between_calls, which is no request's.
 *
 * Usage: calls [COUNT [EVERY [SLOW_MS]]]   (defaults: 40, 5, 30)
 * Planted cause: the slow calls sleep SLOW_MS in slow_path; the others
 * never do.
 */
#include "workload.h"

NOINLINE unsigned long
serve_work (unsigned long x)
{
  return burn_cpu (2 * NS_PER_MS, x);
}

NOINLINE void
slow_path (long long ns)
{
  struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

NOINLINE unsigned long
serve_one (long i, long every, long long slow_ns)
{
  unsigned long x = serve_work ((unsigned long) i);
  if (every > 0 && i % every == every - 1)
    slow_path (slow_ns);
  return x;
}

NOINLINE unsigned long
between_calls (unsigned long x)
{
  return burn_cpu (1 * NS_PER_MS, x);
}

int
main (int argc, char **argv)
{
  workload_name = "calls";
  long count = argc > 1 ? strtol (argv[1], NULL, 0) : 40;
  long every = argc > 2 ? strtol (argv[2], NULL, 0) : 5;
  long long slow_ns = (argc > 3 ? strtoll (argv[3], NULL, 0) : 30) * NS_PER_MS;
  unsigned long x = 1;
  for (long i = 0; i < count; i++)
    {
      x += serve_one (i, every, slow_ns);
      x = between_calls (x);
    }
  workload_sink = x;
  return 0;
}
