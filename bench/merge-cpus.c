/* merge-cpus.c — what the readers' two merges cost per event as the
 * number of CPUs grows: perf's records through the ordered queue (one
 * lane per CPU, popped in time order as perf's rounds allow) and the
 * tracefs instance's events through its stream (one cursor per CPU's
 * buffer).  A recording made on a machine with N CPUs has N lanes and N
 * cursors; this VM has 2, so the events here are made up: each CPU's in
 * time order, the CPUs interleaved at random, as perf and the kernel's
 * ring buffer write them.  Prints a Markdown table of nanoseconds per
 * event (the best of REPS runs) for each number of CPUs.
 *
 *   merge-cpus [--events N] [--reps N] [CPUS...]   (default 2 8 32 64 128 256)
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "ftrace-synth.h"
#include "rsp-ftrace-reader.h"
#include "rsp-ordered-queue.h"
#include "rsp-perf-reader-private.h"
#include "rsp-perf-reader.h"

/* perf's rounds: each CPU's records of a round are pushed together (the
 * file holds each CPU's buffer as it was flushed), and a round's records
 * are popped once the next round is in, as FINISHED_ROUND allows. */
#define ROUND_NS 100000

typedef struct {
  guint64 time;
  guint32 cpu;
} Made;

static gint
by_cpu_then_time (gconstpointer a, gconstpointer b)
{
  const Made *x = a, *y = b;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* N_EVENTS events over N_CPUS CPUs, at random times in N_EVENTS / 10 µs,
 * sorted by CPU then time. */
static Made *
make_events (guint n_cpus, guint n_events, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  Made *made = g_new (Made, n_events);
  guint64 span = (guint64) n_events * 100;
  for (guint i = 0; i < n_events; i++)
    made[i] = (Made){ (guint64) g_rand_double_range (rand, 1000, (gdouble) span), (guint32) g_rand_int_range (rand, 0, (gint32) n_cpus) };
  qsort (made, n_events, sizeof *made, by_cpu_then_time);
  g_rand_free (rand);
  return made;
}

static gdouble
now (void)
{
  return (gdouble) g_get_monotonic_time () / 1e6;
}

/* Seconds for all of MADE through the ordered queue, round by round. */
static gdouble
time_queue (const Made *made, guint n_events, guint n_cpus, guint64 *checksum)
{
  /* where each CPU's events start in MADE (FIRST[N_CPUS]: the end), and
   * its next one to push */
  guint *first = g_new0 (guint, n_cpus + 1);
  for (guint i = 0; i < n_events; i++)
    first[made[i].cpu + 1]++;
  for (guint c = 0; c < n_cpus; c++)
    first[c + 1] += first[c];
  guint *next = g_memdup2 (first, n_cpus * sizeof *first);
  RspOrderedQueue q;
  rsp_ordered_queue_init (&q);
  guint64 sum = 0, pushed = 0;
  gdouble start = now ();
  for (guint64 round_end = ROUND_NS;; round_end += ROUND_NS)
    {
      gboolean more = FALSE;
      for (guint c = 0; c < n_cpus; c++)
        {
          guint end = first[c + 1];
          for (; next[c] < end && made[next[c]].time < round_end; next[c]++)
            {
              RspQueuedRecord r = { made[next[c]].time, ++pushed * 8, 0, 8 };
              rsp_ordered_queue_push (&q, &r, (gint32) c);
            }
          more = more || next[c] < end;
        }
      /* the round before this one is final */
      const RspQueuedRecord *top;
      while ((top = rsp_ordered_queue_peek (&q)) != NULL && (!more || top->time < round_end - ROUND_NS))
        {
          RspQueuedRecord out;
          rsp_ordered_queue_pop (&q, &out);
          sum = sum * 31 + out.offset;
        }
      if (!more)
        break;
    }
  gdouble seconds = now () - start;
  rsp_ordered_queue_clear (&q);
  g_free (first);
  g_free (next);
  if (pushed != n_events)
    {
      g_printerr ("merge-cpus: %" G_GUINT64_FORMAT " of %u records pushed\n", pushed, n_events);
      exit (1);
    }
  *checksum = sum;
  return seconds;
}

static gboolean
no_perf (gpointer data, RspEvent *ev)
{
  (void) data;
  (void) ev;
  return FALSE;
}

/* The instance's section holding MADE (sched_waking events). */
static GByteArray *
make_section (const Made *made, guint n_events, guint n_cpus)
{
  GByteArray **cpus = g_new0 (GByteArray *, n_cpus);
  guint64 times[WAKINGS_PER_SUBBUF];
  gint32 pids[WAKINGS_PER_SUBBUF];
  guint i = 0;
  for (guint c = 0; c < n_cpus; c++)
    {
      cpus[c] = g_byte_array_new ();
      guint in_sub = 0;
      for (; i < n_events && made[i].cpu == c; i++)
        {
          /* a sub-buffer's events are within 2^27 ns of its first */
          if (in_sub == WAKINGS_PER_SUBBUF || (in_sub > 0 && made[i].time - times[0] >= (1u << 26)))
            {
              add_subbuf (cpus[c], times, pids, in_sub, 0);
              in_sub = 0;
            }
          times[in_sub] = made[i].time;
          pids[in_sub] = (gint32) (i % 30000 + 1);
          in_sub++;
        }
      if (in_sub > 0)
        add_subbuf (cpus[c], times, pids, in_sub, 0);
    }
  GByteArray *sec = section (cpus, n_cpus);
  for (guint c = 0; c < n_cpus; c++)
    g_byte_array_unref (cpus[c]);
  g_free (cpus);
  return sec;
}

/* Seconds for all of the section's events through the instance's stream
 * (no perf events beside them). */
static gdouble
time_instance (const GByteArray *sec, guint n_events, guint64 *checksum)
{
  /* the stream adds its evsels, as the reader's list holds them */
  g_autoptr (GPtrArray) evsels = g_ptr_array_new_with_free_func (rsp_perf_evsel_free);
  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  if (s == NULL)
    {
      g_printerr ("merge-cpus: %s\n", error->message);
      exit (1);
    }
  guint64 sum = 0, n = 0;
  gdouble start = now ();
  const RspEvent *ev;
  while ((ev = rsp_ftrace_stream_next_ref (s, no_perf, NULL)) != NULL)
    {
      sum = sum * 31 + ev->time;
      n++;
    }
  gdouble seconds = now () - start;
  if (n != n_events)
    {
      g_printerr ("merge-cpus: %" G_GUINT64_FORMAT " of %u instance events read\n", n, n_events);
      exit (1);
    }
  rsp_ftrace_stream_free (s);
  *checksum = sum;
  return seconds;
}

int
main (int argc, char **argv)
{
  gint n_events = 1000000, reps = 5;
  g_auto (GStrv) rest = NULL;
  const GOptionEntry entries[] = {
    { "events", 0, 0, G_OPTION_ARG_INT, &n_events, "Events per run (default 1000000)", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Runs of each, the best taken (default 5)", "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, "CPUS" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the readers' merges per event against the number of CPUs");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || n_events < 1 || reps < 1)
    {
      g_printerr ("merge-cpus: %s\n", error != NULL ? error->message : "--events and --reps want 1 or more");
      return 2;
    }
  guint default_cpus[] = { 2, 8, 32, 64, 128, 256 };
  guint n_sizes = rest != NULL ? g_strv_length (rest) : G_N_ELEMENTS (default_cpus);
  printf ("| CPUs | perf's records, ordered queue: ns per record | instance events, stream: ns per event |\n");
  printf ("|---:|---:|---:|\n");
  for (guint k = 0; k < n_sizes; k++)
    {
      guint n_cpus = rest != NULL ? (guint) g_ascii_strtoull (rest[k], NULL, 10) : default_cpus[k];
      if (n_cpus < 1 || n_cpus > 4096)
        {
          g_printerr ("merge-cpus: %u CPUs: give 1 to 4096\n", n_cpus);
          return 2;
        }
      Made *made = make_events (n_cpus, (guint) n_events, 1);
      g_autoptr (GByteArray) sec = make_section (made, (guint) n_events, n_cpus);
      gdouble best_q = G_MAXDOUBLE, best_i = G_MAXDOUBLE;
      guint64 sum_q = 0, sum_i = 0;
      for (gint r = 0; r < reps; r++)
        {
          best_q = MIN (best_q, time_queue (made, (guint) n_events, n_cpus, &sum_q));
          best_i = MIN (best_i, time_instance (sec, (guint) n_events, &sum_i));
        }
      printf ("| %u | %.1f | %.1f |\n", n_cpus, best_q * 1e9 / n_events, best_i * 1e9 / n_events);
      fflush (stdout);
      /* the checksums keep the loops' work from being optimised away */
      if (sum_q == 42 && sum_i == 42)
        printf ("\n");
      g_free (made);
    }
  return 0;
}
