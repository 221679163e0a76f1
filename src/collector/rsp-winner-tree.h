/* rsp-winner-tree.h — which of N sources comes first, kept up to date in
 * log2(N) comparisons when one source changes.
 *
 * The readers merge sorted streams, one per CPU: perf's records by lane
 * (rsp-ordered-queue.c) and the tracefs instance's events by CPU buffer
 * (rsp-ftrace-reader.c).  Finding the first stream by looking at every
 * one costs N comparisons per event: nothing on two CPUs, most of the
 * merge on 64.  A winner tree (a tournament) holds, in each inner node,
 * the source that wins its half; when one source's head changes, only the
 * nodes on its way to the root are played again.
 *
 * Below a number of sources of their own the callers scan their heads
 * instead, as they did: the tree's bookkeeping costs more there (bench/
 * merge-cpus.c: the tree took 1.3 to 1.6 times as long per event as the
 * scans on 2 and 8 CPUs, and 0.16 to 0.5 times as long on 128 and 256;
 * the queue's tree wins from about 12 CPUs on, the instance's from about
 * 24).
 *
 * Each source has a key, two words compared in turn (a time, then what
 * breaks ties); a source with nothing has RSP_WINNER_NONE, which never
 * wins.  Of two equal keys the lower source wins, so the first source is
 * the one a scan from source 0 with "strictly before" would find. */
#pragma once

#include <glib.h>

typedef struct {
  guint64 major, minor;
} RspWinnerKey;

/* The key of a source with nothing. */
#define RSP_WINNER_NONE ((RspWinnerKey){ G_MAXUINT64, G_MAXUINT64 })

typedef struct {
  guint leaves;       /* a power of two, >= the sources */
  RspWinnerKey *keys; /* by source; leaves of them, those past the sources RSP_WINNER_NONE */
  /* winner[k] for 1 <= k < leaves: the source that wins k's subtree;
   * winner[leaves + s] = s, the leaves, so that a node's two children are
   * read alike */
  guint *winner;
} RspWinnerTree;

static inline gboolean
rsp_winner_key_before (const RspWinnerKey *a, const RspWinnerKey *b)
{
  /* one comparison of two 128-bit words: a compare and a subtract with
   * borrow, no branch */
  unsigned __int128 x = (unsigned __int128) a->major << 64 | a->minor;
  unsigned __int128 y = (unsigned __int128) b->major << 64 | b->minor;
  return x < y;
}

/* Plays node K again from its two children. */
static inline void
rsp_winner_tree_play (RspWinnerTree *t, guint k)
{
  guint a = t->winner[2 * k], b = t->winner[2 * k + 1];
  t->winner[k] = rsp_winner_key_before (&t->keys[b], &t->keys[a]) ? b : a;
}

/* The tree over N sources (T zeroed or cleared before the first call),
 * each with nothing. */
static inline void
rsp_winner_tree_reset (RspWinnerTree *t, guint n)
{
  guint leaves = 1;
  while (leaves < n)
    leaves *= 2;
  g_free (t->keys);
  g_free (t->winner);
  t->keys = g_new (RspWinnerKey, leaves);
  for (guint i = 0; i < leaves; i++)
    t->keys[i] = RSP_WINNER_NONE;
  t->winner = g_new0 (guint, 2 * leaves);
  for (guint i = 0; i < leaves; i++)
    t->winner[leaves + i] = i;
  t->leaves = leaves;
  for (guint k = leaves - 1; k >= 1; k--)
    rsp_winner_tree_play (t, k);
}

/* Source S (one of the N given to the reset) now has KEY at its head. */
static inline void
rsp_winner_tree_set (RspWinnerTree *t, guint s, RspWinnerKey key)
{
  t->keys[s] = key;
  for (guint k = (t->leaves + s) / 2; k >= 1; k /= 2)
    rsp_winner_tree_play (t, k);
}

/* The first source (source 0, with RSP_WINNER_NONE as its key, when none
 * has anything: ties go to the lower source). */
static inline guint
rsp_winner_tree_first (const RspWinnerTree *t)
{
  return t->winner[1]; /* with one leaf, the leaf itself */
}

static inline void
rsp_winner_tree_clear (RspWinnerTree *t)
{
  g_clear_pointer (&t->keys, g_free);
  g_clear_pointer (&t->winner, g_free);
  t->leaves = 0;
}
