/* mutex_sleep — a thread sleeps while it holds a mutex that the main
 * thread needs.
 *
 * Usage: mutex_sleep [ROUNDS [SLEEP_MS]]   (defaults: 3 rounds, 100 ms)
 * Each round starts a thread named "holder" that locks the mutex, tells the
 * main thread, sleeps SLEEP_MS with the mutex held (holder_sleeps, nanosleep),
 * unlocks it and carries on with 2 ms of its own work (holder_after), as
 * threads do after they release a lock; the main thread (waiter_blocks)
 * blocks on the mutex meanwhile (futex wait), then joins the holder.
 * Planted cause: the holder's deliberate sleep, on the main thread's
 * behalf: main thread (futex) → holder (nanosleep).
 */
#include "workload.h"

#include <pthread.h>
#include <semaphore.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t locked;
static long sleep_ms;

NOINLINE void
holder_sleeps (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * NS_PER_MS };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* The holder's work after the unlock: not on the main thread's behalf. */
NOINLINE unsigned long
holder_after (unsigned long x)
{
  return burn_cpu (2 * NS_PER_MS, x);
}

static void *
holder_thread (void *arg)
{
  (void) arg;
  set_comm ("holder");
  pthread_mutex_lock (&lock);
  sem_post (&locked);
  holder_sleeps (sleep_ms);
  pthread_mutex_unlock (&lock);
  workload_sink = holder_after (7);
  return NULL;
}

NOINLINE void
waiter_blocks (void)
{
  pthread_mutex_lock (&lock);
  pthread_mutex_unlock (&lock);
}

int
main (int argc, char **argv)
{
  workload_name = "mutex_sleep";
  unsigned long rounds = argc > 1 ? strtoul (argv[1], NULL, 0) : 3;
  sleep_ms = argc > 2 ? strtol (argv[2], NULL, 0) : 100;
  if (sem_init (&locked, 0, 0) < 0)
    die ("sem_init");
  for (unsigned long i = 0; i < rounds; i++)
    {
      pthread_t thread;
      int err = pthread_create (&thread, NULL, holder_thread, NULL);
      if (err != 0)
        {
          errno = err;
          die ("pthread_create");
        }
      while (sem_wait (&locked) < 0 && errno == EINTR)
        ;
      waiter_blocks ();
      pthread_join (thread, NULL);
    }
  printf ("mutex_sleep: %lu rounds of %ld ms\n", rounds, sleep_ms);
  return 0;
}
