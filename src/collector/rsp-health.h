/* rsp-health.h — recording health.
 *
 * docs/RECORDING.md, "The two channels": on some machines perf sampling silently drops tracepoint
 * events that fire in (soft)irq context while a CPU is idle, and writes no
 * PERF_RECORD_LOST.  Counting-mode perf events see them all.  So beside the
 * recording, each tracepoint of the set is counted per CPU ("counted"), and
 * afterwards compared with what the perf.data holds ("recorded": the
 * samples of that tracepoint timed inside the counters' window).
 *
 * --keep-awake keeps every CPU out of the idle task with one SCHED_IDLE
 * busy loop per online CPU, which makes perf record them all.
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "rsp-recording.h"

G_BEGIN_DECLS

/* The comparison window covers the counters' whole enabled span, so any
 * shortfall is a real loss; these thresholds only say when it is one. */
#define RSP_HEALTH_MIN_LOST 1
#define RSP_HEALTH_MAX_LOST_FRACTION 0.0

typedef struct _RspHealthCounters RspHealthCounters;

#define RSP_HEALTH_ERROR (rsp_health_error_quark ())
GQuark rsp_health_error_quark (void);
typedef enum {
  RSP_HEALTH_ERROR_FILTER, /* the kernel refused the counter's filter */
} RspHealthError;

/* Counters on the CPUs listed in CPUS (guint). */
RspHealthCounters *rsp_health_counters_new (const GArray *cpus);
void rsp_health_counters_free (RspHealthCounters *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspHealthCounters, rsp_health_counters_free)

/* Opens one disabled counting event per CPU for tracepoint ID, with FILTER
 * (the one perf records it with; NULL: none).  A filter the kernel
 * refuses is RSP_HEALTH_ERROR_FILTER (perf would refuse it too). */
gboolean rsp_health_counters_add (RspHealthCounters *self, const char *event, guint64 id, const char *filter,
                                  GError **error);
void rsp_health_counters_enable (RspHealthCounters *self);
void rsp_health_counters_disable (RspHealthCounters *self);
/* RspHealthEntry per added event, in order, with counted = the sum over the
 * CPUs and recorded = 0 (the caller fills it from the perf.data). */
GArray *rsp_health_counters_read (RspHealthCounters *self);

/* A GArray of RspHealthEntry that frees the entries' names. */
GArray *rsp_health_entries_new (void);

/* TRUE when ENTRY recorded clearly fewer events than were counted. */
gboolean rsp_health_entry_incomplete (const RspHealthEntry *entry);

typedef struct {
  guint n_checked;
  guint n_incomplete;
  guint n_covered;              /* short in perf's stream, complete through the tracefs instance */
  gboolean idle_loss_suspected; /* an irq-context tracepoint is incomplete, CPUs not kept awake */
  GPtrArray *warnings;          /* char *: one line each, naming the problem and the fix */
  char *summary;                /* one line for the final report */
} RspHealthVerdict;

/* Judges ENTRIES (RspHealthEntry).  KEEP_AWAKE says whether the recording
 * ran with --keep-awake (then no CPU idled, and a loss has another cause);
 * COVERED (NULL-terminated, may be NULL) names the events RSP's tracefs
 * instance recorded whole beside perf: perf's shortfall there is no loss;
 * LOST_RECORDS is what perf's PERF_RECORD_LOST records add up to.  The
 * warnings name the real fix; none suggests --keep-awake, the last resort. */
void rsp_health_judge (const GArray *entries, gboolean keep_awake, const char *const *covered, guint64 lost_records,
                       RspHealthVerdict *verdict);
void rsp_health_verdict_clear (RspHealthVerdict *verdict);

/* What perf kept, by kind: all its samples, and of them the cpu-clock
 * samples (the rest are tracepoint events), in number and in bytes. */
typedef struct {
  guint64 samples, clock_samples;
  guint64 bytes, clock_bytes;
} RspPerfKept;

/* The warning when perf's buffers overflowed (LOST_EVENTS and LOST_SAMPLES
 * from its PERF_RECORD_LOST records), with the fix that fits what filled
 * them (KEPT, by bytes: a DWARF sample carries 8 kB of stack, a tracepoint
 * event some 100 bytes).  A lower --freq helps only when cpu-clock samples
 * were the bulk; DWARF adds --call-graph fp.  Without "rsp record:
 * warning: ", newly allocated. */
char *rsp_health_perf_loss_text (guint64 lost_events, guint64 lost_samples, const RspPerfKept *kept, gboolean dwarf);

typedef struct _RspKeepAwake RspKeepAwake;

/* Starts one SCHED_IDLE busy loop pinned to each CPU of CPUS.  The loops die
 * with rsp (PR_SET_PDEATHSIG) and live in their own process group, so a
 * terminal Ctrl-C does not stop them early. */
RspKeepAwake *rsp_keep_awake_start (const GArray *cpus, GError **error);
/* Pids of the loops (gint32). */
const GArray *rsp_keep_awake_get_pids (RspKeepAwake *self);
/* Kills and reaps the loops; safe to call more than once. */
void rsp_keep_awake_stop (RspKeepAwake *self);
void rsp_keep_awake_free (RspKeepAwake *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspKeepAwake, rsp_keep_awake_free)

G_END_DECLS
