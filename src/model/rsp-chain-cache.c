/* rsp-chain-cache.c — see rsp-chain-cache.h. */
#include <string.h>

#include "rsp-chain-cache.h"
#include "rsp-disk-cache.h"

#define NO_FRAMES G_MAXUINT32

const RspChainLimits rsp_chain_limits_default = { 1024, 65536, 1u << 18, 1u << 16 };

typedef struct {
  guint64 token;
  guint32 hash;
  gint32 pid;
  guint32 words_at, n_words;   /* the callchain, in words */
  guint32 frames_at, n_frames; /* its frames in frames, or NO_FRAMES */
} Entry;

/* A growing array of one type, appended to without GArray's calls: three
 * appends per new chain were a twentieth of a report of a build, whose
 * chains rarely repeat. */
typedef struct {
  gpointer data;
  guint32 len, cap; /* in elements */
} Buf;

static inline gpointer
buf_append (Buf *b, gsize size, gconstpointer items, guint32 n)
{
  if (b->cap - b->len < n)
    {
      guint32 cap = MAX (b->cap, 64);
      while (cap - b->len < n)
        cap *= 2;
      b->data = g_realloc_n (b->data, cap, size);
      b->cap = cap;
    }
  gpointer at = (guint8 *) b->data + (gsize) b->len * size;
  memcpy (at, items, (gsize) n * size);
  b->len += n;
  return at;
}

#define BUF_AT(b, type, i) (((type *) (b).data)[i])

struct _RspChainCache {
  RspChainLimits limits;
  guint32 *slots;   /* chain number + 1, 0: free */
  guint mask;
  Buf entries;      /* Entry by chain number */
  GArray *stacks;   /* RspStackId by chain number */
  Buf words;        /* guint64 */
  Buf frames;       /* RspModelFrame */
};

RspChainCache *
rsp_chain_cache_new (const RspChainLimits *limits)
{
  g_return_val_if_fail (limits != NULL && limits->min_slots >= 2 && limits->min_slots <= limits->max_slots, NULL);
  g_return_val_if_fail ((limits->min_slots & (limits->min_slots - 1)) == 0, NULL);
  RspChainCache *self = g_new0 (RspChainCache, 1);
  self->limits = *limits;
  self->slots = g_new0 (guint32, limits->min_slots);
  self->mask = limits->min_slots - 1;
  self->stacks = g_array_new (FALSE, FALSE, sizeof (RspStackId));
  return self;
}

void
rsp_chain_cache_free (RspChainCache *self)
{
  if (self == NULL)
    return;
  g_free (self->slots);
  g_free (self->entries.data);
  g_array_unref (self->stacks);
  g_free (self->words.data);
  g_free (self->frames.data);
  g_free (self);
}

GArray *
rsp_chain_cache_stacks (RspChainCache *self)
{
  return self->stacks;
}

static guint32
chain_hash (gint32 pid, guint64 token, const guint64 *words, guint n)
{
  guint64 seed = RSP_DISK_CACHE_HASH_INIT ^ token ^ ((guint64) (guint32) pid << 32);
  guint64 h = rsp_disk_cache_hash (seed, words, n * sizeof *words);
  return (guint32) (h ^ (h >> 32));
}

/* The slot holding the chain's number + 1, or the free one (0) where it
 * belongs. */
static guint32 *
find (RspChainCache *self, guint32 hash, gint32 pid, guint64 token, const guint64 *words, guint n)
{
  for (guint i = hash & self->mask;; i = (i + 1) & self->mask)
    {
      if (self->slots[i] == 0)
        return &self->slots[i];
      const Entry *e = &BUF_AT (self->entries, Entry, self->slots[i] - 1);
      if (e->hash == hash && e->token == token && e->pid == pid && e->n_words == n
          && memcmp (&BUF_AT (self->words, guint64, e->words_at), words, n * sizeof *words) == 0)
        return &self->slots[i];
    }
}

/* Room for one more chain of N words: a larger table, or past the limits an
 * empty cache. */
static void
make_room (RspChainCache *self, guint n)
{
  guint slots = self->mask + 1, used = self->entries.len;
  if (self->words.len + n > self->limits.max_words
      || ((used + 1) * 2 > slots && slots >= self->limits.max_slots))
    {
      memset (self->slots, 0, slots * sizeof *self->slots);
      self->entries.len = 0;
      g_array_set_size (self->stacks, 0);
      self->words.len = 0;
      self->frames.len = 0;
      return;
    }
  if ((used + 1) * 2 <= slots)
    return;
  g_free (self->slots);
  self->slots = g_new0 (guint32, slots * 2);
  self->mask = slots * 2 - 1;
  for (guint k = 0; k < used; k++)
    {
      guint i = BUF_AT (self->entries, Entry, k).hash & self->mask;
      while (self->slots[i] != 0)
        i = (i + 1) & self->mask;
      self->slots[i] = k + 1;
    }
}

guint32
rsp_chain_cache_lookup (RspChainCache *self, gint32 pid, guint64 token, const guint64 *words, guint n,
                        gboolean *added)
{
  guint32 hash = chain_hash (pid, token, words, n);
  guint32 *slot = find (self, hash, pid, token, words, n);
  *added = *slot == 0;
  if (*slot != 0)
    return *slot;
  make_room (self, n); /* a chain longer than max_words is kept alone */
  slot = find (self, hash, pid, token, words, n);
  Entry e = { token, hash, pid, self->words.len, n, 0, NO_FRAMES };
  buf_append (&self->entries, sizeof e, &e, 1);
  RspStackId none = 0;
  g_array_append_val (self->stacks, none);
  if (n > 0)
    buf_append (&self->words, sizeof *words, words, n);
  *slot = self->entries.len;
  return *slot;
}

guint32
rsp_chain_cache_lookup_sample (RspChainCache *self, RspSymbolizer *symbolizer, const RspEvent *sample,
                               guint max_len, gboolean *added)
{
  const RspSample *s = &sample->sample;
  gint32 owner;
  guint64 token = rsp_symbolizer_callchain_key (symbolizer, sample, &owner);
  *added = FALSE;
  if (token == 0 || s->n_callchain > max_len)
    return 0;
  return rsp_chain_cache_lookup (self, owner, token, s->callchain, (guint) s->n_callchain, added);
}

gboolean
rsp_chain_cache_frames (RspChainCache *self, guint32 chain, const RspModelFrame **frames, guint *n_frames)
{
  g_return_val_if_fail (chain >= 1 && chain <= self->entries.len, FALSE);
  const Entry *e = &BUF_AT (self->entries, Entry, chain - 1);
  if (e->n_frames == NO_FRAMES)
    return FALSE;
  *frames = e->n_frames > 0 ? &BUF_AT (self->frames, RspModelFrame, e->frames_at) : NULL;
  *n_frames = e->n_frames;
  return TRUE;
}

void
rsp_chain_cache_keep_frames (RspChainCache *self, guint32 chain, const RspModelFrame *frames, guint n)
{
  g_return_if_fail (chain >= 1 && chain <= self->entries.len);
  Entry *e = &BUF_AT (self->entries, Entry, chain - 1);
  if (e->n_frames != NO_FRAMES || self->frames.len + n > self->limits.max_frames)
    return;
  e->frames_at = self->frames.len;
  e->n_frames = n;
  if (n > 0)
    buf_append (&self->frames, sizeof *frames, frames, n);
}
