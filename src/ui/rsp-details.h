/* rsp-details.h — what the details pane says about a moment of a flame
 * view: the task and its run or sleep, the stretch the accounting made of
 * that moment (category, inferred or observed), what explains it — the
 * run that woke it, the disk request with its device, sector, size and
 * service time, the socket and its peer, a timer, an interrupt, a CPU
 * sample — and the finding it belongs to, with the time range of what
 * explains it for a "go to" link.  Composed from the analysis' table of
 * stretches (rsp_analysis_stretch_at); nothing here decides a category.
 * No GTK. */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

typedef struct {
  const RspStretch *stretch; /* the stretch at the moment, NULL if none (a run's gap) */
  char *markup;              /* the pane's text, Pango markup, several lines */
  char *summary;             /* one plain line: category and cause (logs, screen readers) */
  guint64 jump_start, jump_end; /* what explains it, recording clock; 0, 0 if nothing to go to */
  const char *jump_label;    /* the link's label (translated, with a mnemonic), or NULL */
} RspDetails;

/* The details of SEGMENT at time T (recording clock) of ANALYSIS, the
 * box named NAME (or NULL) selected there. */
RspDetails *rsp_details_new (const RspAnalysis *analysis, RspIdx segment, guint64 t, const char *name);

/* What the details pane says about an item of the process running view,
 * from the model alone: a run (its CPU, how it started, the sleep before it
 * and what ended that), a sleep (its state, the function it slept in, what
 * ended it: the waker's run, a timer, a disk request, network data, an
 * interrupt), a disk request, a network wait, or a link.  The jump goes to
 * what explains it (the waker's run, the request, the wait). */
typedef enum {
  RSP_DETAILS_RUN,
  RSP_DETAILS_SLEEP,
  RSP_DETAILS_DISK_OP,
  RSP_DETAILS_NET_OP,
  RSP_DETAILS_LINK,
} RspDetailsItem;
RspDetails *rsp_details_new_for_item (const RspModel *model, RspDetailsItem kind, RspIdx item);
void rsp_details_free (RspDetails *details);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspDetails, rsp_details_free)

G_END_DECLS
