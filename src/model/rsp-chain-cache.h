/* rsp-chain-cache.h — the decoder's cache of resolved callchains.
 *
 * Switches and samples repeat a few stacks.  A callchain seen before (the
 * same pid, the same entries, the same rsp_symbolizer_callchain_token)
 * resolves to the same frames and interns to the same stack id, so the
 * decoder resolves and the assembler interns each distinct chain once.
 * A chain gets a number when first seen: the assembler keeps the stack id
 * it interns to by that number (rsp_chain_cache_stacks), and the decoder
 * reads the frames back from the model.  Chains the assembler never
 * interns (a waker's) keep their frames here from their second sighting on.
 *
 * Memory is bounded by the limits: past them the cache starts again empty
 * (numbers are given anew, from 0).  It stays small because on a VM a page
 * touched for the first time costs about 3 us.
 */
#pragma once

#include <glib.h>

#include "rsp-model.h"
#include "rsp-symbols.h"

G_BEGIN_DECLS

typedef struct {
  guint min_slots, max_slots; /* powers of 2 (at most half of them used) */
  guint max_words;            /* callchain entries kept, over all chains */
  guint max_frames;           /* frames kept, over all chains */
} RspChainLimits;

/* What the model uses: 1,024 to 65,536 slots, 2 MB of entries, 3 MB of frames. */
extern const RspChainLimits rsp_chain_limits_default;

typedef struct _RspChainCache RspChainCache;

RspChainCache *rsp_chain_cache_new (const RspChainLimits *limits);
void rsp_chain_cache_free (RspChainCache *self);

/* The number of the chain WORDS[0..N) (N > 0) of PID under TOKEN, plus
 * one: found, or added (*ADDED set).  An addition may empty the cache
 * first, which renumbers the chains; a chain longer than max_words is then
 * kept alone. */
guint32 rsp_chain_cache_lookup (RspChainCache *self, gint32 pid, guint64 token, const guint64 *words, guint n,
                                gboolean *added);

/* The chain of SAMPLE's callchain as rsp_chain_cache_lookup() gives it,
 * keyed by the token and the owner SYMBOLIZER gives it
 * (rsp_symbolizer_callchain_key: forked copies of a process share chains);
 * 0 when it must be resolved each time: the symbolizer says so, or it has
 * more than MAX_LEN entries. */
guint32 rsp_chain_cache_lookup_sample (RspChainCache *self, RspSymbolizer *symbolizer, const RspEvent *sample,
                                       guint max_len, gboolean *added);

/* RspStackId by chain number (0: not interned yet), for the assembler to
 * fill in: the array stays the same, its length follows the cache. */
GArray *rsp_chain_cache_stacks (RspChainCache *self);

/* The frames kept for chain CHAIN (a lookup's result): FALSE if none were.
 * Valid until the next lookup or keep. */
gboolean rsp_chain_cache_frames (RspChainCache *self, guint32 chain, const RspModelFrame **frames,
                                 guint *n_frames);
/* Keeps FRAMES for CHAIN, if the frames kept stay within the limits. */
void rsp_chain_cache_keep_frames (RspChainCache *self, guint32 chain, const RspModelFrame *frames, guint n);

G_END_DECLS
