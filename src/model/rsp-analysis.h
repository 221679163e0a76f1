/* rsp-analysis.h — the recursive pseudo-stacks and control paths of one
 * process of interest (paper §4.1, §5.2 "Recursive Stack Making",
 * "Triangles"), the accounting of every nanosecond of them into the
 * categories of docs/REPORT-JSON.md, and the ranked findings.
 *
 * Control path 0 holds one lane per thread of the process of interest.  A
 * lane is a series of segments (runs and sleeps of its task, clipped to the
 * lane); the thing that ended a sleep becomes that sleep's child — the
 * waker task's own segments over the sleep's window, one layer deeper —
 * when it fits inside the sleep (RSP_FIT_TOLERANCE_NS, de facto start of
 * timed-out polls); a waker that does not fit starts (or joins) another
 * control path, and the sleep waits "on other path".  Segments are clipped
 * to their parent's window, which is where triangles are cut: a child's
 * earlier activity is not on behalf of the parent.
 */
#pragma once

#include "rsp-model.h"

G_BEGIN_DECLS

/* In the order of docs/REPORT-JSON.md's table (the JSON lists them in this order). */
typedef enum {
  RSP_CAT_CPU_SAMPLED,
  RSP_CAT_CPU_UNSAMPLED,
  RSP_CAT_DISK_IO,
  RSP_CAT_IO_QUEUE,
  RSP_CAT_NETWORK,
  RSP_CAT_SCHEDULER,
  RSP_CAT_PREEMPTED,
  RSP_CAT_HARDWARE,
  RSP_CAT_TIMEOUT,
  RSP_CAT_SLEEP,
  RSP_CAT_KERNEL_MISC,
  RSP_CAT_OTHER_PATH,
  RSP_CAT_UNACCOUNTED,
  RSP_CAT_N
} RspCategory;

const char *rsp_category_id (RspCategory cat);    /* "cpu_sampled" */
const char *rsp_category_label (RspCategory cat); /* "In understood functions" */

typedef enum {
  RSP_SEG_RUN,
  RSP_SEG_SLEEP,
} RspSegmentKind;

typedef struct {
  guint32 path;
  guint16 depth;
  guint16 kind;        /* RspSegmentKind */
  RspIdx item;         /* run or sleep index in the model */
  RspIdx task;
  RspIdx parent;       /* parent segment, RSP_NONE at depth 0 */
  RspIdx first_child;  /* children are contiguous: [first_child, first_child + n_children) */
  guint32 n_children;
  guint32 other_path;  /* for a sleep that waits on another path: its id, else G_MAXUINT32 */
  guint64 start, end;  /* clipped to the lane / parent */
} RspSegment;

typedef struct {
  guint32 id;
  guint64 start, end;  /* span of its lanes */
  guint64 category_ns[RSP_CAT_N]; /* this path's accounting */
  guint64 total;       /* sum of its lanes' lengths */
  RspIdx first_root;   /* root segments (depth 0) of its lanes, in the segment array */
  guint32 n_roots;
  GArray *task_time;   /* RspPathTask: time per task in this path */
} RspControlPath;

typedef struct {
  RspIdx task;
  guint64 ns;          /* time this task is the deepest layer */
} RspPathTask;

typedef struct {
  RspIdx task;
  const char *frame;
  const char *endpoint; /* the network peer this step waited on, if any */
} RspFindingStep;

typedef struct {
  RspCategory category;
  RspIdx task;
  const char *frame;     /* representative function, NULL if unknown */
  const char *file;      /* file of a disk operation, when known */
  const char *endpoint;  /* remote endpoint of a network operation */
  guint64 ns;
  const RspFindingStep *path; /* from the process of interest to the leaf, N_PATH steps (the analysis's) */
  guint n_path;
  guint64 best_start, best_end; /* its largest stretch, recording clock (views scroll to it) */
} RspFinding; /* its sentence: rsp_finding_describe () (rsp-describe.h) */

typedef struct _RspAnalysis RspAnalysis;

#define RSP_ANALYSIS_ERROR (rsp_analysis_error_quark ())
GQuark rsp_analysis_error_quark (void);
typedef enum {
  RSP_ANALYSIS_ERROR_NO_PROCESS,  /* the process never ran in the recording */
  RSP_ANALYSIS_ERROR_EMPTY_RANGE, /* it did nothing in the chosen time range */
} RspAnalysisError;

/* Analyses the process PID (all its threads and exec generations) over
 * [FROM, TO] (recording-clock ns; 0 and G_MAXUINT64 for everything). */
RspAnalysis *rsp_analysis_new (const RspModel *model, gint32 pid, guint64 from, guint64 to, GError **error);
/* The same for one thread TID of PID only (0: all of them): a request a
 * server's thread handled. */
RspAnalysis *rsp_analysis_new_for_thread (const RspModel *model, gint32 pid, gint32 tid, guint64 from, guint64 to,
                                          GError **error);
void rsp_analysis_free (RspAnalysis *analysis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspAnalysis, rsp_analysis_free)

const RspModel *rsp_analysis_model (const RspAnalysis *a);
gint32 rsp_analysis_pid (const RspAnalysis *a);
RspIdx rsp_analysis_target_task (const RspAnalysis *a); /* main thread, latest generation */
guint64 rsp_analysis_start (const RspAnalysis *a);
guint64 rsp_analysis_end (const RspAnalysis *a);

guint rsp_analysis_n_segments (const RspAnalysis *a);
const RspSegment *rsp_analysis_segment (const RspAnalysis *a, RspIdx i);
guint rsp_analysis_n_paths (const RspAnalysis *a);
const RspControlPath *rsp_analysis_path (const RspAnalysis *a, guint i);

/* The processes the analysis crosses: the process of interest first, then
 * every other process with a segment on a control path, the one whose
 * segments (its own layer of the pseudo-stack, the layers on it not
 * counted twice) take longest first.  A GArray of gint32 pids; unref it. */
GArray *rsp_analysis_processes (const RspAnalysis *a);

/* Accounting: ns per category, summed over every lane of every path (each
 * path's own: RspControlPath.category_ns). */
guint64 rsp_analysis_category_ns (const RspAnalysis *a, RspCategory cat);
/* The part of a category's time that comes from sleeps whose wake-up was
 * not recorded, decided from the sleeper's own stack (RspSleep.inferred). */
guint64 rsp_analysis_inferred_ns (const RspAnalysis *a, RspCategory cat);
guint64 rsp_analysis_wall_ns (const RspAnalysis *a);
guint64 rsp_analysis_total_ns (const RspAnalysis *a);
guint64 rsp_analysis_accounted_ns (const RspAnalysis *a);
gdouble rsp_analysis_accounted_percent (const RspAnalysis *a);

/* Findings, largest first. */
guint rsp_analysis_n_findings (const RspAnalysis *a);
const RspFinding *rsp_analysis_finding (const RspAnalysis *a, guint i);

/* What makes findings of different analyses (other requests, another
 * recording) the same cause: category, process name and frame, never the
 * pid.  A string key; g_free it. */
char *rsp_finding_cause_key (const RspModel *model, const RspFinding *finding);
/* The slot of FINDING's cause in SLOTS (a GArray of any element; a new
 * cause gets a zeroed element appended, and *IS_NEW is set), looked up in
 * INDEX (g_str_hash keys owned by it: cause key -> slot + 1). */
guint rsp_finding_cause_slot (GHashTable *index, GArray *slots, const RspModel *model, const RspFinding *finding,
                              gboolean *is_new);

/* What explains a stretch (RspStretch.link_kind; link is an index into the
 * model's array of that kind). */
typedef enum {
  RSP_CAUSE_NONE,
  RSP_CAUSE_WAKEUP,   /* the run that woke the sleeper: rsp_model_run (link) */
  RSP_CAUSE_DISK,     /* the disk request in service or queued: rsp_model_disk_op (link) */
  RSP_CAUSE_NETWORK,  /* the packet's socket operation: rsp_model_net_op (link) */
  RSP_CAUSE_TIMER,    /* a timer's expiry (link is RSP_NONE) */
  RSP_CAUSE_IRQ,      /* another hardware interrupt (link is RSP_NONE; the frame names it) */
  RSP_CAUSE_SAMPLE,   /* CPU time: the sample whose share of the run it is (link) */
} RspCauseKind;

/* The table of stretches: the accounting's decision for every part of
 * every segment that no child covers, made once.  Views, reports and tests
 * read it; nothing outside the model decides a category. */
typedef struct {
  guint64 start, end;   /* recording clock */
  RspIdx segment;
  guint16 category;     /* RspCategory */
  guint16 inferred;     /* a sleep whose wake-up was not recorded: decided from the sleeper's stack */
  const char *frame;    /* the function it is attributed to (a sample's, a sleep's), or NULL */
  const char *endpoint; /* the network peer it waited on, or NULL */
  const char *file;     /* disk_io, io_queue: the file it waited for (a path, or "device M:m inode N"), or NULL */
  RspIdx sample;        /* RSP_CAT_CPU_SAMPLED: the sample whose share of the run it is; else RSP_NONE */
  guint32 link_kind;    /* RspCauseKind: what explains it */
  RspIdx link;          /* ... its index, or RSP_NONE */
  guint32 finding;      /* the finding it is part of: rsp_analysis_finding (finding) */
} RspStretch;

/* Time waited for the disk (disk_io and io_queue stretches) per file. */
typedef struct {
  const char *file;   /* a path, "device M:m inode N", or NULL for the waits whose file is not known */
  guint64 ns;         /* disk_io + io_queue */
  guint64 queue_ns;   /* of which io_queue */
  guint64 inferred_ns;/* of which inferred (no wake-up recorded) */
  guint waits;        /* the sleeps it is made of */
} RspFileTotal;

/* The files behind the disk waits, most time first, the unknown ones
 * (file NULL) last; empty when there was no disk wait.  Free with
 * g_array_unref. */
GArray *rsp_analysis_file_totals (const RspAnalysis *a);

guint rsp_analysis_n_stretches (const RspAnalysis *a);
const RspStretch *rsp_analysis_stretch (const RspAnalysis *a, guint i);
/* SEGMENT's stretches, in time order: *N of them from the pointer returned
 * (NULL when N is 0). */
const RspStretch *rsp_analysis_segment_stretches (const RspAnalysis *a, RspIdx segment, guint *n);
/* The stretch at time T of SEGMENT's lane: one of SEGMENT's own, or, where
 * SEGMENT waited on another task then, one of the child segment covering
 * T, and so on up.  *OWNER (may be NULL) is the segment the search ended
 * in; NULL if no stretch covers T there. */
const RspStretch *rsp_analysis_stretch_at (const RspAnalysis *a, RspIdx segment, guint64 t, RspIdx *owner);
/* The instances of finding FINDING: *N indexes into the table of stretches
 * (rsp_analysis_stretch), in time order; their lengths add up to the
 * finding's ns. */
const guint32 *rsp_analysis_finding_stretches (const RspAnalysis *a, guint finding, guint *n);

G_END_DECLS
