/* rsp-requests.h — many requests, not one: each request of a recording
 * analysed as the process of interest over its own stretch of time (the
 * same control paths, accounting and findings as one report), their
 * latency distribution, the split into a slow tail and the rest, and what
 * accounts for the difference between the two (docs/REQUESTS.md).
 *
 * What one request is comes from a specification:
 *   "runs"     each run of the command `rsp record --repeat N` ran (the
 *              recording's list of runs: pid, release and end);
 *   "tcp:PORT" each exchange on a server's TCP port: on every connection
 *              whose own port is PORT, from the first data received to the
 *              last data sent before the next request (keep-alive
 *              connections carry several), in the thread that received it;
 *   "probe:FUNCTION" each outermost call of FUNCTION, entry to return, in
 *              its thread (rsp record --probe BINARY:FUNCTION).
 *
 * Everything is computed once, in rsp_requests_new (); the text and JSON
 * reports (rsp-report.h) and the tests read it.
 */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

#define RSP_REQUESTS_ERROR (rsp_requests_error_quark ())
GQuark rsp_requests_error_quark (void);

typedef enum {
  RSP_REQUESTS_ERROR_SPEC,  /* the specification is not understood */
  RSP_REQUESTS_ERROR_NONE,  /* the recording holds no request of that kind */
} RspRequestsError;

typedef enum {
  RSP_REQUESTS_RUNS,
  RSP_REQUESTS_TCP,
  RSP_REQUESTS_PROBE,
} RspRequestsKind;

/* How the slow tail was chosen. */
typedef enum {
  RSP_SLOW_NONE,        /* no request is slower than the rest (all alike, or too few) */
  RSP_SLOW_MODE,        /* the slow mode of a histogram with more than one */
  RSP_SLOW_P90,         /* above the 90th percentile */
  RSP_SLOW_GIVEN,       /* above the threshold the user gave */
} RspSlowSplit;

typedef struct {
  guint64 start, end;             /* recording clock: what was analysed */
  gint32 pid;                     /* the process that handled it */
  RspIdx task;                    /* its main thread (for names) */
  gint exit_status;               /* runs: the run's exit status; else -1 */
  guint64 category_ns[RSP_CAT_N]; /* its accounting, every control path */
  gboolean slow;                  /* in the slow tail */
} RspRequest;

/* One thing that accounts for the difference between the slow tail and
 * the rest: a category of time of one process (by command name, since
 * every run is a new pid) in one function. */
typedef struct {
  RspCategory category;
  const char *comm;    /* the process it happens in */
  gint32 pid;          /* ... when it is the same process in every request, else 0 */
  const char *frame;   /* NULL if unknown */
  RspIdx task;         /* a task it happened in (for the sentence) */
  gdouble slow_mean_ns, fast_mean_ns; /* mean per request of each group (0 where absent) */
  gdouble extra_ns;    /* slow_mean_ns - fast_mean_ns */
  gdouble variance_share; /* cov(its time, duration) / var(duration), over all requests */
  guint n_slow, n_fast;   /* requests of each group where it occurs */
} RspRequestCause;

typedef struct _RspRequests RspRequests;

/* Parses SPEC ("runs", "tcp:PORT") and analyses every request of MODEL.  SLOW_ABOVE_NS
 * (0: choose) puts the requests longer than it into the slow tail. */
RspRequests *rsp_requests_new (const RspModel *model, const char *spec, guint64 slow_above_ns, GError **error);
/* The same, and with KEEP_ANALYSES each request's analysis is kept for
 * rsp_requests_analysis (the viewer draws their flames). */
RspRequests *rsp_requests_new_full (const RspModel *model, const char *spec, guint64 slow_above_ns,
                                    gboolean keep_analyses, GError **error);
void rsp_requests_free (RspRequests *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspRequests, rsp_requests_free)

/* Whether MODEL was recorded with `rsp record --repeat` (more than one run):
 * then "runs" is the report's default. */
gboolean rsp_requests_model_has_runs (const RspModel *model);

const RspModel *rsp_requests_model (const RspRequests *r);
RspRequestsKind rsp_requests_kind (const RspRequests *r);
const char *rsp_requests_spec (const RspRequests *r); /* as given, normalised: "runs", "tcp:80" */
guint rsp_requests_n (const RspRequests *r);
const RspRequest *rsp_requests_get (const RspRequests *r, guint i); /* in time order */
/* How many requests could not be analysed (a run that never ran, a
 * request never answered in the recording). */
guint rsp_requests_n_skipped (const RspRequests *r);

/* The analysis of request I, when the requests were made keeping them;
 * else NULL.  Owned by R. */
const RspAnalysis *rsp_requests_analysis (const RspRequests *r, guint i);

guint64 rsp_requests_duration (const RspRequest *request);
/* Nearest-rank percentile P (0 < P <= 100) of the durations; 0 when empty. */
guint64 rsp_requests_percentile (const RspRequests *r, gdouble p);
guint64 rsp_requests_min (const RspRequests *r);
guint64 rsp_requests_max (const RspRequests *r);
gdouble rsp_requests_mean (const RspRequests *r);

/* The latency histogram: N_BINS equal bins from *LOW (ns) of *WIDTH ns
 * each, covering every duration; returns the counts (N_BINS of them,
 * owned by R). */
const guint *rsp_requests_histogram (const RspRequests *r, guint *n_bins, guint64 *low, guint64 *width);

/* The bin of the histogram a request of DURATION ns falls in. */
guint rsp_requests_histogram_bin (const RspRequests *r, guint64 duration);

RspSlowSplit rsp_requests_slow_split (const RspRequests *r);
/* Requests longer than this are slow; 0 with RSP_SLOW_NONE. */
guint64 rsp_requests_slow_threshold (const RspRequests *r);
guint rsp_requests_n_slow (const RspRequests *r);
/* Mean of a category per request in the slow tail and in the rest. */
gdouble rsp_requests_category_mean (const RspRequests *r, RspCategory cat, gboolean slow);
gdouble rsp_requests_mean_duration (const RspRequests *r, gboolean slow);

/* The rule that picks the slow tail, on durations sorted ascending (N of
 * them): above SLOW_ABOVE_NS when it is not 0, else the slow mode, else
 * above the 90th percentile, else none; *THRESHOLD gets the threshold (0
 * with RSP_SLOW_NONE). */
RspSlowSplit rsp_requests_split_durations (const guint64 *sorted, guint n, guint64 slow_above_ns, guint64 *threshold);

/* The causes, largest extra time first (only those that add time to the slow
 * tail: extra_ns > 0). */
guint rsp_requests_n_causes (const RspRequests *r);
const RspRequestCause *rsp_requests_cause (const RspRequests *r, guint i);

G_END_DECLS
