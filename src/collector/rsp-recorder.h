/* rsp-recorder.h — `rsp record`: drives `perf record -a` around a command
 * (or for a duration), and writes one RSP recording file: the perf.data
 * bytes, then a trailer with the metadata and the symbols used.
 *
 * Sequencing (nothing of COMMAND may be missed):
 *   fork COMMAND, held on a pipe (its pid is known before it execs);
 *   start the --keep-awake loops; open the health counters (disabled);
 *   start perf with events disabled (--delay=-1) and a control pipe;
 *   "ping" until perf answers (it has set everything up);
 *   "enable" and wait for the ack; enable the counters; take the start
 *   time; release COMMAND; wait for it; take the end time; record a short
 *   tail for the wake-ups at its exit; disable the counters; "disable" and
 *   wait for the ack; stop the loops; SIGINT perf and wait for it;
 *   post-pass over the perf.data (recorded counts, symbols); append the
 *   trailer; give the file to the invoking user; rename it into place.
 *
 * The counters run inside perf's enabled window, and the post-pass counts
 * only the samples timed inside the counters' window (both clocks are
 * CLOCK_MONOTONIC): the enable/disable handshake with perf takes a few
 * milliseconds, in which a busy machine fires enough events to look like
 * a loss.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RSP_RECORDER_ERROR (rsp_recorder_error_quark ())
GQuark rsp_recorder_error_quark (void);

typedef enum {
  RSP_RECORDER_ERROR_USAGE,       /* the arguments or the machine: the message says what to change */
  RSP_RECORDER_ERROR_PERF,        /* perf record failed, exited early or stopped answering */
  RSP_RECORDER_ERROR_INTERRUPTED, /* Ctrl+C or a signal before the recording started */
} RspRecorderError;

#define RSP_RECORDER_DEFAULT_OUTPUT "recording.rsp"
#define RSP_RECORDER_DEFAULT_FREQ 1000
#define RSP_RECORDER_MAX_FREQ 100000
#define RSP_RECORDER_MAX_REPEAT 1000000
/* Recording goes on this long after COMMAND ends, so that the wake-ups and
 * switches its exit causes are in the file. */
#define RSP_RECORDER_TAIL_MS 20

typedef enum {
  RSP_CALL_GRAPH_FP,
  RSP_CALL_GRAPH_DWARF,
} RspCallGraph;

typedef struct {
  char *output;           /* recording file to write */
  guint freq;             /* cpu-clock sampling frequency, Hz */
  RspCallGraph call_graph;
  double duration;        /* seconds; 0 = until COMMAND ends (or Ctrl-C) */
  guint repeat;           /* runs of COMMAND, one after the other (0 = 1) */
  guint pause_ms;         /* between runs */
  char **probes;          /* --probe BINARY:FUNCTION, NULL if none */
  gboolean keep_awake;    /* SCHED_IDLE loop on every CPU while recording */
  gboolean stop_on_eof;   /* standard input at its end stops the recording as an interrupt does */
  gboolean help;          /* --help was given: print usage, nothing else */
  char **command;         /* COMMAND and its arguments; NULL = whole system */
} RspRecorderOptions;

/* Parses the arguments of `rsp record` (ARGV[0] is "record").  Options stop
 * at "--" or at the first argument that is not an option, as with perf. */
gboolean rsp_recorder_options_parse (int argc, char **argv, RspRecorderOptions *options,
                                     GError **error);
void rsp_recorder_options_clear (RspRecorderOptions *options);
const char *rsp_recorder_usage (void);

/* The perf record command line: PERF record -a, the clock, the call graph,
 * events disabled until "enable" on CTL_FD (acks on ACK_FD), OUTPUT, every
 * tracepoint of TRACEPOINTS at period 1, and cpu-clock as the only sampled
 * event with its own frequency (never a global -F: perf would put the
 * tracepoints into frequency mode too, and they would be sampled instead of
 * all recorded).  FILTERS (RspEventFilter, may be NULL) gives the
 * tracepoints recorded in part their --filter.
 * LARGE_BUFFERS asks for bigger ring buffers (root only: they are locked
 * memory). */
char **rsp_recorder_perf_argv (const char *perf, const RspRecorderOptions *options,
                               const char *const *tracepoints, const GArray *filters, const char *output,
                               int ctl_fd, int ack_fd, gboolean large_buffers);

/* The shell's exit status for a wait status: the code, or 128 + signal. */
int rsp_recorder_exit_status (int wait_status);

/* Records.  Returns the process exit status: COMMAND's (128 + signal when
 * it was killed), 0 for a whole-system recording, 1 when recording failed
 * (after one clear message on stderr). */
int rsp_recorder_run (const RspRecorderOptions *options);

G_END_DECLS
