/* rsp-model-private.h — the model's storage, shared by the model's own files. */
#pragma once

#include <string.h>

#include "rsp-model.h"
#include "rsp-interner.h"

G_BEGIN_DECLS

/* Over a list of disk operations in insert order: REACH, the latest
 * completion among the first i + 1 of them that completed (guint64 per
 * entry; it never decreases, so the operations that may still be in
 * flight after a time are found by binary search), and OPEN, the positions
 * in the list (guint, ascending) of those never completed, or NULL if
 * none.  A request that never completed is in flight from its insert on;
 * counted in REACH it would hold every later search open, and a
 * recording that lost one completion early would scan its whole list for
 * every disk wait. */
typedef struct {
  GArray *reach;
  GArray *open;
} RspDiskReach;

/* What every analysis of the model looks things up in, built once, on the
 * first analysis (rsp_model_get_index), and shared: an analysis of one
 * request among thousands costs its own work, not a pass over the model. */
typedef struct {
  guint n_tasks;
  GArray **task_runs;     /* per task: its runs in time order (RspIdx) */
  GArray **task_disk_ops; /* per task: the disk operations it issued, or NULL */
  /* per task, beside task_disk_ops when its operations are in insert order
   * (else reach is NULL) */
  RspDiskReach *task_disk_reach;
  GHashTable *device_ops; /* dev -> GArray of op indexes, in insert order */
  GHashTable *device_reach; /* dev -> RspDiskReach beside device_ops */
} RspModelIndex;

struct _RspModel {
  gint ref_count;   /* rsp_model_ref / rsp_model_unref */
  GMutex index_lock;
  GMutex names_lock;   /* rsp_model_name_frames */
  gint frames_named;   /* atomic: every frame's name is set */
  RspModelIndex *index; /* NULL until the first analysis */
  GArray *tasks;    /* RspTask */
  GArray *runs;     /* RspRun */
  GArray *sleeps;   /* RspSleep */
  GArray *samples;  /* RspModelSample, sorted by (run, time) after assembly */
  GArray *links;    /* RspLink */
  /* the room rsp_model_reserve_switches() made in RUNS, SLEEPS and LINKS
   * each (0: none): below it an element is stored in place
   * (rsp_model_append_reserved()) */
  guint switch_room;
  GArray *disk_ops; /* RspDiskOp */
  GArray *net_ops;  /* RspNetOp */
  GArray *sock_io;  /* RspSockIo */
  GArray *probe_hits; /* RspProbeHit */

  /* stacks: stack id -> [offset, n] into frames; id 0 is the empty stack */
  GArray *frames;       /* RspModelFrame */
  GArray *stack_index;  /* guint32 pairs: offset, n */
  GArray *stack_hashes; /* guint32 by stack id: the hash of its frames */
  guint32 *stack_slots; /* open addressing: stack id, 0 a free slot; at most half full */
  guint32 stack_mask;   /* the number of slots - 1 */

  guint64 anomalies[RSP_ANOMALY_N];
  guint64 start_time, end_time;
  guint64 n_events;
  guint64 lost_events;
  RspRecordingMeta *meta; /* copy, NULL for a plain perf.data */
  RspSymbolizer *symbolizer; /* owns the interned names of the frames */
  GPtrArray *describing;     /* stack id -> the frame that describes it (rsp_model_compute_frames) */
  RspInterner *strings;      /* the names read from the recording: comms, endpoints, irq names (rsp_model_intern) */
  guint bad_file_names;      /* lines of the recording's files section that could not be read */
};

RspModel *rsp_model_new (void);

/* Per task (by index), 1 where its runs lie in the runs array in their
 * order in time: the runs of that task, in index order, are exactly its
 * chain (first_run, then each run's next_run), as the assembler appends
 * them unless it inferred one after the fact; 0 elsewhere.  One pass over
 * the array in its order, which the memory streams: walking a task's
 * chain jumps across the array at every step, a cache miss per run (a
 * large recording's runs are tens of MB).  Free with g_free(). */
guint8 *rsp_model_tasks_in_run_order (const RspModel *m);

/* How rsp_model_build_with() keeps resolved callchains (rsp-event-decoder.c):
 * the tests build each recording all three ways and compare the models. */
typedef enum {
  RSP_CHAIN_CACHE_ON,   /* what rsp_model_load_offline() does */
  RSP_CHAIN_CACHE_OFF,  /* every callchain resolved and interned per event */
  RSP_CHAIN_CACHE_TINY, /* four chains, a few frames: it starts again empty all the time */
} RspChainCacheMode;
/* Reads every event of READER (symbolizing with SYMBOLIZER, which the model
 * takes over: its interned names are the model's frames) and assembles the
 * model.  PROGRESS may be NULL; when it returns FALSE the build stops. */
RspModel *rsp_model_build_with (RspPerfReader *reader, RspSymbolizer *symbolizer, RspChainCacheMode mode,
                                RspProgressFunc progress, gpointer progress_data,
                                GError **error);
/* rsp_model_load_offline() on a reader already open (the model's opens
 * with RSP_PERF_READER_NO_PRINT): a symbolizer set up for it, the model
 * built the MODE way, and the symbolizer's, reader's and model's warnings
 * appended to WARNINGS (may be NULL). */
RspModel *rsp_model_build_from_reader (RspPerfReader *reader, gboolean offline, RspChainCacheMode mode,
                                       RspProgressFunc progress, gpointer progress_data,
                                       GPtrArray *warnings, GError **error);
/* Computes the describing frame of every stack, once, after assembly
 * (the frames' names wait for rsp_model_name_frames()). */
void rsp_model_compute_frames (RspModel *m);
/* Frames of a stack, innermost first, without asking for their names:
 * what the assembler and the analysis read (symbols, files, addresses). */
const RspModelFrame *rsp_model_stack_unnamed (const RspModel *m, RspStackId stack, guint *n_frames);
/* A copy of TEXT that lives as long as M, one per distinct text; NULL for
 * NULL.  Names read from a recording are kept here, never in GLib's
 * process-wide g_intern_string table, which is never freed: a viewer that
 * opens recording after recording would grow without bound. */
const char *rsp_model_intern (RspModel *m, const char *text);
/* Interns a stack given innermost first. */
RspStackId rsp_model_intern_stack (RspModel *m, const RspModelFrame *frames, guint n);

static inline RspTask *
model_task (RspModel *m, RspIdx i)
{
  return &g_array_index (m->tasks, RspTask, i);
}

static inline RspRun *
model_run (RspModel *m, RspIdx i)
{
  return &g_array_index (m->runs, RspRun, i);
}

static inline RspSleep *
model_sleep (RspModel *m, RspIdx i)
{
  return &g_array_index (m->sleeps, RspSleep, i);
}

/* The shared index, built on the first call (thread-safe). */
const RspModelIndex *rsp_model_get_index (const RspModel *m);

/* Room in M's empty runs, sleeps and links for N_SWITCHES context switches
 * and an eighth more (rsp_assembler_reserve()). */
void rsp_model_reserve_switches (RspModel *m, guint64 n_switches);

/* Appends ELT (SIZE bytes, SIZE the array's element size) to ARRAY, which
 * was made with room for ROOM elements: a store in place while there is
 * room, g_array_append_vals() past it.  One of these per context switch
 * and per wake-up; g_array_append_vals()'s two calls and its check of the
 * room were a fortieth of a report of processes waking each other. */
static inline void
rsp_model_append_reserved (GArray *array, guint room, gconstpointer elt, gsize size)
{
  if (G_LIKELY (array->len < room))
    {
      memcpy (array->data + (gsize) array->len * size, elt, size);
      array->len++;
    }
  else
    g_array_append_vals (array, elt, 1);
}

/* The context switches an RSP recording's health table says it holds
 * (rsp_assembler_reserve()), 0 when it does not say; never more than
 * DATA_SIZE bytes of perf data could hold (a switch is a sample of 64 bytes
 * or more), whatever a damaged table claims. */
guint64 rsp_model_recorded_switches (const RspRecordingMeta *meta, guint64 data_size);

G_END_DECLS
