/* fuzz-model.c — libFuzzer target for building the model from a recording.
 *
 * Opens the input as a recording (as the model does: without print fmts),
 * builds the model with the decoder's cache of callchains and without it,
 * and aborts unless both have the same stacks, frames, samples and sleeps:
 * the cache must never change what a recording says, whatever its
 * callchains and maps.  Then analyses the busiest process, as rsp report
 * does for a recording without a target.  The last byte's low bits pick the cache's size
 * (its default, or so small that it empties itself all the time).  Bad
 * input is a GError, never a crash, a sanitizer report or a GLib critical.
 *
 * Built by fuzz/meson.build (-Dfuzz=true, clang).
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-common.h"
#include "rsp-analysis.h"
#include "rsp-model-private.h"

static RspModel *
build (const uint8_t *data, size_t size, RspChainCacheMode mode)
{
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_bytes_full (data, size, RSP_PERF_READER_NO_PRINT, NULL);
  if (reader == NULL)
    return NULL;
  /* offline: the recording's stored symbols only, nothing of this machine */
  return rsp_model_build_from_reader (reader, TRUE, mode, NULL, NULL, NULL, NULL);
}

static gboolean
same_frames (const RspModelFrame *x, const RspModelFrame *y)
{
  return g_strcmp0 (x->symbol, y->symbol) == 0 && g_strcmp0 (x->dso, y->dso) == 0 && x->ip == y->ip
         && x->offset == y->offset && x->kernel == y->kernel && g_strcmp0 (x->name, y->name) == 0;
}

static void
compare (const RspModel *a, const RspModel *b)
{
  if (a->stack_index->len != b->stack_index->len || a->frames->len != b->frames->len
      || a->samples->len != b->samples->len || a->sleeps->len != b->sleeps->len || a->runs->len != b->runs->len
      || memcmp (a->stack_index->data, b->stack_index->data, a->stack_index->len * sizeof (guint32)) != 0)
    abort ();
  for (guint i = 0; i < a->frames->len; i++)
    if (!same_frames (&g_array_index (a->frames, RspModelFrame, i), &g_array_index (b->frames, RspModelFrame, i)))
      abort ();
  for (guint i = 0; i < a->samples->len; i++)
    {
      const RspModelSample *x = &g_array_index (a->samples, RspModelSample, i);
      const RspModelSample *y = &g_array_index (b->samples, RspModelSample, i);
      if (x->time != y->time || x->run != y->run || x->stack != y->stack)
        abort ();
    }
  for (guint i = 0; i < a->sleeps->len; i++)
    {
      const RspSleep *x = &g_array_index (a->sleeps, RspSleep, i);
      const RspSleep *y = &g_array_index (b->sleeps, RspSleep, i);
      if (x->start != y->start || x->end != y->end || x->stack != y->stack || x->reason != y->reason
          || x->waker_run != y->waker_run)
        abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  RspChainCacheMode mode = size > 0 && (data[size - 1] & 1) ? RSP_CHAIN_CACHE_TINY : RSP_CHAIN_CACHE_ON;
  RspModel *cached = build (data, size, mode);
  RspModel *plain = build (data, size, RSP_CHAIN_CACHE_OFF);
  if ((cached == NULL) != (plain == NULL))
    abort ();
  if (cached != NULL)
    {
      compare (cached, plain);
      /* and the analysis rsp report makes of its busiest process */
      g_autoptr (GArray) busiest = rsp_model_busiest_processes (cached, 1);
      if (busiest->len > 0)
        {
          RspAnalysis *a = rsp_analysis_new (cached, g_array_index (busiest, RspProcessSummary, 0).pid, 0,
                                             G_MAXUINT64, NULL);
          g_clear_pointer (&a, rsp_analysis_free);
        }
    }
  g_clear_pointer (&cached, rsp_model_unref);
  g_clear_pointer (&plain, rsp_model_unref);
  return 0;
}
