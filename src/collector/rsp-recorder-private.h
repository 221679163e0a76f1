/* rsp-recorder-private.h — what the parts of `rsp record` share: the
 * session (the processes and pipes of one recording), the probe of the
 * machine, and the steps each part offers the others.
 *
 *   rsp-recorder.c          the sequence (rsp-recorder.h): start, record,
 *                           stop perf, finish the file
 *   rsp-recorder-options.c  the arguments of `rsp record`, its usage text
 *   rsp-recorder-events.c   what is recorded: the machine probed, the
 *                           events perf records, perf's command line
 *   rsp-recorder-session.c  signals and what Ctrl-C does in each phase, the
 *                           poll loop, the cleanup on every path
 *   rsp-recorder-perf.c     perf record: spawned, driven through its control
 *                           pipe, its output, stopped
 *   rsp-recorder-command.c  COMMAND: the user it runs as, forked and held,
 *                           released, its exit status
 *   rsp-recorder-ftrace.c   RSP's tracefs instance beside perf
 *   rsp-recorder-output.c   the recording file: its path checked, the
 *                           post-pass, the meta, the trailer, into place
 *
 * The steps that take the session are session_*, the others recorder_*.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <sys/types.h>

#include "rsp-files.h"
#include "rsp-ftrace-reader.h"
#include "rsp-ftrace.h"
#include "rsp-health.h"
#include "rsp-probe.h"
#include "rsp-recorder.h"
#include "rsp-recording.h"

G_BEGIN_DECLS

/* Session: the processes and pipes of one recording */

typedef enum {
  PHASE_STARTING,  /* Ctrl-C aborts */
  PHASE_RECORDING, /* Ctrl-C ends COMMAND, or the whole-system recording */
  PHASE_STOPPING,  /* Ctrl-C waits: the file is being finished */
} Phase;

typedef struct {
  const RspRecorderOptions *options;
  Phase phase;

  /* Signals arrive through a self-pipe, one byte per signal. */
  int signal_fd;
  guint n_interrupts;
  gboolean abort_start;   /* interrupted before the recording started */
  gboolean stdin_ended;   /* --stop-on-eof: standard input reached its end */
  gboolean stop_requested;/* whole system: stop now */
  gboolean interrupted;   /* stopped before its natural end (metadata) */
  gint64 forward_at_us;   /* when to pass a Ctrl-C on to COMMAND, 0: never */
  gboolean told_finishing;

  /* COMMAND, forked early and held until released. */
  char *command_path;
  pid_t command_pid;
  int command_pidfd;
  int go_fd;          /* write end of the hold pipe */
  int exec_error_fd;  /* read end of the pipe that reports exec failures */
  gboolean command_released;
  gboolean command_exited;
  int command_status;
  int exec_errno;     /* why COMMAND could not exec, 0 if it did */
  /* --repeat: the runs so far (RspRecordedRun), the first one's pid (the
   * recording's target), when the current one was released */
  GArray *runs;
  pid_t first_command_pid;
  guint64 run_start_ns;
  int run_error_status; /* a later run could not start: the exit status to give, else 0 */

  /* --probe: the uprobe group rsp_PID placed through perf probe */
  char *probe_group;
  char *probe_perf;     /* the perf that placed them, to remove them */
  gboolean probes_placed;

  /* perf record */
  char **perf_argv;
  pid_t perf_pid;
  int perf_pidfd;
  gboolean perf_exited;
  int perf_status;
  int ctl_fd, ack_fd, out_fd;
  guint acks;
  GString *ack_text;
  GString *perf_output;

  RspKeepAwake *keep_awake;
  RspHealthCounters *counters;
  /* perf's tracepoints recorded in part (RspEventFilter): the same filter
   * on their health counters, and in the meta */
  GArray *perf_filters;

  /* RSP's tracefs instance (rsp-ftrace.h); NULL when the channel is off,
   * and then FTRACE_ERROR says why. */
  RspFtrace *ftrace;
  char *ftrace_error;
  /* The names of the files the instance's events will name (rsp-files.h):
   * the open and mapped files at the start; NULL without the instance. */
  RspFileNames *files;
  /* The live instance of the file events (rsp_ftrace_new_live): read every
   * FILE_NAMER_TICK_MS, each new inode named from its process's open files
   * while it still has them; NULL when off. */
  RspFtrace *namer;
  gint64 namer_next_us;
  RspFtraceStream *namer_stream; /* its formats parsed once, its events reloaded */
  GPtrArray *namer_evsels;

  /* COMMAND's user when rsp was started through sudo or pkexec. */
  gboolean drop_privileges;
  uid_t user_uid;
  gid_t user_gid;
  char *user_name;
  char *user_home;
  GArray *user_groups; /* gid_t */

  char *tmp_path;
  gboolean perf_data_complete; /* perf stopped cleanly: tmp_path is a whole perf.data */
  guint64 start_ns, end_ns;
  guint64 health_start_ns, health_end_ns; /* the health counters were on in between */
} Session;

static inline gboolean
perf_alive (const Session *s)
{
  return s->perf_pid > 0 && !s->perf_exited;
}

/* rsp-recorder-events.c */

/* What the machine offers, probed before anything starts. */
typedef struct {
  char *perf;
  char *tracefs;
  RspProbedEvents events;
  char **tracepoints;   /* names passed to perf */
  char **all_events;    /* tracepoints + the sampling event */
} Probe;

gboolean recorder_probe_machine (const RspRecorderOptions *options, Probe *probe, GError **error);
void recorder_probe_clear (Probe *probe);
char **session_perf_tracepoints (const Session *s, const Probe *probe);
/* The filters (RspEventFilter) of the tracepoints of PERF_EVENTS that perf
 * records in part (rsp_probe_event_filter()). */
GArray *session_perf_filters (const Probe *probe, const char *const *perf_events);

/* rsp-recorder-session.c */

/* The dispositions session_install_signal_handlers() replaced: those of
 * SIGINT, SIGTERM and SIGHUP, in that order, and SIGPIPE's. */
#define RECORDER_N_SIGNALS 3
typedef struct {
  struct sigaction old[RECORDER_N_SIGNALS];
  struct sigaction old_pipe;
} SavedSignals;

gboolean session_install_signal_handlers (Session *s, SavedSignals *saved, GError **error);
void session_restore_signal_handlers (Session *s, const SavedSignals *saved);
void recorder_reset_child_signals (void);
int recorder_open_pidfd (pid_t pid);
void recorder_close_fd (int *fd);
void session_poll (Session *s, gint64 deadline_us);
void session_cleanup (Session *s);
void session_free_fields (Session *s);

/* rsp-recorder-perf.c */

gboolean session_spawn_perf (Session *s, const char *perf, const char *const *tracepoints, GError **error);
gboolean session_perf_control (Session *s, const char *command, int timeout_s, GError **error);
void session_read_perf (Session *s);
gboolean session_stop_perf (Session *s, GError **error);

/* rsp-recorder-command.c */

void session_set_user (Session *s);
gboolean session_fork_command (Session *s, GError **error);
gboolean session_release_command (Session *s, GError **error);

/* rsp-recorder-ftrace.c */

void session_open_ftrace (Session *s, const Probe *probe, const GArray *cpus);
void session_channel_off (Session *s, const char *why, gboolean with_fix);
char **recorder_covered_events (const RspFtraceMeta *ftrace);
void recorder_report_ftrace_losses (const RspFtraceMeta *ftrace, int buffer_kb);
/* The files section: the inodes the instance's events name, named from
 * the start's and the end's open files and a bounded walk; NULL without
 * the instance or without file events. */
GBytes *session_name_files (Session *s);
/* Starts the live namer beside the instance (a warning when it cannot). */
void session_open_file_namer (Session *s, const Probe *probe, const GArray *cpus);
/* Reads the live namer and names the new inodes when FDS (N, from
 * session_file_namer_poll_fds, after poll) say it has events; FINAL: the
 * last time, whatever they say. */
void session_file_namer_tick (Session *s, const struct pollfd *fds, guint n, gboolean final);
/* The poll timeout until the namer may be read again, in ms (-1: none). */
gint64 session_file_namer_timeout (const Session *s);
/* Fills FDS (room for MAX) with the namer's fds when it may be read now. */
guint session_file_namer_poll_fds (Session *s, struct pollfd *fds, guint max);

/* rsp-recorder-uprobes.c */

/* Removes the uprobe groups that recorders killed before their cleanup left
 * (rsp_PID with PID gone), saying so: every recording starts with it. */
void recorder_sweep_uprobes (const char *perf);
/* Places --probe's uprobes and appends their event names to EVENTS (perf
 * records them). */
gboolean session_add_uprobes (Session *s, const char *perf, GPtrArray *events, GError **error);
/* Removes them (every path out of a recording). */
void session_remove_uprobes (Session *s, const char *perf);

/* rsp-recorder-output.c */

/* What the post-pass found in the perf.data. */
typedef struct {
  guint64 records;
  guint64 samples;
  RspPerfKept kept;      /* the samples by kind, in number and bytes */
  guint64 lost_events;
  guint64 lost_samples;
  GBytes *symbols;
} PostPass;

gboolean recorder_check_output_path (const char *output, GError **error);
/* JIT_UID: whose /tmp/perf-PID.map files to read too (COMMAND's user
 * under sudo), or (guint32) -1. */
gboolean recorder_post_pass (const char *path, guint64 window_start, guint64 window_end, GArray *health,
                             guint32 jit_uid, PostPass *result, GError **error);
RspRecordingMeta *session_build_meta (const Session *s, char **events, const GArray *missing, const GArray *health,
                                      gboolean idle_loss_suspected);
gboolean session_write_recording (Session *s, RspRecordingMeta *meta, GBytes *symbols, GBytes *files,
                                  GError **error);

G_END_DECLS
