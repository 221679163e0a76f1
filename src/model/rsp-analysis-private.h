/* rsp-analysis-private.h — what the analysis's parts share: the analysis
 * itself and the steps each part offers the others.
 *
 *   rsp-analysis.c       building (rsp_analysis_new), freeing, queries
 *   rsp-control-paths.c  segments: the pseudo-stacks of the control paths
 *   rsp-accounting.c     the table of stretches: a category for every
 *                        nanosecond no child covers
 *   rsp-findings.c       findings: stretches summed by cause
 */
#pragma once

#include "rsp-analysis.h"
#include "rsp-model-private.h"

G_BEGIN_DECLS

/* Deeper chains than this are cut: they are loops of wake-ups, not calls. */
#define MAX_DEPTH 48

struct _RspAnalysis {
  RspModel *m;   /* a reference of the analysis's own: the model outlives it */
  guint n_tasks;     /* the model's, at analysis time: the per-task arrays' length */
  gint32 pid;
  gint32 tid;    /* > 0: only that thread of PID is a lane of control path 0 */
  RspIdx target_task;
  guint64 start, end;

  GArray *segments;  /* RspSegment */
  GArray *paths;     /* RspControlPath */
  GHashTable *path_of_run; /* run -> path id + 1, for runs that head a path */

  /* per task: its runs sorted by start (indexes into the model); these
   * three are the model's shared index (rsp_model_get_index) */
  GArray **task_runs;
  /* per task: its disk operations (indexes) */
  GArray **task_disk_ops;
  RspDiskReach *task_disk_reach; /* rsp-model-private.h */
  /* per task: the stretches its segments so far cover, RspCovered, in
   * time order and apart (NULL: none yet) */
  GArray **covered;
  GHashTable *device_ops;  /* dev -> GArray of op indexes, in insert order (the model's) */
  GHashTable *device_reach; /* rsp-model-private.h */

  guint64 category_ns[RSP_CAT_N];
  guint64 inferred_ns[RSP_CAT_N]; /* the part of each inferred from a sleeper's stack */
  GHashTable *path_task_ns;  /* (path << 32 | task) -> guint64* */
  /* FindingKey -> index in findings, while the accounting adds to them:
   * open addressing, FINDING_SLOTS_MIN or more slots (a power of two), at
   * most half full; NULL after analysis_sort_findings() */
  struct _FindingSlot *finding_slots;
  guint finding_mask;
  GArray *findings;          /* RspFinding */
  GArray *finding_best;      /* guint64: largest single contribution, to pick the path */
  GArray *finding_leaf;      /* FindingLeaf: where that contribution is, until the paths are made */
  RspFindingStep *finding_steps; /* every finding's path, one after another */

  /* The table of stretches the accounting decided, grouped by segment and
   * in time order within one: segment i's are
   * [seg_first_stretch[i], seg_first_stretch[i + 1]). */
  GArray *stretches;         /* RspStretch */
  guint32 *seg_first_stretch;
  /* Finding i's stretches, in time order: finding_stretches[finding_first[i]
   * .. finding_first[i + 1]), indexes into stretches. */
  guint32 *finding_first;
  guint32 *finding_stretches;

  /* the accounting's scratch, kept across the disk waits it splits:
   * candidate requests (RspIdx) and cut points (guint64) */
  GArray *disk_cand, *disk_cuts;
};

/* Findings aggregate by process name, not thread: sixty cc1 processes of
 * a build are one cause. */
typedef struct {
  RspCategory category;
  const char *comm;
  const char *frame;
  const char *endpoint;
  const char *file;
  gboolean own; /* a task of the process of interest: never merged with namesakes */
} FindingKey;

/* Where a finding's largest contribution lies: its path is made from
 * there once the accounting is done (analysis_sort_findings()). */
typedef struct {
  RspIdx seg;
  const char *frame;
} FindingLeaf;


/* ------------------------------------------------------------------ indexes */

static inline const RspRun *
run_at (const RspAnalysis *a, RspIdx r)
{
  return &g_array_index (a->m->runs, RspRun, r);
}

static inline const RspSleep *
sleep_at (const RspAnalysis *a, RspIdx s)
{
  return &g_array_index (a->m->sleeps, RspSleep, s);
}

static inline RspSegment *
seg_at (RspAnalysis *a, RspIdx i)
{
  return &g_array_index (a->segments, RspSegment, i);
}


/* rsp-control-paths.c */
void analysis_build_indexes (RspAnalysis *a);
guint32 analysis_new_path (RspAnalysis *a, guint64 start, guint64 end);
guint analysis_emit_timeline (RspAnalysis *a, RspIdx task, guint64 ws, guint64 we, guint32 path, guint16 depth,
                              RspIdx parent);
void analysis_expand_children (RspAnalysis *a, RspIdx first, guint n);
const char *analysis_segment_endpoint (RspAnalysis *a, const RspSegment *s);
/* The file a segment's sleep was doing I/O on (RspSleep.file), or NULL. */
const char *analysis_segment_file (RspAnalysis *a, const RspSegment *s);

/* rsp-accounting.c */
void analysis_account (RspAnalysis *a, RspIdx seg_idx);
void analysis_index_stretches (RspAnalysis *a);

/* rsp-findings.c */
guint32 analysis_add_finding (RspAnalysis *a, RspCategory cat, RspIdx seg_idx, const char *frame, const char *endpoint,
                              const char *file,
                           guint64 start, guint64 ns);
/* Ranks the findings, largest first, and indexes each one's stretches
 * (after analysis_index_stretches). */
void analysis_sort_findings (RspAnalysis *a);

G_END_DECLS
