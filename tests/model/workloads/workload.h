/* workload.h — shared bits of the model scenario workloads (tests/model/).
 *
 * Each workload plants one known cause of slowness.  CPU work is measured
 * in the calling thread's CPU time, so a workload takes about the same time
 * on a fast and a slow machine and a preempted thread still does all of its
 * work.  The burn loop is always inlined, so that the samples land in the
 * named (noinline) function that calls it: that name is what the tests look
 * for on the stacks.
 */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline))
#define ALWAYS_INLINE inline __attribute__ ((always_inline))
#define UNUSED __attribute__ ((unused))

#define NS_PER_MS 1000000L
#define NS_PER_US 1000L

static volatile unsigned long workload_sink UNUSED;
static const char *workload_name UNUSED = "workload";

static UNUSED void
die (const char *what)
{
  fprintf (stderr, "%s: %s: %s\n", workload_name, what, strerror (errno));
  exit (1);
}

static ALWAYS_INLINE long long
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static ALWAYS_INLINE long long
monotonic_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Burns NS nanoseconds of this thread's CPU time in the caller's frame.
 * The clock is read every ~100 µs of arithmetic, so the samples that land
 * in clock_gettime stay well under 1%. */
static ALWAYS_INLINE unsigned long
burn_cpu (long long ns, unsigned long x)
{
  long long end = thread_cpu_ns () + ns;
  x |= 1;
  do
    {
      for (int i = 0; i < 50000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL + (x >> 29);
      workload_sink = x;
    }
  while (thread_cpu_ns () < end);
  return x;
}

/* Names the calling thread (its comm), so that reports tell the roles of
 * a workload apart. */
static UNUSED void
set_comm (const char *name)
{
  if (prctl (PR_SET_NAME, name, 0, 0, 0) < 0)
    die ("prctl(PR_SET_NAME)");
  workload_name = name;
}

/* Reads or writes exactly SIZE bytes (pipes, stream sockets). */
static UNUSED void
read_full (int fd, void *buf, size_t size)
{
  size_t got = 0;
  while (got < size)
    {
      ssize_t n = read (fd, (char *) buf + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("read");
      if (n == 0)
        {
          errno = EPIPE;
          die ("read: unexpected end of stream");
        }
      got += (size_t) n;
    }
}

static UNUSED void
write_full (int fd, const void *buf, size_t size)
{
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (fd, (const char *) buf + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("write");
      done += (size_t) n;
    }
}
