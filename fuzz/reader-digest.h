/* reader-digest.h — a digest of what a perf.data reader gives: every
 * event's fields, payload and callchain in order, and the reader's figures
 * and warnings.  Readers that must agree (one thread and two, aligned and
 * shifted bytes) are compared by it: fuzz/fuzz-perf-reader.c and
 * tests/unit/test-ftrace-reader.c.
 */
#pragma once

#include <glib.h>

#include "rsp-perf-reader.h"

#define READER_DIGEST_SEED 0xcbf29ce484222325ull

static inline guint64
reader_digest_mix (guint64 h, guint64 v)
{
  return (h ^ v) * 0x100000001b3ull;
}

/* EV mixed into H: what the model reads of it, and where it came from. */
static inline guint64
reader_digest_event (guint64 h, const RspEvent *ev)
{
  guint64 fields[] = { ev->type, ev->has_time ? ev->time : 0, (guint64) ev->cpu, (guint64) ev->pid,
                       (guint64) ev->tid, ev->file_offset, ev->evsel != NULL ? ev->evsel->index : 999,
                       ev->sample.raw_size, ev->sample.n_callchain };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    h = reader_digest_mix (h, fields[i]);
  for (guint32 i = 0; ev->sample.raw != NULL && i < ev->sample.raw_size; i++)
    h = reader_digest_mix (h, ev->sample.raw[i]);
  for (guint64 i = 0; i < ev->sample.n_callchain; i++)
    h = reader_digest_mix (h, ev->sample.callchain[i]);
  return h;
}

/* READER's figures and warnings so far, mixed into H. */
static inline guint64
reader_digest_figures (guint64 h, RspPerfReader *reader)
{
  const RspReaderStats *st = rsp_perf_reader_get_stats (reader);
  guint64 values[] = { st->records, st->bytes, st->lost_events, st->lost_samples, st->bad_records,
                       st->unknown_ids, st->out_of_order, st->max_queued, (guint64) st->truncated };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    h = reader_digest_mix (h, values[i]);
  for (guint i = 0; i < RSP_RECORD_TYPE_MAX; i++)
    h = reader_digest_mix (h, st->by_type[i]);
  for (const char *const *w = rsp_perf_reader_warnings (reader); *w != NULL; w++)
    h = reader_digest_mix (h, g_str_hash (*w));
  return h;
}
