/* test-ordered-queue.c — the reader's queue of pending records
 * (rsp-ordered-queue.h): whatever the order of pushes, peeks and pops, a
 * pop returns the oldest pending record by (time, offset), and a peek
 * returns what the next pop will. */
#include <glib.h>

#include "rsp-ordered-queue.h"

typedef struct {
  RspQueuedRecord r;
  gint32 cpu;
} Pending;

static gboolean
before (const RspQueuedRecord *a, const RspQueuedRecord *b)
{
  return a->time != b->time ? a->time < b->time : a->offset < b->offset;
}

/* The oldest of PENDING (a plain scan: the reference). */
static guint
reference_oldest (GArray *pending)
{
  guint best = 0;
  for (guint i = 1; i < pending->len; i++)
    if (before (&g_array_index (pending, Pending, i).r, &g_array_index (pending, Pending, best).r))
      best = i;
  return best;
}

static void
check_pop (RspOrderedQueue *q, GArray *pending)
{
  guint want = reference_oldest (pending);
  const RspQueuedRecord *top = rsp_ordered_queue_peek (q);
  g_assert_nonnull (top);
  g_assert_cmpuint (top->offset, ==, g_array_index (pending, Pending, want).r.offset);
  /* a second peek, with nothing in between, says the same */
  g_assert_true (rsp_ordered_queue_peek (q) == top);
  RspQueuedRecord out;
  rsp_ordered_queue_pop (q, &out);
  g_assert_cmpuint (out.offset, ==, g_array_index (pending, Pending, want).r.offset);
  g_assert_cmpuint (out.time, ==, g_array_index (pending, Pending, want).r.time);
  g_array_remove_index_fast (pending, want);
  g_assert_cmpuint (q->len, ==, pending->len);
}

/* Per-CPU runs in time order, as perf writes them, with records that fall
 * behind their CPU's tail, records of no CPU, equal times, CPUs appearing
 * late (the lanes grow while the heap holds the oldest), and pushes, peeks
 * and pops interleaved. */
static void
test_random (void)
{
  for (guint32 seed = 1; seed <= 200; seed++)
    {
      GRand *rand = g_rand_new_with_seed (seed);
      RspOrderedQueue q;
      rsp_ordered_queue_init (&q);
      GArray *pending = g_array_new (FALSE, FALSE, sizeof (Pending));
      /* one seed in four: as many CPUs as a large machine's (the winner
       * tree of the sources then has levels and leaves standing for none) */
      guint n_cpus = (guint) g_rand_int_range (rand, 1, 9);
      if (seed % 4 == 0)
        n_cpus = 9 + seed % 61;
      guint64 clock[70] = { 0 };
      guint cpus_every = n_cpus <= 8 ? 300 : 2700 / n_cpus;
      guint64 offset = 0;
      for (guint step = 0; step < 3000; step++)
        {
          gint what = g_rand_int_range (rand, 0, 10);
          if (what < 6 || pending->len == 0)
            {
              Pending p = { 0 };
              gint kind = g_rand_int_range (rand, 0, 20);
              /* CPUs beyond the first few appear later in the stream */
              guint cpu = (guint) g_rand_int_range (rand, 0, (gint) MIN (n_cpus, 1 + step / cpus_every));
              p.cpu = kind == 0 ? -1 : (gint32) cpu;
              if (kind == 1 && clock[cpu] > 50)
                p.r.time = clock[cpu] - (guint64) g_rand_int_range (rand, 1, 50); /* behind its CPU */
              else
                {
                  clock[cpu] += (guint64) g_rand_int_range (rand, 0, 4); /* 0: the same time again */
                  p.r.time = clock[cpu];
                }
              p.r.offset = offset += 8;
              p.r.evsel = (guint32) step;
              p.r.size = 8;
              rsp_ordered_queue_push (&q, &p.r, p.cpu);
              g_array_append_val (pending, p);
              g_assert_cmpuint (q.len, ==, pending->len);
            }
          else if (what < 9)
            check_pop (&q, pending);
          else
            {
              /* a peek alone, then more pushes: what it found may be outdone */
              const RspQueuedRecord *top = rsp_ordered_queue_peek (&q);
              g_assert_cmpuint (top->offset, ==,
                                g_array_index (pending, Pending, reference_oldest (pending)).r.offset);
            }
        }
      while (pending->len > 0)
        check_pop (&q, pending);
      g_assert_null (rsp_ordered_queue_peek (&q));
      g_assert_cmpuint (rsp_ordered_queue_min_offset (&q), ==, G_MAXUINT64);
      rsp_ordered_queue_clear (&q);
      g_array_unref (pending);
      g_rand_free (rand);
    }
}

/* The oldest record in the heap, found by a peek; then CPU 3's lane is
 * made (the heap's place among the sources moves) and an older record
 * goes to an empty lane: each peek and pop still finds the oldest. */
static void
test_new_lanes (void)
{
  RspOrderedQueue q;
  rsp_ordered_queue_init (&q);
  RspQueuedRecord heap_rec = { 100, 8, 0, 8 }, lane_rec = { 200, 16, 0, 8 }, older = { 50, 24, 0, 8 };
  rsp_ordered_queue_push (&q, &heap_rec, -1);
  g_assert_cmpuint (rsp_ordered_queue_peek (&q)->offset, ==, 8);
  rsp_ordered_queue_push (&q, &lane_rec, 3);
  g_assert_cmpuint (rsp_ordered_queue_peek (&q)->offset, ==, 8);
  rsp_ordered_queue_push (&q, &older, 1);
  g_assert_cmpuint (rsp_ordered_queue_peek (&q)->offset, ==, 24);
  RspQueuedRecord out;
  guint64 order[] = { 24, 8, 16 };
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      rsp_ordered_queue_pop (&q, &out);
      g_assert_cmpuint (out.offset, ==, order[i]);
    }
  g_assert_null (rsp_ordered_queue_peek (&q));
  rsp_ordered_queue_clear (&q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ordered-queue/random", test_random);
  g_test_add_func ("/ordered-queue/new-lanes", test_new_lanes);
  return g_test_run ();
}
