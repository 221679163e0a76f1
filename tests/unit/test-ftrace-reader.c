/* test-ftrace-reader.c — the ftrace section's decoder and its merge with
 * perf's events (src/collector/rsp-ftrace-reader.c), on sections built
 * here byte by byte as rsp-ftrace-section.h lays them out and as the
 * kernel's ring buffer writes its sub-buffers. */
#include <glib.h>
#include <string.h>
#include <sys/mman.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "rsp-ftrace-reader.h"
#include "ftrace-synth.h"
#include "rsp-ftrace-section.h"
#include "rsp-perf-reader.h"
#include "rsp-perf-reader-private.h"
#include "rsp-tid-map.h"
#include "../../fuzz/reader-digest.h"

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* perf's side: a fixed list of sched_waking samples of perf's evsel */
typedef struct {
  RspEvsel *evsel;
  guint8 payloads[8][WAKING_SIZE + 4];
  guint64 times[8];
  gint32 cpus[8];
  guint n, next;
} FakePerf;

static gboolean
fake_pull (gpointer data, RspEvent *ev)
{
  FakePerf *p = data;
  if (p->next >= p->n)
    return FALSE;
  guint i = p->next++;
  memset (ev, 0, sizeof *ev);
  ev->type = PERF_RECORD_SAMPLE;
  ev->evsel = p->evsel;
  ev->has_time = TRUE;
  ev->time = p->times[i];
  ev->cpu = p->cpus[i];
  ev->pid = ev->tid = 7;
  ev->sample.raw = p->payloads[i];
  ev->sample.raw_size = WAKING_SIZE + 4; /* perf pads to keep 8-byte alignment */
  return TRUE;
}

static void
fake_add (FakePerf *p, guint64 time, gint32 cpu, gint32 pid, gboolean garbage)
{
  guint i = p->n++;
  waking_payload (p->payloads[i], 7, "dd", pid);
  if (garbage)
    {
      /* what perf's buffer held after the comm's NUL and in the padding */
      memset (p->payloads[i] + 11, 0x70, 13);
      memset (p->payloads[i] + WAKING_SIZE, 0x5a, 4);
      p->payloads[i][2] = 0x0d; /* common_flags differ between channels */
    }
  p->times[i] = time;
  p->cpus[i] = cpu;
}

/* as the reader's array frees its evsels: the instance's own their names */
static void
evsel_free (gpointer data)
{
  RspEvsel *evsel = data;
  if (evsel->ftrace)
    g_free (evsel->name);
  g_free (evsel);
}

static GPtrArray *
perf_evsels (FakePerf *p)
{
  GPtrArray *evsels = g_ptr_array_new_with_free_func (evsel_free);
  RspEvsel *evsel = g_new0 (RspEvsel, 1);
  evsel->index = 0;
  evsel->attr.type = PERF_TYPE_TRACEPOINT;
  evsel->attr.config = WAKING_ID;
  evsel->name = (char *) "sched:sched_waking";
  g_ptr_array_add (evsels, evsel);
  p->evsel = evsel;
  return evsels;
}


static void
test_merge_and_twins (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  /* perf: t=100 µs (pid 10), 300 µs (pid 30, a twin of the instance's),
   * 500 µs (pid 50, whose instance copy is 60 µs away: not a twin) */
  fake_add (&perf, 100000, 0, 10, FALSE);
  fake_add (&perf, 300000, 0, 30, TRUE);
  fake_add (&perf, 500000, 0, 50, FALSE);

  GByteArray *cpu0 = g_byte_array_new (), *cpu1 = g_byte_array_new ();
  guint64 t0[] = { 200000, 299200, 560000 };
  gint32 p0[] = { 20, 30, 50 };
  add_subbuf (cpu0, t0, p0, 3, 0);
  guint64 t1[] = { 250000 };
  gint32 p1[] = { 25 };
  add_subbuf (cpu1, t1, p1, 1, 0);
  GByteArray *cpus[] = { cpu0, cpu1 };
  g_autoptr (GByteArray) sec = section (cpus, 2);

  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_cmpuint (evsels->len, ==, 2);
  const RspEvsel *ours = g_ptr_array_index (evsels, 1);
  g_assert_true (ours->ftrace);
  g_assert_cmpstr (ours->name, ==, "sched:sched_waking");

  guint64 want_time[] = { 100000, 200000, 250000, 300000, 500000, 560000 };
  gint32 want_pid[] = { 10, 20, 25, 30, 50, 50 };
  gboolean want_ftrace[] = { FALSE, TRUE, TRUE, FALSE, FALSE, TRUE };
  RspEvent ev;
  guint n = 0;
  while (rsp_ftrace_stream_next (s, fake_pull, &perf, &ev))
    {
      g_assert_cmpuint (n, <, G_N_ELEMENTS (want_time));
      g_assert_cmpuint (ev.time, ==, want_time[n]);
      g_assert_cmpint (ev.evsel->ftrace, ==, want_ftrace[n]);
      gint32 pid;
      memcpy (&pid, ev.sample.raw + 24, 4);
      g_assert_cmpint (pid, ==, want_pid[n]);
      if (ev.evsel->ftrace)
        {
          g_assert_cmpint (ev.cpu, ==, ev.time == 250000 ? 1 : 0);
          g_assert_cmpint (ev.tid, ==, 7); /* common_pid */
          g_assert_cmpint (ev.pid, ==, 7); /* learnt from perf's samples of tid 7 */
        }
      n++;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (want_time));
  const RspFtraceStats *st = rsp_ftrace_stream_get_stats (s);
  g_assert_cmpuint (st->events, ==, 4);
  g_assert_cmpuint (st->twins, ==, 1);
  g_assert_cmpuint (st->delivered, ==, 3);
  g_assert_cmpuint (st->subbuffers, ==, 2);
  g_assert_cmpuint (st->bad_subbuffers, ==, 0);

  /* rewind: the same sequence again */
  rsp_ftrace_stream_rewind (s);
  perf.next = 0;
  n = 0;
  while (rsp_ftrace_stream_next (s, fake_pull, &perf, &ev))
    n++;
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (want_time));
  g_assert_cmpuint (rsp_ftrace_stream_get_stats (s)->twins, ==, 1);

  rsp_ftrace_stream_free (s);
  g_byte_array_unref (cpu0);
  g_byte_array_unref (cpu1);
  g_ptr_array_unref (evsels);
}

/* The instance's CPUs merged in time order, the lower CPU first at the
 * same time, for as many CPUs as a large machine has (the winner tree of
 * the cursors: levels, leaves standing for no CPU, CPUs that run dry
 * early and CPUs with nothing), against a sort of all the events. */
static void
test_many_cpus (void)
{
  for (guint32 seed = 1; seed <= 12; seed++)
    {
      GRand *rand = g_rand_new_with_seed (seed);
      guint n_cpus = seed == 1 ? 1 : (guint) g_rand_int_range (rand, 2, 80);
      GByteArray **cpus = g_new0 (GByteArray *, n_cpus);
      g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (guint64)); /* time << 8 | cpu */
      for (guint c = 0; c < n_cpus; c++)
        {
          cpus[c] = g_byte_array_new ();
          /* one CPU in five without events; the others 1 to 250 of them */
          guint n = g_rand_int_range (rand, 0, 5) == 0 ? 0 : (guint) g_rand_int_range (rand, 1, 251);
          guint64 t = 1000 + (guint64) g_rand_int_range (rand, 0, 3000);
          guint64 times[WAKINGS_PER_SUBBUF];
          gint32 pids[WAKINGS_PER_SUBBUF];
          guint in_sub = 0;
          for (guint i = 0; i < n; i++)
            {
              t += (guint64) g_rand_int_range (rand, 0, 40); /* 0: the same time again; CPUs meet */
              times[in_sub] = t;
              pids[in_sub] = (gint32) (c * 1000 + i);
              g_array_append_val (all, (guint64){ t << 8 | c });
              if (++in_sub == WAKINGS_PER_SUBBUF || i + 1 == n)
                {
                  add_subbuf (cpus[c], times, pids, in_sub, 0);
                  in_sub = 0;
                }
            }
        }
      g_array_sort (all, compare_u64);
      g_autoptr (GByteArray) sec = section (cpus, n_cpus);
      FakePerf perf = { 0 };
      GPtrArray *evsels = perf_evsels (&perf);
      g_autoptr (GError) error = NULL;
      RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
      g_assert_no_error (error);
      for (guint pass = 0; pass < 2; pass++)
        {
          const RspEvent *ev;
          guint k = 0;
          while ((ev = rsp_ftrace_stream_next_ref (s, fake_pull, &perf)) != NULL)
            {
              g_assert_cmpuint (k, <, all->len);
              guint64 want = g_array_index (all, guint64, k);
              g_assert_cmpuint (ev->time, ==, want >> 8);
              g_assert_cmpint (ev->cpu, ==, (gint32) (want & 0xff));
              k++;
            }
          g_assert_cmpuint (k, ==, all->len);
          rsp_ftrace_stream_rewind (s); /* the same again */
          perf.next = 0;
        }
      rsp_ftrace_stream_free (s);
      g_ptr_array_unref (evsels);
      for (guint c = 0; c < n_cpus; c++)
        g_byte_array_unref (cpus[c]);
      g_free (cpus);
      g_rand_free (rand);
    }
}

/* perf's events long before the instance's first one (its events start
 * late, or come after an idle stretch) are delivered as they come, not all
 * held until the instance catches up; the order and the twins do not
 * change. */
static void
test_gap_before_instance (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  for (guint i = 0; i < 6; i++)
    fake_add (&perf, 100000 + i * 100000, 0, 10 + (gint32) i, FALSE); /* 100 µs .. 600 µs */
  fake_add (&perf, 5000000, 0, 99, FALSE);                             /* 5 ms: a twin */
  GByteArray *cpu0 = g_byte_array_new ();
  guint64 t0[] = { 4999000, 5000010 };
  gint32 p0[] = { 98, 99 };
  add_subbuf (cpu0, t0, p0, 2, 0);
  GByteArray *cpus[] = { cpu0 };
  g_autoptr (GByteArray) sec = section (cpus, 1);

  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  g_assert_no_error (error);
  RspEvent ev;
  guint64 last = 0;
  guint n = 0;
  while (rsp_ftrace_stream_next (s, fake_pull, &perf, &ev))
    {
      g_assert_cmpuint (ev.time, >=, last);
      last = ev.time;
      n++;
    }
  g_assert_cmpuint (n, ==, 8); /* 7 of perf's, 2 of the instance's, one of them a twin */
  const RspFtraceStats *st = rsp_ftrace_stream_get_stats (s);
  g_assert_cmpuint (st->twins, ==, 1);
  g_assert_cmpuint (st->max_held, <=, 2);
  rsp_ftrace_stream_free (s);
  g_byte_array_unref (cpu0);
  g_ptr_array_unref (evsels);
}

/* A run of the same event repeated within the twin window, one of it lost
 * by one channel: the others pair with their own copies, and the lost
 * one's copy from the other channel is delivered at its own time.  Before,
 * each instance event took the next one's perf copy and the last of the
 * run came out in place of the first, later by the run's length. */
static void
test_twins_in_a_run (void)
{
  for (guint lost_in_perf = 0; lost_in_perf < 2; lost_in_perf++)
    {
      FakePerf perf = { 0 };
      GPtrArray *evsels = perf_evsels (&perf);
      guint64 t[6];
      gint32 pids[6];
      guint n = 0;
      for (guint i = 0; i < 6; i++)
        {
          guint64 at = 1000000 + i * 10000; /* every 10 µs, pid 42 */
          if (!lost_in_perf || i > 0)
            fake_add (&perf, at + 1000, 0, 42, FALSE); /* perf 1 µs later */
          if (lost_in_perf || i > 0)
            {
              t[n] = at;
              pids[n++] = 42;
            }
        }
      GByteArray *cpu0 = g_byte_array_new ();
      add_subbuf (cpu0, t, pids, n, 0);
      GByteArray *cpus[] = { cpu0 };
      g_autoptr (GByteArray) sec = section (cpus, 1);
      g_autoptr (GError) error = NULL;
      RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
      g_assert_no_error (error);
      const RspEvent *ev;
      guint delivered = 0, from_instance = 0;
      guint64 instance_time = 0, last = 0;
      while ((ev = rsp_ftrace_stream_next_ref (s, fake_pull, &perf)) != NULL)
        {
          g_assert_cmpuint (ev->time, >=, last);
          last = ev->time;
          delivered++;
          if (ev->evsel->ftrace)
            {
              from_instance++;
              instance_time = ev->time;
            }
        }
      /* six events: five pairs, and the one copy of the lost one */
      g_assert_cmpuint (delivered, ==, 6);
      g_assert_cmpuint (rsp_ftrace_stream_get_stats (s)->twins, ==, 5);
      g_assert_cmpuint (from_instance, ==, lost_in_perf ? 1 : 0);
      if (lost_in_perf)
        g_assert_cmpuint (instance_time, ==, 1000000);
      rsp_ftrace_stream_free (s);
      g_byte_array_unref (cpu0);
      g_ptr_array_unref (evsels);
    }
}

/* New CPU blocks (here none) while an instance event waits behind a perf
 * event: the stream forgets the old cursors, their event included (it
 * read a freed cursor, and delivered that event again). */
static void
test_load_cpus_forgets (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  fake_add (&perf, 500, 0, 1, FALSE); /* before the instance's events */
  GByteArray *cpu0 = g_byte_array_new ();
  guint64 t0[] = { 1000000, 2000000 };
  gint32 p0[] = { 5, 6 };
  add_subbuf (cpu0, t0, p0, 2, 0);
  GByteArray *cpus[] = { cpu0 };
  g_autoptr (GByteArray) sec = section (cpus, 1);

  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  g_assert_no_error (error);
  const RspEvent *ev = rsp_ftrace_stream_next_ref (s, fake_pull, &perf);
  g_assert_nonnull (ev);
  g_assert_false (ev->evsel->ftrace); /* perf's, the instance's next waits */
  g_assert_true (rsp_ftrace_stream_load_cpus (s, (const guint8 *) "", 0));
  g_assert_cmpuint (rsp_ftrace_stream_get_n_cpus (s), ==, 0);
  g_assert_null (rsp_ftrace_stream_next_ref (s, fake_pull, &perf));
  g_assert_cmpuint (rsp_ftrace_stream_get_stats (s)->delivered, ==, 0);
  rsp_ftrace_stream_free (s);
  g_byte_array_unref (cpu0);
  g_ptr_array_unref (evsels);
}

/* Reads the events from DATA (the file's bytes, possibly at an address
 * that is not 8-aligned) into a digest of every event (reader-digest.h). */
/* ... with slabs of SLAB_WORDS (0: the default), the instance ending after
 * MAX_FTRACE of its events (G_MAXUINT64: at its end), the most bytes of
 * aligned copies at once in *PEAK. */
static guint64
event_digest_slabs (const guint8 *data, gsize size, gsize slab_words, guint64 max_ftrace, gsize *peak,
                    guint *n_events, guint *n_ftrace)
{
  g_autoptr (GError) error = NULL;
  RspPerfReader *reader = rsp_perf_reader_open_bytes (data, size, &error);
  g_assert_no_error (error);
  rsp_perf_reader_set_aligned_slab_words (reader, slab_words);
  if (reader->ftrace != NULL)
    rsp_ftrace_stream_set_max_events (reader->ftrace, max_ftrace);
  RspEvent ev;
  guint64 h = READER_DIGEST_SEED;
  *n_events = *n_ftrace = 0;
  while (rsp_perf_reader_next (reader, &ev))
    {
      h = reader_digest_event (h, &ev);
      (*n_events)++;
      if (ev.evsel != NULL && ev.evsel->ftrace)
        (*n_ftrace)++;
    }
  if (peak != NULL)
    *peak = rsp_perf_reader_get_aligned_bytes_peak (reader);
  rsp_perf_reader_free (reader);
  return h;
}

static guint64
event_digest (const guint8 *data, gsize size, guint *n_events, guint *n_ftrace)
{
  return event_digest_slabs (data, size, 0, G_MAXUINT64, NULL, n_events, n_ftrace);
}

/* A recording whose records are not 8-aligned in memory (perf inject -b
 * makes one) reads the same: its records are decoded from aligned copies
 * that stay valid while the merge with the ftrace section holds perf's
 * events (a single reused copy left the held events pointing at the next
 * record, or at freed memory).  With slabs of 512 bytes (a record or two
 * each, so that they are recycled all the time) it reads the same again,
 * and the slabs hold a small part of the file at any time: the copies of
 * the records read and no longer held are freed. */
static void
test_unaligned_records (void)
{
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "dio_ftrace.rsp", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  guint n, n_ftrace, n_shifted, n_ftrace_shifted;
  guint64 aligned = event_digest ((const guint8 *) contents, length, &n, &n_ftrace);
  g_assert_cmpuint (n_ftrace, >, 0);
  g_autofree guint8 *buffer = g_malloc (length + 8);
  memcpy (buffer + 4, contents, length);
  guint64 shifted = event_digest (buffer + 4, length, &n_shifted, &n_ftrace_shifted);
  g_assert_cmpuint (n_shifted, ==, n);
  g_assert_cmpuint (n_ftrace_shifted, ==, n_ftrace);
  g_assert_cmpuint (shifted, ==, aligned);
  g_test_message ("%u events (%u from the ftrace section) alike from 8-aligned and shifted bytes", n, n_ftrace);
  gsize peak = 0, tiny_peak = 0;
  guint64 tiny = event_digest_slabs (buffer + 4, length, 64, G_MAXUINT64, &tiny_peak, &n_shifted, &n_ftrace_shifted);
  g_assert_cmpuint (n_shifted, ==, n);
  g_assert_cmphex (tiny, ==, aligned);
  event_digest_slabs (buffer + 4, length, 0, G_MAXUINT64, &peak, &n_shifted, &n_ftrace_shifted);
  /* the perf part of the file is most of it; the slabs at any time a tenth */
  g_assert_cmpuint (tiny_peak, >, 0);
  g_assert_cmpuint (tiny_peak, <, length / 10);
  g_test_message ("aligned copies at most %" G_GSIZE_FORMAT " bytes in 512-byte slabs, %" G_GSIZE_FORMAT
                  " in the default ones, of a %" G_GSIZE_FORMAT "-byte file", tiny_peak, peak, length);
  /* the instance ending before perf's stream (early, after some of its
   * events had twin candidates kept): those are let go, and the copies
   * stay as few (they were kept to the end, pinning every slab after) */
  const guint64 ends[] = { 7, 40, 256 };
  for (guint k = 0; k < G_N_ELEMENTS (ends); k++)
    {
      guint n_early, n_ftrace_early;
      gsize early_peak = 0;
      event_digest_slabs (buffer + 4, length, 64, ends[k], &early_peak, &n_early, &n_ftrace_early);
      g_assert_cmpuint (n_ftrace_early, <=, ends[k]);
      g_assert_cmpuint (n_early - n_ftrace_early, ==, n - n_ftrace); /* perf's events all there */
      g_assert_cmpuint (early_peak, <, length / 10);
      g_test_message ("the instance ending after %" G_GUINT64_FORMAT " events: %" G_GSIZE_FORMAT
                      " bytes of copies at most", ends[k], early_peak);
    }
}

/* The digest of READER's events from where it is to the end; their number
 * in *N_EVENTS. */
static guint64
read_all (RspPerfReader *reader, guint *n_events)
{
  guint64 h = READER_DIGEST_SEED;
  const RspEvent *ev;
  *n_events = 0;
  while ((ev = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      h = reader_digest_event (h, ev);
      (*n_events)++;
    }
  return h;
}

/* Reads all of READER, rewinds it and reads it again: the digest of both
 * reads (which must agree). */
static guint64
read_twice (RspPerfReader *reader, guint *n_events)
{
  guint again;
  guint64 first = read_all (reader, n_events);
  rsp_perf_reader_rewind (reader);
  g_assert_cmphex (read_all (reader, &again), ==, first);
  g_assert_cmpuint (again, ==, *n_events);
  return first;
}

/* The pages of the sub-buffers read are given back where the recording is
 * a mapped file (here a page at a time), and what is read is the same, also
 * read again after a rewind (they are mapped in again); never where the
 * bytes are the caller's own memory (giving back anonymous memory would
 * zero it). */
static void
test_release_read_pages (void)
{
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "dio_ftrace.rsp", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));

  g_autoptr (GError) error = NULL;
  g_autoptr (RspPerfReader) bytes = rsp_perf_reader_open_bytes ((const guint8 *) contents, length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes->ftrace);
  rsp_ftrace_stream_set_release_chunk (bytes->ftrace, 1);
  guint n_bytes, n_mapped;
  guint64 from_bytes = read_twice (bytes, &n_bytes);
  g_assert_cmpuint (rsp_ftrace_stream_get_stats (bytes->ftrace)->released, ==, 0);
  g_autofree char *again = NULL;
  g_assert_true (g_file_get_contents (path, &again, NULL, NULL));
  g_assert_true (memcmp (contents, again, length) == 0); /* the caller's bytes untouched */

  g_autoptr (RspPerfReader) mapped = rsp_perf_reader_open (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (mapped->ftrace);
  rsp_ftrace_stream_set_release_chunk (mapped->ftrace, 1);
  guint64 h = read_all (mapped, &n_mapped);
  guint64 released = rsp_ftrace_stream_get_stats (mapped->ftrace)->released;
  g_assert_cmpuint (released, >, 0);
  g_assert_cmpuint (n_mapped, ==, n_bytes);
  g_assert_cmphex (h, ==, from_bytes);
  rsp_perf_reader_rewind (mapped);
  guint n_again;
  g_assert_cmphex (read_twice (mapped, &n_again), ==, from_bytes);

  /* which pages go: a file's come back unchanged, so to see a page given
   * back too early the bytes are anonymous memory here, told to be a
   * mapped file: a page given back reads as zeros from then on.  One read
   * must give every event as it is: nothing is given back before the
   * stream is done with it (the sub-buffer of the event it returns next
   * included) */
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize span = (length + page - 1) / page * page;
  guint8 *anon = mmap (NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (anon != MAP_FAILED);
  memcpy (anon, contents, length);
  {
    g_autoptr (RspPerfReader) told = rsp_perf_reader_open_bytes (anon, length, &error);
    g_assert_no_error (error);
    rsp_ftrace_stream_set_file_mapped (told->ftrace);
    rsp_ftrace_stream_set_release_chunk (told->ftrace, 1);
    guint n_told;
    guint64 ht = read_all (told, &n_told);
    g_assert_cmpuint (rsp_ftrace_stream_get_stats (told->ftrace)->released, ==, released);
    g_assert_cmpuint (n_told, ==, n_bytes);
    g_assert_cmphex (ht, ==, from_bytes);
  }
  guint zero_pages = 0;
  for (gsize p = 0; p < span; p += page)
    {
      gboolean zero = TRUE;
      for (gsize b = 0; b < page && zero; b++)
        zero = anon[p + b] == 0;
      zero_pages += zero;
    }
  g_assert_cmpuint (zero_pages, >=, released / page); /* they were given back */
  munmap (anon, span);
  g_test_message ("%u events; %" G_GUINT64_FORMAT " bytes of sub-buffers given back in one read", n_bytes, released);
}

static void
test_damaged_subbuffer (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  GByteArray *cpu0 = g_byte_array_new ();
  guint64 t[] = { 1000, 2000 };
  gint32 p[] = { 1, 2 };
  add_subbuf (cpu0, t, p, 2, SUBBUF * 2); /* commit past the sub-buffer */
  guint64 t2[] = { 3000 };
  gint32 p2[] = { 3 };
  add_subbuf (cpu0, t2, p2, 1, 0);
  /* an event whose length word points far past its sub-buffer (found by
   * fuzzing: libtraceevent's kbuffer read there before checking) */
  {
    guint8 page[SUBBUF] = { 0 };
    guint64 base = 4000, commit = 64;
    memcpy (page, &base, 8);
    memcpy (page + 8, &commit, 8);
    guint32 header = 0 | (5u << 5); /* type_len 0: the length follows */
    guint32 length = 0x7ffffff0;
    memcpy (page + 16, &header, 4);
    memcpy (page + 20, &length, 4);
    g_byte_array_append (cpu0, page, SUBBUF);
  }
  /* and a partial sub-buffer at the end */
  g_byte_array_append (cpu0, (const guint8 *) "partial", 7);
  GByteArray *cpus[] = { cpu0 };
  g_autoptr (GByteArray) sec = section (cpus, 1);

  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  g_assert_no_error (error);
  RspEvent ev;
  guint n = 0;
  while (rsp_ftrace_stream_next (s, fake_pull, &perf, &ev))
    {
      g_assert_cmpuint (ev.time, ==, 3000);
      n++;
    }
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (rsp_ftrace_stream_get_stats (s)->bad_subbuffers, ==, 3);
  rsp_ftrace_stream_free (s);
  g_byte_array_unref (cpu0);
  g_ptr_array_unref (evsels);
}

static void
test_truncated_section (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  GByteArray *cpu0 = g_byte_array_new ();
  guint64 t[] = { 1000 };
  gint32 p[] = { 1 };
  add_subbuf (cpu0, t, p, 1, 0);
  GByteArray *cpus[] = { cpu0 };
  g_autoptr (GByteArray) sec = section (cpus, 1);

  /* every cut either reads (up to the last whole sub-buffer) or fails with
   * an error, and a failure leaves perf's evsels as they were */
  for (guint cut = 0; cut < sec->len; cut += 7)
    {
      g_autoptr (GError) error = NULL;
      RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, cut, evsels, &error);
      if (s == NULL)
        {
          g_assert_nonnull (error);
          g_assert_cmpuint (evsels->len, ==, 1);
          continue;
        }
      RspEvent ev;
      while (rsp_ftrace_stream_next (s, fake_pull, &perf, &ev))
        ;
      rsp_ftrace_stream_free (s);
      g_ptr_array_set_size (evsels, 1);
      perf.next = 0;
    }
  g_autoptr (GError) error = NULL;
  g_assert_null (rsp_ftrace_stream_new ((const guint8 *) "RSPFTR99", 8, evsels, &error));
  g_assert_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT);
  g_byte_array_unref (cpu0);
  g_ptr_array_unref (evsels);
}

/* rsp_ftrace_stream_next_ref(): the same sequence as the copying call,
 * without a copy.  The instance's events come from one event of the
 * stream's that is never cleared: every field that fill_event() does not
 * set must stay zero, also after perf's events (which set them) went by. */
static void
test_next_ref (void)
{
  FakePerf perf = { 0 };
  GPtrArray *evsels = perf_evsels (&perf);
  fake_add (&perf, 100000, 0, 10, FALSE);
  fake_add (&perf, 300000, 0, 30, TRUE);
  fake_add (&perf, 500000, 0, 50, FALSE);
  GByteArray *cpu0 = g_byte_array_new ();
  guint64 t0[] = { 200000, 299200, 560000 };
  gint32 p0[] = { 20, 30, 50 };
  add_subbuf (cpu0, t0, p0, 3, 0);
  GByteArray *cpus[] = { cpu0 };
  g_autoptr (GByteArray) sec = section (cpus, 1);
  g_autoptr (GError) error = NULL;
  RspFtraceStream *s = rsp_ftrace_stream_new (sec->data, sec->len, evsels, &error);
  g_assert_no_error (error);

  guint64 want_time[] = { 100000, 200000, 300000, 500000, 560000 };
  gboolean want_ftrace[] = { FALSE, TRUE, FALSE, FALSE, TRUE };
  RspEvent copies[G_N_ELEMENTS (want_time)];
  guint n = 0;
  const RspEvent *ev;
  while ((ev = rsp_ftrace_stream_next_ref (s, fake_pull, &perf)) != NULL)
    {
      g_assert_cmpuint (n, <, G_N_ELEMENTS (want_time));
      g_assert_cmpuint (ev->time, ==, want_time[n]);
      g_assert_cmpint (ev->evsel->ftrace, ==, want_ftrace[n]);
      if (ev->evsel->ftrace)
        {
          g_assert_null (ev->record);
          g_assert_cmpuint (ev->file_offset, ==, 0);
          g_assert_cmpuint (ev->sample.n_callchain, ==, 0);
          g_assert_null (ev->sample.callchain);
          g_assert_null (ev->u.comm.comm);
          g_assert_cmpuint (ev->u.mmap.len, ==, 0);
        }
      copies[n++] = *ev;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (want_time));
  g_assert_cmpuint (rsp_ftrace_stream_get_stats (s)->twins, ==, 1);

  /* the copying call gives the same events */
  rsp_ftrace_stream_rewind (s);
  perf.next = 0;
  RspEvent copy;
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (rsp_ftrace_stream_next (s, fake_pull, &perf, &copy));
      g_assert_cmpuint (copy.type, ==, copies[i].type);
      g_assert_true (copy.evsel == copies[i].evsel);
      g_assert_cmpuint (copy.time, ==, copies[i].time);
      g_assert_cmpint (copy.cpu, ==, copies[i].cpu);
      g_assert_cmpint (copy.pid, ==, copies[i].pid);
      g_assert_cmpint (copy.tid, ==, copies[i].tid);
      g_assert_true (copy.sample.raw == copies[i].sample.raw);
      g_assert_cmpuint (copy.sample.raw_size, ==, copies[i].sample.raw_size);
      g_assert_true (copy.record == copies[i].record);
      g_assert_cmpuint (copy.sample.n_callchain, ==, copies[i].sample.n_callchain);
    }
  g_assert_false (rsp_ftrace_stream_next (s, fake_pull, &perf, &copy));
  rsp_ftrace_stream_free (s);
  g_byte_array_unref (cpu0);
  g_ptr_array_unref (evsels);
}

/* ---------------------------------------------------------------- the scanning thread */

/* Reads DATA with THREADS (and a scanning ring of RING records and AHEAD
 * bytes, 0 for the defaults) up to STOP_AFTER events (0: all): the digest
 * of every event in order, then of the reader's figures and warnings. */
static guint64
threaded_digest (const guint8 *data, gsize size, guint threads, guint32 ring, guint64 ahead, guint stop_after,
                 guint *n_events)
{
  g_autoptr (GError) error = NULL;
  RspPerfReader *reader = rsp_perf_reader_open_bytes (data, size, &error);
  g_assert_no_error (error);
  rsp_perf_reader_set_threads (reader, threads);
  if (ring != 0)
    rsp_perf_reader_set_scan_ring (reader, ring, ahead);
  guint64 h = READER_DIGEST_SEED;
  guint n = 0;
  const RspEvent *ev;
  while ((stop_after == 0 || n < stop_after) && (ev = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      h = reader_digest_event (h, ev);
      n++;
    }
  if (stop_after == 0)
    h = reader_digest_figures (h, reader);
  rsp_perf_reader_free (reader);
  *n_events = n;
  return h;
}

/* With a scanning thread, a reader gives the same events in the same
 * order, the same figures and the same warnings, whatever the size of
 * the ring between the threads (2 records: both wait all the time; or 4 kB
 * of records), also
 * from cut and damaged files; stopped or freed half-way, it neither hangs
 * nor leaks (ASan). */
static void
test_scanning_thread (void)
{
  guint unknown_id_files = 0;
  const char *names[] = { "dio_ftrace.rsp", "pingpong.rsp", "tcp_loop.rsp", "pingpong-plain.perf.data",
                          "requests.rsp" };
  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    {
      g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", names[f], NULL);
      g_autofree char *contents = NULL;
      gsize length;
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      /* the whole file; cut at two places; a record's size damaged */
      g_autofree guint8 *damaged = g_memdup2 (contents, length);
      const RspPerfHeader *header;
      {
        g_autoptr (RspPerfReader) probe = rsp_perf_reader_open_bytes (damaged, length, NULL);
        g_assert_nonnull (probe);
        header = rsp_perf_reader_get_header (probe);
        /* a record about half-way: walk the sizes from the start */
        guint64 pos = header->data_offset, half = header->data_offset + header->data_size / 2;
        while (pos < half)
          {
            guint16 rec_size;
            memcpy (&rec_size, damaged + pos + 6, 2);
            g_assert_cmpuint (rec_size, >=, 8);
            if (pos + rec_size >= half)
              break;
            pos += rec_size;
          }
        guint16 bad = 12; /* not a multiple of 8 */
        memcpy (damaged + pos + 6, &bad, 2);
      }
      struct {
        const guint8 *data;
        gsize size;
      } variants[] = {
        { (const guint8 *) contents, length },
        { (const guint8 *) contents, length * 2 / 3 },
        { (const guint8 *) contents, length / 3 },
        { damaged, length },
      };
      for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
        {
          guint n1, n2;
          guint64 one = threaded_digest (variants[v].data, variants[v].size, 1, 0, 0, 0, &n1);
          g_assert_cmpuint (n1, >, 0);
          /* records; bytes (4 kB: a few records, fewer than the ring holds) */
          guint32 rings[] = { 2, 64, 4096, 0 };
          guint64 aheads[] = { 0, 0, 4096, 0 };
          for (guint r = 0; r < G_N_ELEMENTS (rings); r++)
            {
              guint64 two = threaded_digest (variants[v].data, variants[v].size, 2, rings[r], aheads[r], 0, &n2);
              g_assert_cmpuint (n2, ==, n1);
              g_assert_cmphex (two, ==, one);
            }
          /* stopped half-way: the first half is the same, and freeing the
           * reader stops its thread */
          guint64 half1 = threaded_digest (variants[v].data, variants[v].size, 1, 0, 0, n1 / 2, &n2);
          guint64 half2 = threaded_digest (variants[v].data, variants[v].size, 2, 4, 0, n1 / 2, &n2);
          g_assert_cmphex (half2, ==, half1);
          /* stopped after each of the first events, with a ring of 2: the
           * reader stops the thread in every state it can be in (waiting
           * for room, scanning, handing over; ASan checks what is freed) */
          for (guint k = 0; k < 48 && k < n1; k++)
            threaded_digest (variants[v].data, variants[v].size, 2, 2, 0, k, &n2);
          g_test_message ("%s, %zu of %zu bytes%s: %u events alike on 1 and 2 threads", names[f],
                          variants[v].size, length, v == 3 ? ", damaged" : "", n1);
        }

      /* a sample whose id matches no event, in the last round (the first
       * event is delivered after the second round, so one thread has not
       * scanned that far then); the reader rewound after its first event,
       * when the scanning thread has long found that sample: the warning
       * still comes once, as on one thread (the thread's flag said
       * "warned" for a warning nobody took) */
      {
        g_autofree guint8 *bad_id = g_memdup2 (contents, length);
        g_autoptr (RspPerfReader) probe = rsp_perf_reader_open_bytes (bad_id, length, NULL);
        g_assert_true (probe->all_have_identifier);
        guint64 rounds[8], target = 0;
        guint n_rounds = 0;
        for (guint64 pos = probe->data_start; pos + 8 <= probe->data_end;)
          {
            guint32 type;
            guint16 rec_size;
            memcpy (&type, bad_id + pos, 4);
            memcpy (&rec_size, bad_id + pos + 6, 2);
            if (type == RSP_RECORD_FINISHED_ROUND && n_rounds < G_N_ELEMENTS (rounds))
              rounds[n_rounds++] = pos;
            if (type == PERF_RECORD_SAMPLE && n_rounds >= 2 && target == 0)
              target = pos;
            pos += rec_size;
          }
        /* with fewer rounds, all of it is scanned before the first event */
        guint64 nobody = 0x7777777777777777ull;
        if (n_rounds >= 3 && target > rounds[1] && target < rounds[n_rounds - 1])
          {
            memcpy (bad_id + target + 8, &nobody, 8);
            unknown_id_files++;
          }
        g_autofree char *want = NULL;
        for (guint threads = 1; threads <= 2 && n_rounds >= 3 && target > 0; threads++)
          {
            g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_bytes (bad_id, length, NULL);
            rsp_perf_reader_set_threads (reader, threads);
            g_assert_nonnull (rsp_perf_reader_next_ref (reader));
            g_usleep (50000);
            rsp_perf_reader_rewind (reader);
            while (rsp_perf_reader_next_ref (reader) != NULL)
              ;
            g_assert_cmpuint (rsp_perf_reader_get_stats (reader)->unknown_ids, ==, 1);
            char *joined = g_strjoinv ("\n", (char **) rsp_perf_reader_warnings (reader));
            g_assert_nonnull (strstr (joined, "matches no event"));
            if (threads == 1)
              want = joined;
            else
              {
                g_assert_cmpstr (joined, ==, want);
                g_free (joined);
              }
          }
      }

      /* rewound half-way through, then read again: the whole of it */
      {
        g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_bytes ((const guint8 *) contents, length, NULL);
        rsp_perf_reader_set_threads (reader, 2);
        rsp_perf_reader_set_scan_ring (reader, 8, 0);
        guint n = 0;
        while (n < 100 && rsp_perf_reader_next_ref (reader) != NULL)
          n++;
        rsp_perf_reader_rewind (reader);
        guint again = 0;
        while (rsp_perf_reader_next_ref (reader) != NULL)
          again++;
        guint n1;
        threaded_digest ((const guint8 *) contents, length, 1, 0, 0, 0, &n1);
        g_assert_cmpuint (again, ==, n1);
        g_assert_cmpuint (rsp_perf_reader_get_stats (reader)->records, <=, n1);
      }
    }
  /* every file but the plain perf.data has three rounds or more */
  g_assert_cmpuint (unknown_id_files, ==, G_N_ELEMENTS (names) - 1);
}

/* The reader's tid -> pointer map: paged below 2^22, a hash table for the
 * rest (-1, ids past the kernel's limit). */
/* ---------------------------------------------------------------- without print fmts */

/* Every event, figure and warning, and every tracepoint field (but the
 * flags libtraceevent takes from a print fmt), are the same when a
 * recording is read without its formats' print fmts (as the model reads
 * it); only printing a tracepoint gives nothing. */
/* A (read whole) and B (read without print fmts) are the same evsel with
 * the same format: fields, types, offsets, sizes, and flags but those
 * libtraceevent takes from a print fmt.  TRUE when it is a tracepoint. */
static gboolean
assert_same_format (const RspEvsel *a, const RspEvsel *b)
{
  const unsigned long print_flags = TEP_FIELD_IS_FLAG | TEP_FIELD_IS_SYMBOLIC;
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_true ((a->tp == NULL) == (b->tp == NULL));
  if (a->tp == NULL)
    return FALSE;
  g_assert_cmpint (a->tp->id, ==, b->tp->id);
  const struct tep_format_field *fa = a->tp->format.fields, *fb = b->tp->format.fields;
  for (; fa != NULL && fb != NULL; fa = fa->next, fb = fb->next)
    {
      g_assert_cmpstr (fa->name, ==, fb->name);
      g_assert_cmpstr (fa->type, ==, fb->type);
      g_assert_cmpint (fa->offset, ==, fb->offset);
      g_assert_cmpint (fa->size, ==, fb->size);
      g_assert_cmphex (fa->flags & ~print_flags, ==, fb->flags & ~print_flags);
    }
  g_assert_true (fa == NULL && fb == NULL);
  return TRUE;
}

static void
test_no_print (void)
{
  const char *names[] = { "dio_ftrace.rsp", "pingpong.rsp", "tcp_loop.rsp", "pingpong-plain.perf.data",
                          "requests.rsp" };
  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    {
      g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", names[f], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (RspPerfReader) full = rsp_perf_reader_open (path, &error);
      g_assert_no_error (error);
      g_autoptr (RspPerfReader) fields = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
      g_assert_no_error (error);

      guint n_tracepoints = 0;
      g_assert_cmpuint (rsp_perf_reader_get_n_evsels (fields), ==, rsp_perf_reader_get_n_evsels (full));
      for (guint i = 0; i < rsp_perf_reader_get_n_evsels (full); i++)
        n_tracepoints += assert_same_format (rsp_perf_reader_get_evsel (full, i), rsp_perf_reader_get_evsel (fields, i));
      g_assert_cmpuint (n_tracepoints, >, 0);

      guint64 ha = READER_DIGEST_SEED, hb = READER_DIGEST_SEED;
      const RspEvent *ev;
      guint printed = 0, n = 0;
      g_autoptr (GString) line = g_string_new (NULL);
      while ((ev = rsp_perf_reader_next_ref (full)) != NULL)
        {
          ha = reader_digest_event (ha, ev);
          g_string_truncate (line, 0);
          if (rsp_event_format_tracepoint (ev, rsp_perf_reader_get_tep (full), line) && line->len > 0)
            printed++;
        }
      while ((ev = rsp_perf_reader_next_ref (fields)) != NULL)
        {
          hb = reader_digest_event (hb, ev);
          g_string_truncate (line, 0);
          rsp_event_format_tracepoint (ev, rsp_perf_reader_get_tep (fields), line);
          g_assert_cmpuint (line->len, ==, 0);
          n++;
        }
      g_assert_cmpuint (printed, >, 0);
      g_assert_cmphex (reader_digest_figures (hb, fields), ==, reader_digest_figures (ha, full));
      g_test_message ("%s: %u events, %u tracepoints printed when read whole", names[f], n, printed);
    }
}

/* Read without print fmts (as the model reads), the instance's formats are
 * parsed when the first event of their type is read: every event arrives
 * with its format, the formats of types the recording never saw stay
 * unparsed until their evsel is asked for, and then they are what a
 * reader that parses every format gives.  The events are those of the
 * whole read. */
static void
test_formats_when_used (void)
{
  const char *names[] = { "dio_ftrace.rsp", "pingpong.rsp", "tcp_loop.rsp", "requests.rsp" };
  guint unparsed_total = 0;
  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    {
      g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", names[f], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (RspPerfReader) full = rsp_perf_reader_open (path, &error);
      g_assert_no_error (error);
      g_autoptr (RspPerfReader) lazy = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
      g_assert_no_error (error);
      guint n = lazy->evsels->len;
      g_autofree guint64 *count = g_new0 (guint64, n);
      guint64 ha = READER_DIGEST_SEED, hb = READER_DIGEST_SEED;
      const RspEvent *ev;
      while ((ev = rsp_perf_reader_next_ref (lazy)) != NULL)
        {
          hb = reader_digest_event (hb, ev);
          if (ev->evsel != NULL)
            {
              count[ev->evsel->index]++;
              if (ev->evsel->ftrace)
                g_assert_nonnull (ev->evsel->tp);
            }
        }
      while ((ev = rsp_perf_reader_next_ref (full)) != NULL)
        ha = reader_digest_event (ha, ev);
      g_assert_cmphex (reader_digest_figures (hb, lazy), ==, reader_digest_figures (ha, full));

      guint unparsed = 0;
      for (guint i = 0; i < n; i++)
        {
          const RspEvsel *e = g_ptr_array_index (lazy->evsels, i);
          if (e->ftrace && e->tp == NULL)
            {
              /* a twin type's events may all have gone as twins: then
               * its format was read to compare them */
              g_assert_cmpuint (count[i], ==, 0);
              unparsed++;
            }
        }
      unparsed_total += unparsed;
      /* asked for, each evsel has the format the whole read gives */
      g_assert_cmpuint (rsp_perf_reader_get_n_evsels (lazy), ==, rsp_perf_reader_get_n_evsels (full));
      for (guint i = 0; i < n; i++)
        assert_same_format (rsp_perf_reader_get_evsel (full, i), rsp_perf_reader_get_evsel (lazy, i));
      g_test_message ("%s: %u of the instance's formats never needed", names[f], unparsed);
    }
  g_assert_cmpuint (unparsed_total, >, 0);
}

/* The instance's events a reader has no use for, stepped over
 * (rsp_perf_reader_skip_instance_events()): on real recordings, every other
 * event comes as before and in the same order, and those stepped over are
 * counted with their time range; a type perf records too (its events are
 * matched with perf's) is never stepped over; keeping them all again and
 * rewinding reads as before. */
static const char *const unused_names[] = { "sched:sched_wakeup", "timer:hrtimer_start", "timer:hrtimer_cancel",
                                            "sched:sched_waking", "block:block_rq_insert", NULL };

static gboolean
keep_used (const char *name)
{
  return !g_strv_contains (unused_names, name);
}

typedef struct {
  guint64 time;
  guint evsel; /* G_MAXUINT: none */
  gint32 cpu, tid;
  guint32 type;
} Seen;

static GArray *
read_seen (RspPerfReader *reader)
{
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  const RspEvent *ev;
  while ((ev = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      Seen s = { ev->time, ev->evsel != NULL ? ev->evsel->index : G_MAXUINT, ev->cpu, ev->tid, ev->type };
      g_array_append_val (seen, s);
    }
  return seen;
}

static gboolean
seen_skippable (const Seen *s, const gboolean *skipped)
{
  return s->evsel != G_MAXUINT && skipped[s->evsel];
}

static void
test_skip_unused (void)
{
  /* a recording without the instance has nothing to step over */
  {
    g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "pingpong.rsp", NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rsp_perf_reader_skip_instance_events (reader, keep_used), ==, 0);
    g_assert_null (rsp_perf_reader_get_skipped (reader));
  }
  const char *names[] = { "dio_ftrace.rsp", "requests.rsp", "cold_read_files.rsp", "diff-before.rsp", "diff-after.rsp" };
  guint64 skipped_total = 0;
  guint refused_total = 0;
  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    {
      g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", names[f], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (RspPerfReader) all = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
      g_assert_no_error (error);
      g_autoptr (RspPerfReader) some = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
      g_assert_no_error (error);
      g_assert_nonnull (rsp_perf_reader_get_skipped (some));
      guint n = some->evsels->len;
      g_autofree gboolean *skipped = g_new0 (gboolean, n);
      guint n_skipped = rsp_perf_reader_skip_instance_events (some, keep_used), n_refused = 0;
      for (guint i = 0; i < n; i++)
        {
          const RspEvsel *e = g_ptr_array_index (some->evsels, i);
          if (!e->ftrace || keep_used (e->name))
            continue;
          /* perf's evsel of the same name: a twin type */
          gboolean twin = FALSE;
          for (guint k = 0; k < n; k++)
            {
              const RspEvsel *p = g_ptr_array_index (some->evsels, k);
              twin |= !p->ftrace && p->attr.type == PERF_TYPE_TRACEPOINT && g_strcmp0 (p->name, e->name) == 0;
            }
          skipped[i] = !twin;
          n_refused += twin;
        }
      guint expected = 0;
      for (guint i = 0; i < n; i++)
        expected += skipped[i];
      g_assert_cmpuint (n_skipped, ==, expected);
      refused_total += n_refused;

      g_autoptr (GArray) a = read_seen (all);
      g_autoptr (GArray) b = read_seen (some);
      /* every event of another type, in the same order */
      guint j = 0, delivered_skippable = 0;
      guint64 n_away = 0, first = 0, last = 0;
      for (guint i = 0; i < a->len; i++)
        {
          const Seen *x = &g_array_index (a, Seen, i);
          /* the first event of each CPU was read before the skipping began */
          if (seen_skippable (x, skipped) && j < b->len && memcmp (x, &g_array_index (b, Seen, j), sizeof *x) == 0
              && delivered_skippable < rsp_ftrace_stream_get_n_cpus (some->ftrace))
            {
              delivered_skippable++;
              j++;
              continue;
            }
          if (seen_skippable (x, skipped))
            {
              n_away++;
              if (x->time > 0 && (first == 0 || x->time < first))
                first = x->time;
              last = MAX (last, x->time);
              continue;
            }
          g_assert_cmpuint (j, <, b->len);
          const Seen *y = &g_array_index (b, Seen, j++);
          g_assert_cmpuint (x->time, ==, y->time);
          g_assert_cmpuint (x->evsel, ==, y->evsel);
          g_assert_cmpint (x->cpu, ==, y->cpu);
          g_assert_cmpint (x->tid, ==, y->tid);
          g_assert_cmpuint (x->type, ==, y->type);
        }
      g_assert_cmpuint (j, ==, b->len);
      const RspFtraceSkipped *away = rsp_perf_reader_get_skipped (some);
      g_assert_cmpuint (away->events, ==, n_away);
      g_assert_cmpuint (away->first_time, ==, first);
      g_assert_cmpuint (away->last_time, ==, last);
      /* decoded all the same, and the twins matched as before */
      const RspFtraceStats *sa = rsp_perf_reader_get_ftrace_stats (all), *sb = rsp_perf_reader_get_ftrace_stats (some);
      g_assert_cmpuint (sb->events, ==, sa->events);
      g_assert_cmpuint (sb->twins, ==, sa->twins);
      g_assert_cmpuint (sb->unknown_ids, ==, sa->unknown_ids);
      g_assert_cmpuint (sb->delivered + n_away, ==, sa->delivered);
      skipped_total += n_away;
      g_test_message ("%s: %" G_GUINT64_FORMAT " of %u events stepped over, %u types refused", names[f], n_away,
                      a->len, n_refused);

      /* kept again and read from the start: as the other reader */
      g_assert_cmpuint (rsp_perf_reader_skip_instance_events (some, NULL), ==, 0);
      rsp_perf_reader_rewind (some);
      g_assert_cmpuint (rsp_perf_reader_get_skipped (some)->events, ==, 0);
      g_autoptr (GArray) c = read_seen (some);
      g_assert_cmpuint (c->len, ==, a->len);
      g_assert_true (memcmp (c->data, a->data, a->len * sizeof (Seen)) == 0);
      g_assert_cmpuint (rsp_perf_reader_get_skipped (some)->events, ==, 0);
    }
  /* the recordings hold such events, and a type perf records too */
  g_assert_cmpuint (skipped_total, >, 500);
  g_assert_cmpuint (refused_total, >, 0);
}

static void
test_tid_map (void)
{
  RspTidMap *map = rsp_tid_map_new ();
  gint32 tids[] = { 0, 1, 255, 256, 40000, (1 << 22) - 1, 1 << 22, -1, G_MAXINT32, G_MININT32 };
  for (guint i = 0; i < G_N_ELEMENTS (tids); i++)
    g_assert_null (rsp_tid_map_lookup (map, tids[i]));
  for (guint i = 0; i < G_N_ELEMENTS (tids); i++)
    rsp_tid_map_insert (map, tids[i], GUINT_TO_POINTER (i + 1));
  for (guint i = 0; i < G_N_ELEMENTS (tids); i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (rsp_tid_map_lookup (map, tids[i])), ==, i + 1);
  /* neighbours of stored ids are not found */
  g_assert_null (rsp_tid_map_lookup (map, 2));
  g_assert_null (rsp_tid_map_lookup (map, 257));
  g_assert_null (rsp_tid_map_lookup (map, (1 << 22) - 2));
  g_assert_null (rsp_tid_map_lookup (map, (1 << 22) + 1));
  g_assert_null (rsp_tid_map_lookup (map, -2));
  /* a new value replaces the old */
  rsp_tid_map_insert (map, 40000, GUINT_TO_POINTER (77));
  rsp_tid_map_insert (map, -1, GUINT_TO_POINTER (78));
  g_assert_cmpuint (GPOINTER_TO_UINT (rsp_tid_map_lookup (map, 40000)), ==, 77);
  g_assert_cmpuint (GPOINTER_TO_UINT (rsp_tid_map_lookup (map, -1)), ==, 78);
  rsp_tid_map_remove_all (map);
  for (guint i = 0; i < G_N_ELEMENTS (tids); i++)
    g_assert_null (rsp_tid_map_lookup (map, tids[i]));
  rsp_tid_map_insert (map, 40001, GUINT_TO_POINTER (5));
  g_assert_cmpuint (GPOINTER_TO_UINT (rsp_tid_map_lookup (map, 40001)), ==, 5);
  /* pages all over the range (the map keeps a list of those it allocated,
   * which clearing and freeing walk): every one cleared, none leaked
   * (the sanitizer builds), the kept pages used again */
  for (guint round = 0; round < 2; round++)
    {
      for (guint32 p = round; p < RSP_TID_MAP_N_PAGES; p += 37)
        rsp_tid_map_insert (map, (gint32) (p * RSP_TID_MAP_PAGE_SLOTS + 3), GUINT_TO_POINTER (p + 1));
      for (guint32 p = round; p < RSP_TID_MAP_N_PAGES; p += 37)
        g_assert_cmpuint (GPOINTER_TO_UINT (rsp_tid_map_lookup (map, (gint32) (p * RSP_TID_MAP_PAGE_SLOTS + 3))), ==,
                          p + 1);
      rsp_tid_map_remove_all (map);
      for (guint32 p = 0; p < RSP_TID_MAP_N_PAGES; p++)
        g_assert_null (rsp_tid_map_lookup (map, (gint32) (p * RSP_TID_MAP_PAGE_SLOTS + 3)));
    }
  g_assert_null (rsp_tid_map_lookup (map, 40001));
  rsp_tid_map_free (map);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ftrace-reader/merge-and-twins", test_merge_and_twins);
  g_test_add_func ("/ftrace-reader/many-cpus", test_many_cpus);
  g_test_add_func ("/ftrace-reader/gap-before-instance", test_gap_before_instance);
  g_test_add_func ("/ftrace-reader/load-cpus-forgets", test_load_cpus_forgets);
  g_test_add_func ("/ftrace-reader/twins-in-a-run", test_twins_in_a_run);
  g_test_add_func ("/ftrace-reader/unaligned-records", test_unaligned_records);
  g_test_add_func ("/ftrace-reader/release-read-pages", test_release_read_pages);
  g_test_add_func ("/ftrace-reader/damaged-subbuffer", test_damaged_subbuffer);
  g_test_add_func ("/ftrace-reader/truncated-section", test_truncated_section);
  g_test_add_func ("/ftrace-reader/next-ref", test_next_ref);
  g_test_add_func ("/ftrace-reader/tid-map", test_tid_map);
  g_test_add_func ("/ftrace-reader/scanning-thread", test_scanning_thread);
  g_test_add_func ("/ftrace-reader/no-print", test_no_print);
  g_test_add_func ("/ftrace-reader/formats-when-used", test_formats_when_used);
  g_test_add_func ("/ftrace-reader/skip-unused", test_skip_unused);
  return g_test_run ();
}
