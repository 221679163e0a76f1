/* test-chain-cache.c — the decoder's cache of resolved callchains
 * (rsp-chain-cache.h): what makes two chains the same (for samples: their
 * process and the symbolizer's token, which follows the process's maps),
 * the numbers, the frames kept, and its limits. */
#include <string.h>

#include <glib.h>

#include "rsp-chain-cache.h"

static const guint64 chain_a[] = { 0xfffffffffffffe00ull, 0xffffffff81000100ull, 0xffffffff81000200ull };
static const guint64 chain_b[] = { 0xfffffffffffffe00ull, 0xffffffff81000100ull, 0xffffffff81000300ull };

static guint32
lookup (RspChainCache *c, gint32 pid, guint64 token, const guint64 *words, guint n, gboolean expect_added)
{
  gboolean added = !expect_added;
  guint32 chain = rsp_chain_cache_lookup (c, pid, token, words, n, &added);
  g_assert_cmpint (added, ==, expect_added);
  g_assert_cmpuint (chain, >=, 1);
  g_assert_cmpuint (chain, <=, rsp_chain_cache_stacks (c)->len);
  return chain;
}

static void
test_same_and_different (void)
{
  RspChainCache *c = rsp_chain_cache_new (&rsp_chain_limits_default);
  guint32 a = lookup (c, 10, 5, chain_a, 3, TRUE);
  g_assert_cmpuint (a, ==, 1);
  g_assert_cmpuint (lookup (c, 10, 5, chain_a, 3, FALSE), ==, a);
  /* each of pid, token, an entry and the length makes another chain */
  guint32 others[] = {
    lookup (c, 11, 5, chain_a, 3, TRUE),
    lookup (c, 10, 6, chain_a, 3, TRUE),
    lookup (c, 10, 5, chain_b, 3, TRUE),
    lookup (c, 10, 5, chain_a, 2, TRUE),
  };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_assert_cmpuint (others[i], ==, i + 2);
      for (guint j = 0; j < i; j++)
        g_assert_cmpuint (others[i], !=, others[j]);
    }
  /* the caller's copy of the entries is not kept: a new buffer finds it */
  guint64 copy[3];
  memcpy (copy, chain_b, sizeof copy);
  g_assert_cmpuint (lookup (c, 10, 5, copy, 3, FALSE), ==, others[2]);
  copy[2]++;
  lookup (c, 10, 5, copy, 3, TRUE);

  /* the stack ids are the caller's to fill in, by number */
  GArray *stacks = rsp_chain_cache_stacks (c);
  g_assert_cmpuint (stacks->len, ==, 6);
  for (guint i = 0; i < stacks->len; i++)
    g_assert_cmpuint (g_array_index (stacks, RspStackId, i), ==, 0);
  g_array_index (stacks, RspStackId, a - 1) = 42;
  g_assert_cmpuint (lookup (c, 10, 5, chain_a, 3, FALSE), ==, a);
  g_assert_cmpuint (g_array_index (rsp_chain_cache_stacks (c), RspStackId, a - 1), ==, 42);
  g_assert_true (rsp_chain_cache_stacks (c) == stacks);
  rsp_chain_cache_free (c);
}

static void
test_frames (void)
{
  RspChainCache *c = rsp_chain_cache_new (&rsp_chain_limits_default);
  guint32 a = lookup (c, 10, 5, chain_a, 3, TRUE);
  guint32 b = lookup (c, 10, 5, chain_b, 3, TRUE);
  const RspModelFrame *frames = NULL;
  guint n = 99;
  g_assert_false (rsp_chain_cache_frames (c, a, &frames, &n));

  RspModelFrame two[2] = { { .symbol = "schedule", .ip = 0xffffffff81000100ull, .kernel = TRUE },
                           { .symbol = "main", .dso = "/bin/true", .ip = 0x401000, .offset = 16 } };
  rsp_chain_cache_keep_frames (c, a, two, 2);
  two[0].symbol = "changed after";
  g_assert_true (rsp_chain_cache_frames (c, a, &frames, &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (frames[0].symbol, ==, "schedule");
  g_assert_true (frames[0].kernel);
  g_assert_cmpstr (frames[1].dso, ==, "/bin/true");
  g_assert_cmpuint (frames[1].offset, ==, 16);
  /* kept once: a second keep changes nothing */
  rsp_chain_cache_keep_frames (c, a, two, 1);
  g_assert_true (rsp_chain_cache_frames (c, a, &frames, &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (frames[0].symbol, ==, "schedule");
  /* a chain with no frames (every entry a marker) keeps none */
  g_assert_false (rsp_chain_cache_frames (c, b, &frames, &n));
  rsp_chain_cache_keep_frames (c, b, NULL, 0);
  g_assert_true (rsp_chain_cache_frames (c, b, &frames, &n));
  g_assert_cmpuint (n, ==, 0);
  rsp_chain_cache_free (c);
}

/* Past a limit the cache starts again empty: the chains it had are new
 * again, numbered from 1. */
static void
test_limits (void)
{
  RspChainLimits limits = { 2, 4, 8, 3 };
  RspChainCache *c = rsp_chain_cache_new (&limits);
  guint64 words[16];
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    words[i] = 0x1000 + i;

  /* slots: two chains fit in four slots, a third empties the cache */
  g_assert_cmpuint (lookup (c, 1, 1, words, 1, TRUE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words + 1, 1, TRUE), ==, 2);
  g_assert_cmpuint (lookup (c, 1, 1, words, 1, FALSE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words + 2, 1, TRUE), ==, 1);
  g_assert_cmpuint (rsp_chain_cache_stacks (c)->len, ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words, 1, TRUE), ==, 2);

  /* entries: 8 words in all; the 9th empties it */
  rsp_chain_cache_free (c);
  limits = (RspChainLimits){ 2, 64, 8, 3 };
  c = rsp_chain_cache_new (&limits);
  g_assert_cmpuint (lookup (c, 1, 1, words, 5, TRUE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words + 5, 3, TRUE), ==, 2);
  g_assert_cmpuint (lookup (c, 1, 1, words, 5, FALSE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words + 8, 1, TRUE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words, 5, TRUE), ==, 2);
  /* a chain longer than the limit is kept alone */
  g_assert_cmpuint (lookup (c, 1, 1, words, 12, TRUE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words, 12, FALSE), ==, 1);
  g_assert_cmpuint (lookup (c, 1, 1, words + 1, 1, TRUE), ==, 1);

  /* frames: 3 in all; a chain whose frames do not fit keeps none */
  RspModelFrame frames[3] = { { .ip = 1 }, { .ip = 2 }, { .ip = 3 } };
  guint32 x = lookup (c, 2, 1, words, 1, TRUE);
  guint32 y = lookup (c, 2, 1, words + 1, 1, TRUE);
  rsp_chain_cache_keep_frames (c, x, frames, 2);
  rsp_chain_cache_keep_frames (c, y, frames, 2);
  const RspModelFrame *kept;
  guint n;
  g_assert_true (rsp_chain_cache_frames (c, x, &kept, &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_false (rsp_chain_cache_frames (c, y, &kept, &n));
  rsp_chain_cache_keep_frames (c, y, frames, 1);
  g_assert_true (rsp_chain_cache_frames (c, y, &kept, &n));
  g_assert_cmpuint (kept[0].ip, ==, 1);
  rsp_chain_cache_free (c);
}

/* The table grows: every chain is found again, with its number. */
static void
test_growth (void)
{
  RspChainLimits limits = { 2, 1u << 13, 1u << 16, 16 }; /* room for all 3,000 */
  RspChainCache *c = rsp_chain_cache_new (&limits);
  enum { N = 1500 };
  static guint64 words[N][2];
  for (guint i = 0; i < N; i++)
    {
      words[i][0] = 0xfffffffffffffe00ull;
      words[i][1] = 0x400000 + (guint64) i * 4096; /* alike but for one entry */
      g_assert_cmpuint (lookup (c, (gint32) (i % 7), 3, words[i], 2, TRUE), ==, i + 1);
    }
  for (guint i = 0; i < N; i++)
    {
      g_assert_cmpuint (lookup (c, (gint32) (i % 7), 3, words[i], 2, FALSE), ==, i + 1);
      lookup (c, (gint32) (i % 7) + 1, 3, words[i], 2, TRUE);
    }
  rsp_chain_cache_free (c);
}

static RspEvent
mmap_event (gint32 pid, const char *filename)
{
  RspEvent ev = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER, .pid = pid, .tid = pid };
  ev.u.mmap = (RspMmap){ .pid = pid, .tid = pid, .start = 0x400000, .len = 0x10000, .prot = 5, .filename = filename };
  return ev;
}

/* A sample's chain is looked up under its pid and the symbolizer's token:
 * when the process's maps change, the same entries are another chain. */
static void
test_samples (void)
{
  RspChainCache *c = rsp_chain_cache_new (&rsp_chain_limits_default);
  RspSymbolizer *sym = rsp_symbolizer_new ();
  const guint64 chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000104ull, PERF_CONTEXT_USER, 0x400100 };
  RspEvent sample = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL, .pid = 100, .tid = 100 };
  sample.sample.ip = chain[1];
  sample.sample.callchain = chain;
  sample.sample.n_callchain = G_N_ELEMENTS (chain);
  gboolean added;
  RspFrame frames[4];

  RspEvent ev = mmap_event (100, "/bin/first");
  rsp_symbolizer_process_event (sym, &ev);
  guint32 first = rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added);
  g_assert_cmpuint (first, !=, 0);
  g_assert_true (added);
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added), ==, first);
  g_assert_false (added);

  /* another process's maps change nothing */
  ev = mmap_event (200, "/bin/other");
  rsp_symbolizer_process_event (sym, &ev);
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added), ==, first);
  g_assert_false (added);

  /* its own do: the address is now in another file */
  ev = mmap_event (100, "/bin/second");
  rsp_symbolizer_process_event (sym, &ev);
  g_assert_cmpuint (rsp_symbolizer_resolve_callchain (sym, &sample, frames, 4), ==, 2);
  g_assert_cmpstr (frames[1].dso, ==, "/bin/second");
  guint32 second = rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added);
  g_assert_true (added);
  g_assert_cmpuint (second, !=, first);

  /* the same entries in another process */
  RspEvent other = sample;
  other.pid = other.tid = 200;
  guint32 third = rsp_chain_cache_lookup_sample (c, sym, &other, 16, &added);
  g_assert_true (added);
  g_assert_true (third != first && third != second);

  /* two processes without maps have the same token: their pids tell them
   * apart (an address with no map is looked up in each one's JIT map) */
  RspEvent unknown1 = sample, unknown2 = sample;
  unknown1.pid = unknown1.tid = 300;
  unknown2.pid = unknown2.tid = 301;
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &unknown1), ==,
                    rsp_symbolizer_callchain_token (sym, &unknown2));
  guint32 u1 = rsp_chain_cache_lookup_sample (c, sym, &unknown1, 16, &added);
  g_assert_true (added);
  guint32 u2 = rsp_chain_cache_lookup_sample (c, sym, &unknown2, 16, &added);
  g_assert_true (added);
  g_assert_cmpuint (u1, !=, u2);

  /* resolved each time: longer than the limit, no callchain, used
   * symbols being recorded */
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &sample, 3, &added), ==, 0);
  g_assert_false (added);
  RspEvent bare = sample;
  bare.sample.callchain = NULL;
  bare.sample.n_callchain = 0;
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &bare, 16, &added), ==, 0);
  rsp_symbolizer_set_track_used (sym, TRUE);
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added), ==, 0);
  rsp_symbolizer_set_track_used (sym, FALSE);
  g_assert_cmpuint (rsp_chain_cache_lookup_sample (c, sym, &sample, 16, &added), ==, second);
  g_assert_false (added);

  rsp_symbolizer_free (sym);
  rsp_chain_cache_free (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chain-cache/same-and-different", test_same_and_different);
  g_test_add_func ("/chain-cache/frames", test_frames);
  g_test_add_func ("/chain-cache/limits", test_limits);
  g_test_add_func ("/chain-cache/growth", test_growth);
  g_test_add_func ("/chain-cache/samples", test_samples);
  return g_test_run ();
}
