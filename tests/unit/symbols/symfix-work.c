/* Workload for checking DWARF unwinding against perf: nested calls in a
 * binary built without frame pointers, busy for the given milliseconds.
 *   perf record --call-graph dwarf -e cpu-clock/freq=1000/ -- symfix-work 300
 * Every sample's user stack should read work_leaf, work_middle, work_outer,
 * main, ... */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__ ((noinline)) void
work_leaf (unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    sink += i * i;
  __asm__ volatile ("" ::: "memory");
}

static __attribute__ ((noinline)) void
work_middle (unsigned long n)
{
  work_leaf (n);
  __asm__ volatile ("" ::: "memory");
}

static __attribute__ ((noinline)) void
work_outer (unsigned long n)
{
  work_middle (n);
  __asm__ volatile ("" ::: "memory");
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main (int argc, char **argv)
{
  double ms = argc > 1 ? atof (argv[1]) : 200;
  double end = now_ms () + ms;

  while (now_ms () < end)
    work_outer (100000);
  return 0;
}
