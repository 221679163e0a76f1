/* rsp-model.h — RSP's model of a recording (paper §4–5; docs/MODEL.md).
 *
 * Built in one pass over the time-ordered events: tasks, runs, sleeps,
 * samples, links, disk and network operations.  Then, for a process of
 * interest, the recursive pseudo-stack procedure assigns activity to control
 * paths (rsp-control-paths.c), every nanosecond of every lane is put in one
 * accounting category (rsp-accounting.c), and the leaves are ranked into
 * findings (rsp-findings.c).
 *
 * Plain structs in arrays, referenced by index (RspIdx); strings interned.
 * GLib only: no GTK, no Cairo, no perf.data details beyond RspEvent.
 */
#pragma once

#include <glib.h>

#include "rsp-files.h"
#include "rsp-perf-reader.h"
#include "rsp-symbols.h"

G_BEGIN_DECLS

typedef guint32 RspIdx;
#define RSP_NONE G_MAXUINT32

/* Tolerances of the paper's procedure, as named constants. */
#define RSP_FIT_TOLERANCE_NS (100 * 1000)       /* a child may overhang its parent sleep by this */
#define RSP_POLL_MERGE_GAP_NS (100 * 1000)      /* timed-out polls separated by runs shorter than this merge */
#define RSP_FILE_VALID_NS (1000 * 1000 * 1000) /* a task's file event names its disk requests this long */
#define RSP_SAMPLE_GRACE_NS (20 * 1000)         /* a sample this long after a run's end still belongs to it */
#define RSP_IRQ_WAKE_WINDOW_NS (200 * 1000)     /* a completion this close before a wake-up caused it */
#define RSP_IRQ_EXIT_GAP_NS (2 * 1000)          /* a softirq this close after a handler's (or its softirqs') end ran at its exit */
#define RSP_IPI_COMPLETION_NS (20 * 1000)       /* a completion this close before a stackless wake-up in the run it interrupted caused it */
#define RSP_EARLY_WAKE_WINDOW_NS (100 * 1000)   /* a wake-up this close before a blocking switch-out ends that sleep */

/* ------------------------------------------------------------------ stacks */

typedef struct {
  const char *symbol; /* interned, NULL if unknown */
  const char *dso;    /* interned, NULL if unmapped */
  guint64 ip;
  guint64 offset;     /* without a symbol, in a file: the offset in it (RspFrame.offset) */
  gboolean kernel;
  /* what the views and exports call it, set the first time something asks
   * for the stacks' names (rsp_model_name_frames(), rsp_model_stack()): the
   * symbol, else the file's base name and the offset in it,
   * "libpython3.11.so.1.0+0x1a2b30", or the address where no file is
   * known: "[anon] 0x7f3a12c04e10" (anonymous memory: JIT code),
   * "[unmapped] 0x...", "[kernel] 0xffff...".  Never a bare "[unknown]". */
  const char *name;
} RspModelFrame;

typedef guint32 RspStackId; /* 0 = empty stack */

/* ------------------------------------------------------------------ entities */

typedef struct {
  gint32 tid, pid;
  const char *comm;     /* interned; the comm after exec, updated by COMM records */
  guint32 generation;   /* 0 for the first task seen with this tid, +1 per exec */
  RspIdx parent;        /* forking task, or the previous generation for an exec */
  guint64 start, end;   /* first and last activity */
  RspIdx first_run, last_run;
  guint32 n_runs;
  gboolean exited;
  gboolean is_idle;     /* swapper/N */
  gboolean ignored;     /* rsp record's --keep-awake spinners */
} RspTask;

typedef enum {
  RSP_RUN_START_SWITCH,   /* switched in */
  RSP_RUN_START_FORK,     /* first run of a new task */
  RSP_RUN_START_EXEC,     /* continues across exec in a new generation */
  RSP_RUN_START_INFERRED, /* no switch-in was recorded (docs/MODEL.md, "Missing events are normal") */
  RSP_RUN_START_RECORDING,/* was already running when the recording started */
} RspRunStart;

/* Laid out in 48 bytes (a large recording holds a run per context switch:
 * their first touch is much of its report's time). */
typedef struct {
  guint64 start, end;
  RspIdx task;
  gint32 cpu : 24;               /* CPU numbers stay far below 2^23 */
  RspRunStart start_kind : 8;
  RspIdx prev_sleep, next_sleep; /* RSP_NONE at the ends */
  RspIdx next_run;               /* the task's next run */
  RspIdx first_sample;
  guint32 n_samples;
  RspIdx wake_link;              /* link into this run, RSP_NONE if none */
} RspRun;

/* Why a sleep ended: one table, decided from the waker's context and stack
 * (handle_waking in rsp-assembler.c, with the kernel function names of
 * rsp-kernel-sigs.c). */
typedef enum {
  RSP_WAKE_UNKNOWN,     /* no wake-up was recorded */
  RSP_WAKE_RUN,         /* woken by a task's run (waker_run) */
  RSP_WAKE_TIMER,       /* a timer expired: a timeout, or a deliberate sleep */
  RSP_WAKE_DISK,        /* a disk completion (op) */
  RSP_WAKE_NETWORK,     /* network data from no visible local peer (op) */
  RSP_WAKE_IRQ,         /* another hardware interrupt (irq_name) */
  RSP_WAKE_PREEMPTION,  /* the sleep was a preemption: it ends when the CPU is given back */
  RSP_WAKE_FORK,        /* not a sleep: a new task's wait for its first run */
} RspWakeReason;

/* Laid out in 80 bytes, as RspRun. */
typedef struct {
  guint64 start, end;
  guint64 runnable_at;   /* when it was woken (waking time); start for preemptions */
  guint64 defacto_start; /* start of the series of timed-out polls it ends */
  const char *irq_name;  /* RSP_WAKE_IRQ */
  const char *file;      /* DISK and RUN: the file its task was doing I/O on (a path, or "device M:m inode N"), or NULL */
  RspIdx task;
  RspIdx prev_run, next_run;
  RspStackId stack;      /* switch-out callchain */
  RspIdx waker_run;      /* RSP_WAKE_RUN (and loopback network) */
  RspIdx disk_op;        /* RSP_WAKE_DISK */
  RspIdx net_op;         /* RSP_WAKE_NETWORK, or annotating a loopback RUN wake */
  guint32 prev_state : 24; /* sched_switch prev_state: the kernel's state bits (below 2^13 on every kernel) */
  RspWakeReason reason : 5;
  guint32 deliberate : 1;  /* a timer ending nanosleep/clock_nanosleep */
  guint32 inferred : 1;    /* no wake-up was recorded: the reason comes from its own stack */
} RspSleep;

typedef struct {
  guint64 time;
  RspIdx run;
  RspStackId stack;
} RspModelSample;

typedef enum {
  RSP_LINK_WAKEUP,
  RSP_LINK_FORK,
  RSP_LINK_EXEC,
  RSP_LINK_INTERRUPT,  /* horizontal: same task, run interrupted */
  RSP_LINK_PREEMPTION, /* horizontal */
  RSP_LINK_DISK,       /* from a disk operation */
  RSP_LINK_NETWORK,    /* from a network operation */
} RspLinkKind;

typedef struct {
  guint64 time;
  RspLinkKind kind;
  RspIdx from_run; /* RSP_NONE for operation links */
  RspIdx from_op;  /* disk or net op for those kinds */
  RspIdx to_run;
} RspLink;

typedef struct {
  guint32 dev;
  guint64 sector;
  guint32 nr_sector;
  char rwbs[8];
  RspIdx task;             /* issuing task (block_rq_insert context) */
  guint64 insert, issue, complete; /* 0 when not seen; a merged request's COMPLETE is its merge */
  gboolean issue_inferred, complete_inferred;
  /* merged into another request while queued (block_rq_merge; inferred
   * when it was never issued and a later request on the device was): its
   * data was served by that request, it was never issued itself (ISSUE 0) */
  gboolean merged;
  RspFileId file;          /* the file its issuing task was doing I/O on (ino 0: none); named only where
                            * a wait takes it (a copy of many files has a request for each) */
} RspDiskOp;

/* A disk request's two stretches: queued from QUEUED (its insert; 0 when
 * not seen) to SERVED, in service from SERVED to END.  END is its
 * completion, or OPEN_END when none was seen.  A request never issued
 * (merged into another one, or still queued when the recording ended) was
 * only ever queued: SERVED is END, its service empty.  The accounting, the
 * timeline and the details all read a request's stretches from here. */
typedef struct {
  guint64 queued, served, end;
} RspDiskOpSpans;

static inline RspDiskOpSpans
rsp_disk_op_spans (const RspDiskOp *op, guint64 open_end)
{
  guint64 end = op->complete != 0 ? op->complete : open_end;
  return (RspDiskOpSpans){ op->insert, op->issue != 0 ? op->issue : end, end };
}

typedef struct {
  guint64 sk;
  guint16 family, protocol;
  RspIdx task;          /* the task that waited */
  guint64 send, ready;  /* last send before the wait; data ready */
  const char *endpoint; /* "127.0.0.1:5432" (remote end) or NULL */
  gboolean loopback_peer; /* the data came from a local task's run */
} RspNetOp;

/* A TCP send or receive of a task (sock_send_length, sock_recv_length with
 * data): what requests on a server's port are made of. */
typedef struct {
  guint64 time;
  RspIdx task;
  guint64 sk;
  guint32 bytes;
  guint16 local_port;   /* the socket's own port when the event fired (0 if unknown) */
  gboolean send;
} RspSockIo;

/* An entry into or a return from a function rsp record --probe watched. */
typedef struct {
  guint64 time;
  RspIdx task;
  const char *function; /* interned */
  gboolean ret;
} RspProbeHit;

/* Anomalies: missing events are normal (docs/MODEL.md); each is counted. */
typedef enum {
  RSP_ANOMALY_MISSING_SWITCH_OUT, /* a task switched in on a CPU whose previous task never switched out */
  RSP_ANOMALY_MISSING_SWITCH_IN,  /* a task switched out without having switched in */
  RSP_ANOMALY_MISSING_WAKEUP,     /* a voluntary sleep ended with no recorded wake-up */
  RSP_ANOMALY_MISSING_COMPLETION, /* a disk request never completed in the recording */
  RSP_ANOMALY_MISSING_ISSUE,      /* a disk request completed without an issue */
  RSP_ANOMALY_ORPHAN_SAMPLE,      /* a sample outside every run of its task */
  RSP_ANOMALY_LOST_EVENTS,        /* PERF_RECORD_LOST */
  RSP_ANOMALY_INFERRED_DISK,      /* a sleep with no wake-up taken as a wait for its task's disk request */
  RSP_ANOMALY_INFERRED_TIMER,     /* a sleep with no wake-up taken as a timeout or a deliberate sleep */
  RSP_ANOMALY_MISSING_IRQ_EXIT,   /* an interrupt handler, softirq or timer callback open so long its exit was lost */
  RSP_ANOMALY_N
} RspAnomaly;

const char *rsp_anomaly_id (RspAnomaly anomaly);

/* ------------------------------------------------------------------ the model */

typedef struct _RspModel RspModel;

/* Called now and then while a recording is read, with how far it got;
 * returns FALSE to stop: the load then fails with
 * RSP_READER_ERROR_CANCELLED. */
typedef gboolean (*RspProgressFunc) (gdouble fraction, gpointer user_data);

/* The model is shared by reference: every holder (a window, a view, an
 * analysis) keeps it alive; the last unref frees it. */
RspModel *rsp_model_ref (const RspModel *model);
void rsp_model_unref (RspModel *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspModel, rsp_model_unref)

/* Opens PATH, sets up symbols as rsp dump does, builds.  The reader's
 * warnings are appended to WARNINGS when it is not NULL. */
RspModel *rsp_model_load (const char *path, RspProgressFunc progress,
                          gpointer progress_data, GPtrArray *warnings, GError **error);
/* The same; with OFFLINE, only the symbols the recording stores, never this
 * machine's binaries or /proc/kallsyms (rsp dump/report/diff --offline). */
RspModel *rsp_model_load_offline (const char *path, gboolean offline,
                                  RspProgressFunc progress, gpointer progress_data, GPtrArray *warnings,
                                  GError **error);

guint rsp_model_n_tasks (const RspModel *m);
const RspTask *rsp_model_task (const RspModel *m, RspIdx i);
guint rsp_model_n_runs (const RspModel *m);
const RspRun *rsp_model_run (const RspModel *m, RspIdx i);
guint rsp_model_n_sleeps (const RspModel *m);
const RspSleep *rsp_model_sleep (const RspModel *m, RspIdx i);
guint rsp_model_n_samples (const RspModel *m);
const RspModelSample *rsp_model_sample (const RspModel *m, RspIdx i);
guint rsp_model_n_links (const RspModel *m);
const RspLink *rsp_model_link (const RspModel *m, RspIdx i);
guint rsp_model_n_disk_ops (const RspModel *m);
const RspDiskOp *rsp_model_disk_op (const RspModel *m, RspIdx i);
guint rsp_model_n_net_ops (const RspModel *m);
const RspNetOp *rsp_model_net_op (const RspModel *m, RspIdx i);
guint rsp_model_n_sock_ios (const RspModel *m);              /* in time order */
const RspSockIo *rsp_model_sock_io (const RspModel *m, RspIdx i);
guint rsp_model_n_probe_hits (const RspModel *m);            /* in time order */
const RspProbeHit *rsp_model_probe_hit (const RspModel *m, RspIdx i);

/* Frames of a stack, innermost first, each with its name (the first call
 * on a model names every frame: rsp_model_name_frames()). */
const RspModelFrame *rsp_model_stack (const RspModel *m, RspStackId stack, guint *n_frames);
/* Sets every frame's name, once: the first call does the work (a tenth
 * of a report of a build, whose compilers have no symbols), later ones
 * return at once; safe from any thread.  What reads names calls it
 * (rsp_model_stack() does); the report's text and the accounting do not
 * need them.  Does nothing on a model not yet assembled. */
void rsp_model_name_frames (const RspModel *m);
/* The function that best describes a sleep: the innermost user-space
 * function of its switch-out stack (paper §4.2), else the innermost kernel
 * function that is not scheduler plumbing.  NULL when unknown. */
const char *rsp_model_sleep_frame (const RspModel *m, RspIdx sleep);
/* The innermost user-space function of a sample, else its innermost kernel function. */
const char *rsp_model_sample_frame (const RspModel *m, RspIdx sample);

guint64 rsp_model_anomaly_count (const RspModel *m, RspAnomaly anomaly);
guint64 rsp_model_start_time (const RspModel *m); /* first event */
guint64 rsp_model_end_time (const RspModel *m);   /* last event */
guint64 rsp_model_n_events (const RspModel *m);
guint64 rsp_model_lost_events (const RspModel *m);
const RspRecordingMeta *rsp_model_meta (const RspModel *m); /* NULL for a plain perf.data */

/* Finds the task a target names: PID (any generation; the one after the
 * last exec when several), else by COMM (busiest match).  RSP_NONE if none. */
RspIdx rsp_model_find_process (const RspModel *m, gint32 pid, const char *comm);
typedef struct {
  gint32 pid;
  guint64 cpu_ns;
  const char *comm;
} RspProcessSummary;

/* Processes ordered by CPU time, busiest first (for "did you mean" lists):
 * a GArray of RspProcessSummary. */
GArray *rsp_model_busiest_processes (const RspModel *m, guint max);

G_END_DECLS
