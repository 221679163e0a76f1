/* rsp-diff.h — the difference between two analyses of two recordings (rsp
 * diff A B): the accountings side by side, and the things whose time
 * changed most — a category of time of one process (by command name) in
 * one function, as the findings name them — ranked by how much.
 *
 * Processes are matched by command and position in the process tree,
 * never by pid (rsp_diff_match_process): pids differ between recordings.
 */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

typedef struct {
  RspCategory category;
  const char *comm;    /* the process it happens in (A's or B's name, the same) */
  const char *frame;   /* NULL if unknown */
  RspIdx a_task, b_task; /* a task of each recording where it happens, RSP_NONE where absent */
  guint64 a_ns, b_ns;
  gint64 delta_ns;     /* b_ns - a_ns */
} RspDiffChange;

typedef struct _RspDiff RspDiff;

/* Compares the analysis A (the "before") with B (the "after"); both stay
 * owned by the caller and must outlive the diff. */
RspDiff *rsp_diff_new (const RspAnalysis *a, const RspAnalysis *b);
void rsp_diff_free (RspDiff *diff);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspDiff, rsp_diff_free)

const RspAnalysis *rsp_diff_a (const RspDiff *diff);
const RspAnalysis *rsp_diff_b (const RspDiff *diff);
/* The changes, the largest |delta| first (those that did not change left out). */
guint rsp_diff_n_changes (const RspDiff *diff);
const RspDiffChange *rsp_diff_change (const RspDiff *diff, guint i);

/* The process of B that matches process PID_A of A: the same command
 * names along its ancestry (the forking processes up to the first one
 * recorded) and the same rank among the processes with those names, in
 * order of appearance.  0 when B has none. */
gint32 rsp_diff_match_process (const RspModel *a, gint32 pid_a, const RspModel *b);

G_END_DECLS
