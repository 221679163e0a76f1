/* test-perf-decode.c — the direct read of a sample (a layout of fixed-size
 * fields, then at most a callchain and a payload) gives the event the
 * general decoder gives, field for field, on random layouts, contents and
 * truncations; the header's clock, read from the test data. */
#include <glib.h>
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

#include "rsp-perf-reader-private.h"

/* The flags the direct read covers, and one it does not (a tail field). */
static const guint64 direct_flags[] = {
  PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,    PERF_SAMPLE_TIME,      PERF_SAMPLE_ADDR,
  PERF_SAMPLE_ID,         PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_CALLCHAIN,
  PERF_SAMPLE_RAW,
};

/* A sample of SAMPLE_TYPE with random words, N_CHAIN ips and RAW_SIZE
 * payload bytes, in WORDS (8-aligned); its size in bytes. */
static gsize
make_sample (GRand *rand, guint64 sample_type, guint n_chain, guint raw_size, guint64 *words, gsize max_words)
{
  gsize n = 1; /* the header, written last */
  for (guint i = 0; i < G_N_ELEMENTS (direct_flags); i++)
    {
      guint64 f = direct_flags[i];
      if (!(sample_type & f) || f == PERF_SAMPLE_CALLCHAIN || f == PERF_SAMPLE_RAW)
        continue;
      words[n++] = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    }
  if (sample_type & PERF_SAMPLE_CALLCHAIN)
    {
      words[n++] = n_chain;
      for (guint k = 0; k < n_chain; k++)
        words[n++] = 0xffffffff81000000ULL + g_rand_int_range (rand, 0, 1 << 20);
    }
  if (sample_type & PERF_SAMPLE_RAW)
    {
      guint8 *p = (guint8 *) &words[n];
      guint32 size = raw_size;
      memcpy (p, &size, 4);
      for (guint k = 0; k < raw_size; k++)
        p[4 + k] = (guint8) g_rand_int (rand);
      n += (raw_size + 4 + 7) / 8;
    }
  if (sample_type & PERF_SAMPLE_WEIGHT)
    words[n++] = g_rand_int (rand);
  g_assert_cmpuint (n, <=, max_words);
  struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (guint16) (n * 8) };
  memcpy (&words[0], &h, sizeof h);
  return n * 8;
}

static gboolean
decode (const RspEvsel *evsel, const guint64 *words, gsize size, RspEvent *ev)
{
  memset (ev, 0, sizeof *ev);
  ev->pid = ev->tid = ev->cpu = -1;
  return rsp_perf_sample_decode (evsel, (const guint8 *) words, size, ev);
}

static void
test_direct (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261128);
  guint64 words[256];
  guint direct = 0, refused = 0;
  for (guint round = 0; round < 20000; round++)
    {
      RspEvsel evsel = { 0 };
      for (guint i = 0; i < G_N_ELEMENTS (direct_flags); i++)
        if (g_rand_boolean (rand))
          evsel.attr.sample_type |= direct_flags[i];
      if (g_rand_int_range (rand, 0, 8) == 0)
        evsel.attr.sample_type |= PERF_SAMPLE_WEIGHT; /* a layout the direct read leaves alone */
      rsp_perf_evsel_sample_offsets (&evsel);
      RspEvsel general = evsel;
      general.sample_fixed_end = 0;
      direct += evsel.sample_fixed_end != 0;

      gsize size = make_sample (rand, evsel.attr.sample_type, g_rand_int_range (rand, 0, 9),
                                g_rand_int_range (rand, 0, 41), words, G_N_ELEMENTS (words));
      /* a record cut short, or claiming a longer callchain or payload */
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0:
          size = g_rand_int_range (rand, sizeof (struct perf_event_header), (gint32) size + 1);
          break;
        case 1:
          for (guint k = 1; k < size / 8; k++)
            if (g_rand_int_range (rand, 0, 6) == 0)
              words[k] = g_rand_int_range (rand, 0, 64);
          break;
        default:
          break;
        }
      RspEvent a, b;
      gboolean ok_a = decode (&evsel, words, size, &a);
      gboolean ok_b = decode (&general, words, size, &b);
      g_assert_cmpint (ok_a, ==, ok_b);
      refused += !ok_a;
      /* the whole event, byte for byte: every field either read writes */
      g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
    }
  /* both kinds of layout and both outcomes were met */
  g_assert_cmpuint (direct, >, 1000);
  g_assert_cmpuint (direct, <, 19000);
  g_assert_cmpuint (refused, >, 100);
}

/* The offsets of RSP's own sample layout, checked against the words a
 * sample of it holds. */
static void
test_offsets (void)
{
  RspEvsel evsel = { 0 };
  evsel.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                           | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
  rsp_perf_evsel_sample_offsets (&evsel);
  g_assert_cmpuint (evsel.sample_id_at, ==, 8);
  g_assert_cmpuint (evsel.sample_ip_at, ==, 16);
  g_assert_cmpuint (evsel.sample_tid_at, ==, 24);
  g_assert_cmpuint (evsel.sample_time_at, ==, 32);
  g_assert_cmpuint (evsel.sample_cpu_at, ==, 40);
  g_assert_cmpuint (evsel.sample_period_at, ==, 48);
  g_assert_cmpuint (evsel.sample_fixed_end, ==, 56);
  /* a CPU without a time: its offset is not known, no direct read */
  evsel.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
  rsp_perf_evsel_sample_offsets (&evsel);
  g_assert_cmpuint (evsel.sample_fixed_end, ==, 0);
  /* registers after the payload: the general read */
  evsel.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
  rsp_perf_evsel_sample_offsets (&evsel);
  g_assert_cmpuint (evsel.sample_fixed_end, ==, 0);
}

/* PERF_SAMPLE_BRANCH_COUNTERS: a counter word per branch after the branch
 * stack (and its hw_idx before the branches), then the registers. */
static void
test_branch_counters (void)
{
  RspEvsel evsel = { 0 };
  evsel.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER;
  evsel.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX | RSP_SAMPLE_BRANCH_COUNTERS;
  evsel.attr.sample_regs_user = 0x3; /* two registers */
  evsel.branch_counters = TRUE;
  rsp_perf_evsel_sample_offsets (&evsel);
  guint64 words[32];
  gsize n = 1;
  words[n++] = (42ULL << 32) | 41;                  /* tid 42, pid 41 */
  words[n++] = 123456789;                           /* time */
  words[n++] = 2;                                   /* branches */
  words[n++] = 7;                                   /* hw_idx */
  for (guint k = 0; k < 6; k++)                     /* from, to, flags per branch */
    words[n++] = 0x1000 + k;
  words[n++] = 0xc0;                                /* the counters */
  words[n++] = 0xc1;
  words[n++] = PERF_SAMPLE_REGS_ABI_64;
  words[n++] = 0xaa;
  words[n++] = 0xbb;
  struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (guint16) (n * 8) };
  memcpy (&words[0], &h, sizeof h);
  RspEvent ev;
  g_assert_true (decode (&evsel, words, n * 8, &ev));
  g_assert_cmpuint (ev.sample.n_branches, ==, 2);
  g_assert_cmpuint (ev.sample.branches[5], ==, 0x1005);
  g_assert_cmpuint (ev.sample.user_regs_abi, ==, PERF_SAMPLE_REGS_ABI_64);
  g_assert_cmpuint (ev.sample.user_regs[0], ==, 0xaa);
  g_assert_cmpuint (ev.sample.user_regs[1], ==, 0xbb);
  /* one word short: refused, not read past the record */
  g_assert_false (decode (&evsel, words, (n - 1) * 8, &ev));

  /* which events of a file have them: all of a group one of whose events
   * asks (HEADER_GROUP_DESC), here none; and the file's groups */
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "sample-read.perf.data", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open (path, &error);
  g_assert_no_error (error);
  /* {cpu-clock/freq=4000/,task-clock,page-faults}, then cpu-clock/freq=2000/S alone */
  const guint leaders[] = { 0, 0, 0, 3 };
  g_assert_cmpuint (rsp_perf_reader_get_n_evsels (reader), >=, G_N_ELEMENTS (leaders));
  for (guint i = 0; i < G_N_ELEMENTS (leaders); i++)
    {
      const RspEvsel *e = rsp_perf_reader_get_evsel (reader, i);
      g_assert_cmpuint (e->leader, ==, leaders[i]);
      g_assert_false (e->branch_counters);
    }

  /* the same file with page-faults, a member, asking for the counters:
   * the group's three events have them, the event alone does not */
  g_autofree guint8 *bytes = NULL;
  gsize size;
  g_assert_true (g_file_get_contents (path, (char **) &bytes, &size, NULL));
  guint64 attr_size, attrs_offset;
  memcpy (&attr_size, bytes + 16, 8);
  memcpy (&attrs_offset, bytes + 24, 8);
  gsize at = attrs_offset + 2 * attr_size + G_STRUCT_OFFSET (struct perf_event_attr, branch_sample_type);
  g_assert_cmpuint (at + 8, <=, size);
  guint64 branch_sample_type = PERF_SAMPLE_BRANCH_ANY | RSP_SAMPLE_BRANCH_COUNTERS;
  memcpy (bytes + at, &branch_sample_type, 8);
  g_autoptr (RspPerfReader) patched = rsp_perf_reader_open_bytes (bytes, size, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (leaders); i++)
    g_assert_cmpint (rsp_perf_reader_get_evsel (patched, i)->branch_counters, ==, i < 3);
}

/* perf record -k monotonic writes the clock's id in HEADER_CLOCK_DATA and
 * its resolution in HEADER_CLOCKID (1 ns here: perf's header prints
 * "clockid frequency: 1000 MHz"); the reader took the resolution for the
 * id. */
static void
test_header_clock (void)
{
  const char *names[] = { "sample-read.perf.data", "pingpong-plain.perf.data", "pingpong.rsp" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", names[i], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (RspPerfReader) reader = rsp_perf_reader_open (path, &error);
      g_assert_no_error (error);
      const RspPerfHeader *h = rsp_perf_reader_get_header (reader);
      g_assert_true (h->has_clockid);
      g_assert_cmpuint (h->clockid, ==, CLOCK_MONOTONIC);
      g_assert_true (h->has_clock_res);
      g_assert_cmpuint (h->clock_res_ns, ==, 1);
    }

  /* the same file with another clock in HEADER_CLOCK_DATA (perf record -k
   * boottime): the feature sections' table follows the data section, one
   * entry (offset, size) per feature bit set, in the bits' order */
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "sample-read.perf.data", NULL);
  g_autofree guint8 *bytes = NULL;
  gsize size;
  g_assert_true (g_file_get_contents (path, (char **) &bytes, &size, NULL));
  guint64 data_offset, data_size, bits[4];
  memcpy (&data_offset, bytes + 40, 8);
  memcpy (&data_size, bytes + 48, 8);
  memcpy (bits, bytes + 72, sizeof bits);
  guint64 table = data_offset + data_size, at = 0;
  gboolean found = FALSE;
  for (guint bit = 0; bit < 256 && !found; bit++)
    if (bits[bit / 64] & (1ULL << (bit % 64)))
      {
        if (bit == 29) /* HEADER_CLOCK_DATA */
          {
            guint64 section;
            g_assert_cmpuint (table + at + 16, <=, size);
            memcpy (&section, bytes + table + at, 8);
            g_assert_cmpuint (section + 8, <=, size);
            guint32 boottime = CLOCK_BOOTTIME;
            memcpy (bytes + section + 4, &boottime, 4);
            found = TRUE;
          }
        at += 16;
      }
  g_assert_true (found);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_bytes (bytes, size, &error);
  g_assert_no_error (error);
  const RspPerfHeader *h = rsp_perf_reader_get_header (reader);
  g_assert_cmpuint (h->clockid, ==, CLOCK_BOOTTIME);
  g_assert_cmpuint (h->clock_res_ns, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-decode/direct", test_direct);
  g_test_add_func ("/perf-decode/offsets", test_offsets);
  g_test_add_func ("/perf-decode/header-clock", test_header_clock);
  g_test_add_func ("/perf-decode/branch-counters", test_branch_counters);
  return g_test_run ();
}
