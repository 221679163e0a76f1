/* rsp-recorder.c — `rsp record`: the sequence of one recording (see
 * rsp-recorder.h), from probing the machine to the finished file.  The
 * steps live in the rsp-recorder-*.c files (rsp-recorder-private.h). */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

G_DEFINE_QUARK (rsp-recorder-error-quark, rsp_recorder_error)

#define PERF_READY_TIMEOUT_S 120   /* perf synthesizes every process before it answers */
#define PERF_ACK_TIMEOUT_S 30
/* how long learning perf's sampling timers may take (each fires every ms) */
#define PERF_TIMERS_WAIT_MS 50

static guint64
monotonic_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

/* COMMAND as a shell would show it, shortened. */
static char *
describe_command (char **argv)
{
  g_autoptr (GString) text = g_string_new (NULL);
  guint n = g_strv_length (argv);
  for (guint i = 0; i < n && i < 6; i++)
    {
      g_autofree char *quoted = strpbrk (argv[i], " \t\n'\"\\$*?;&|<>()`") != NULL || *argv[i] == '\0'
                                    ? g_shell_quote (argv[i])
                                    : g_strdup (argv[i]);
      g_string_append_printf (text, "%s%s", i > 0 ? " " : "", quoted);
    }
  if (n > 6)
    g_string_append (text, " ...");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
open_health_counters (Session *s, const Probe *probe, const GArray *cpus, const char *const *perf_events)
{
  g_autoptr (RspHealthCounters) counters = rsp_health_counters_new (cpus);
  for (guint i = 0; i < probe->events.present->len; i++)
    {
      const RspProbedEvent *event = &g_array_index (probe->events.present, RspProbedEvent, i);
      if (!g_strv_contains (perf_events, event->name))
        continue; /* the tracefs instance records it; its own statistics tell its losses */
      g_autoptr (GError) error = NULL;
      /* counted with perf's filter: what is left out is not lost */
      const char *filter = rsp_event_filters_find (s->perf_filters, event->name);
      if (!rsp_health_counters_add (counters, event->name, event->id, filter, &error)
          && g_error_matches (error, RSP_HEALTH_ERROR, RSP_HEALTH_ERROR_FILTER))
        {
          /* the kernel refuses the filter (perf would too, and fail to
           * record): the event is recorded whole */
          fprintf (stderr, _("rsp record: warning: this kernel refuses the filter '%s' of %s: it is recorded whole\n"),
                   filter, event->name);
          rsp_event_filters_remove (s->perf_filters, event->name);
          g_clear_error (&error);
          rsp_health_counters_add (counters, event->name, event->id, NULL, &error);
        }
      if (error != NULL)
        {
          fprintf (stderr, _("rsp record: recording health will not be checked: %s\n"), error->message);
          return;
        }
    }
  s->counters = g_steal_pointer (&counters);
}

static void
print_start (const Session *s, guint n_events)
{
  const RspRecorderOptions *options = s->options;
  const char *graph = options->call_graph == RSP_CALL_GRAPH_DWARF ? "dwarf" : "fp";

  if (options->command != NULL)
    {
      g_autofree char *command = describe_command (options->command);
      g_autofree char *times = options->repeat > 1 ? g_strdup_printf (_(" %u times"), options->repeat) : g_strdup ("");
      fprintf (stderr,
               _("rsp record: recording the whole system while %s runs%s%s%s "
                 "(%u events, cpu-clock at %u Hz, %s call graphs%s)...\n"),
               command, times, s->drop_privileges ? _(" as ") : "",
               s->drop_privileges ? (s->user_name != NULL ? s->user_name : _("the invoking user")) : "",
               n_events, options->freq, graph, options->keep_awake ? _(", CPUs kept awake") : "");
    }
  else if (options->duration > 0)
    fprintf (stderr,
             _("rsp record: recording the whole system for %g s, Ctrl-C to stop early "
               "(%u events, cpu-clock at %u Hz, %s call graphs%s)...\n"),
             options->duration, n_events, options->freq, graph, options->keep_awake ? _(", CPUs kept awake") : "");
  else
    fprintf (stderr,
             _("rsp record: recording the whole system until Ctrl-C "
               "(%u events, cpu-clock at %u Hz, %s call graphs%s)...\n"),
             n_events, options->freq, graph, options->keep_awake ? _(", CPUs kept awake") : "");
}

/* The run of COMMAND that just ended, into the list of runs. */
static void
session_end_run (Session *s)
{
  if (s->runs == NULL)
    s->runs = g_array_new (FALSE, TRUE, sizeof (RspRecordedRun));
  RspRecordedRun run = {
    .pid = s->command_pid,
    .start_ns = s->run_start_ns,
    .end_ns = monotonic_ns (),
    .exit_status = rsp_recorder_exit_status (s->command_status),
  };
  g_array_append_val (s->runs, run);
}

/* --repeat: after a run ended, the pause and the next run.  Returns FALSE
 * when there is none (all done, a run failed, an interrupt, the deadline,
 * perf gone, or the next run could not start: said on stderr). */
static gboolean
session_next_run (Session *s, gboolean deadline_passed)
{
  const RspRecorderOptions *options = s->options;
  session_end_run (s);
  guint done = s->runs->len;
  if (done >= MAX (options->repeat, 1) || s->interrupted || deadline_passed || !perf_alive (s))
    return FALSE;
  int status = g_array_index (s->runs, RspRecordedRun, done - 1).exit_status;
  if (status != 0)
    {
      fprintf (stderr, _("rsp record: run %u of %u exited with status %d: no more runs\n"), done, options->repeat,
               status);
      return FALSE;
    }
  guint interrupts = s->n_interrupts;
  if (options->pause_ms > 0)
    {
      gint64 until = g_get_monotonic_time () + (gint64) options->pause_ms * 1000;
      while (g_get_monotonic_time () < until && s->n_interrupts == interrupts && perf_alive (s))
        session_poll (s, until);
    }
  if (s->n_interrupts != interrupts)
    {
      s->interrupted = TRUE;
      return FALSE;
    }
  g_autoptr (GError) error = NULL;
  s->command_released = s->command_exited = FALSE;
  recorder_close_fd (&s->command_pidfd);
  if (!session_fork_command (s, &error))
    {
      s->command_pid = 0;
      s->run_error_status = 127;
    }
  else
    {
      s->run_start_ns = monotonic_ns ();
      if (session_release_command (s, &error))
        return TRUE;
      s->run_error_status = s->exec_errno == ENOENT ? 127 : 126;
      /* it exits at once; its pid is reaped by the cleanup */
    }
  fprintf (stderr, _("rsp record: run %u of %u: %s: no more runs\n"), done + 1, options->repeat, error->message);
  return FALSE;
}

/* From COMMAND's release (or the start) to its end (or the deadline);
 * with --repeat, to the end of its last run. */
static void
session_wait_for_end (Session *s)
{
  gint64 deadline = 0;
  gboolean deadline_passed = FALSE;
  gboolean perf_failed_told = FALSE;

  if (s->options->duration > 0)
    deadline = g_get_monotonic_time () + (gint64) (s->options->duration * G_USEC_PER_SEC);

  for (;;)
    {
      if (s->command_pid > 0 && s->command_exited)
        {
          if (session_next_run (s, deadline_passed))
            continue;
          break;
        }
      if (s->command_pid <= 0 && (s->stop_requested || s->run_error_status != 0))
        break;
      if (s->command_pid <= 0 && !perf_alive (s))
        break;
      if (!perf_alive (s) && !perf_failed_told)
        {
          perf_failed_told = TRUE;
          fprintf (stderr, _("rsp record: perf record stopped during the recording; waiting for %s to end\n"),
                   s->options->command[0]);
        }
      if (deadline > 0 && !deadline_passed && g_get_monotonic_time () >= deadline)
        {
          deadline_passed = TRUE;
          if (s->command_pid <= 0)
            break;
          fprintf (stderr, _("rsp record: --duration reached: terminating %s\n"), s->options->command[0]);
          kill (s->command_pid, SIGTERM);
        }
      session_poll (s, deadline_passed ? 0 : deadline);
    }
  s->end_ns = monotonic_ns ();
}

/* After perf stopped: count what was recorded, judge the health, write the
 * file.  Returns the exit status. */
static int
session_finish (Session *s, const Probe *probe, GArray *health, GError **error)
{
  const RspRecorderOptions *options = s->options;
  PostPass result = { 0 };
  RspHealthVerdict verdict;

  if (!recorder_post_pass (s->tmp_path, s->health_start_ns, s->health_end_ns, health,
                           s->drop_privileges ? (guint32) s->user_uid : (guint32) -1, &result, error))
    return 1;

  g_autoptr (RspFtraceMeta) ftrace_now = s->ftrace != NULL ? rsp_ftrace_build_meta (s->ftrace) : NULL;
  g_auto (GStrv) covered = recorder_covered_events (ftrace_now);
  rsp_health_judge (health, options->keep_awake, (const char *const *) covered,
                    result.lost_events + result.lost_samples, &verdict);
  for (guint i = 0; i < verdict.warnings->len; i++)
    fprintf (stderr, _("rsp record: warning: %s\n"), (const char *) g_ptr_array_index (verdict.warnings, i));
  if (result.lost_events > 0 || result.lost_samples > 0)
    {
      g_autofree char *text = rsp_health_perf_loss_text (result.lost_events, result.lost_samples, &result.kept,
                                                         options->call_graph == RSP_CALL_GRAPH_DWARF);
      fprintf (stderr, _("rsp record: warning: %s\n"), text);
    }

  RspRecordingMeta *meta = session_build_meta (s, probe->all_events, probe->events.missing, health,
                                               verdict.idle_loss_suspected);
  recorder_report_ftrace_losses (meta->ftrace, rsp_ftrace_get_buffer_kb (s->ftrace));
  g_autoptr (GBytes) files = session_name_files (s);
  gboolean written = session_write_recording (s, meta, result.symbols, files, error);
  g_clear_pointer (&result.symbols, g_bytes_unref);
  if (written)
    {
      struct stat st;
      g_autofree char *size = g_format_size (stat (options->output, &st) == 0 ? (guint64) st.st_size : 0);
      g_autofree char *ftrace = NULL;
      if (meta->ftrace != NULL && meta->ftrace->cpus->len > 0)
        ftrace = g_strdup_printf (_("; ftrace: %llu events, %llu lost%s"),
                                  (unsigned long long) rsp_ftrace_meta_events (meta->ftrace),
                                  (unsigned long long) rsp_ftrace_meta_lost (meta->ftrace),
                                  meta->ftrace->error != NULL ? _(", not all stored (see the warning above)") : "");
      else if (meta->ftrace != NULL)
        ftrace = g_strdup (_("; ftrace: off (see the warning above)"));
      fprintf (stderr, _("rsp record: wrote %s (%s, %llu events, %.3f s%s); health: %s%s\n"),
               options->output, size, (unsigned long long) result.samples, (double) (s->end_ns - s->start_ns) / 1e9,
               s->interrupted ? _(", interrupted") : "", verdict.summary, ftrace != NULL ? ftrace : "");
    }
  rsp_recording_meta_free (meta);
  rsp_health_verdict_clear (&verdict);
  if (!written)
    return 1;
  if (s->run_error_status != 0)
    return s->run_error_status;
  return s->command_pid > 0 ? rsp_recorder_exit_status (s->command_status) : 0;
}

/* Probes, starts everything, records, stops perf.  Returns the exit status
 * when it cannot go on, -1 when perf stopped cleanly. */
static int
session_record (Session *s, const Probe *probe, GArray **health, GError **error)
{
  const RspRecorderOptions *options = s->options;
  g_autoptr (GArray) cpus = rsp_probe_online_cpus ();

  if (!recorder_check_output_path (options->output, error))
    return 1;
  s->tmp_path = g_strdup_printf ("%s.%d.tmp-perf", options->output, (int) getpid ());
  unlink (s->tmp_path);
  session_set_user (s);

  if (options->command != NULL && !session_fork_command (s, error))
    return 127;
  if (options->keep_awake)
    {
      s->keep_awake = rsp_keep_awake_start (cpus, error);
      if (s->keep_awake == NULL)
        return 1;
    }
  session_open_ftrace (s, probe, cpus);
  session_open_file_namer (s, probe, cpus);
  g_auto (GStrv) perf_events = session_perf_tracepoints (s, probe);
  recorder_sweep_uprobes (probe->perf);
  if (options->probes != NULL)
    {
      g_autoptr (GPtrArray) events = g_ptr_array_new ();
      for (guint i = 0; perf_events[i] != NULL; i++)
        g_ptr_array_add (events, g_steal_pointer (&perf_events[i]));
      g_clear_pointer (&perf_events, g_free);
      s->probe_perf = g_strdup (probe->perf);
      gboolean placed = session_add_uprobes (s, probe->perf, events, error);
      g_ptr_array_add (events, NULL);
      perf_events = (char **) g_ptr_array_free (g_steal_pointer (&events), FALSE);
      if (!placed)
        return 1;
    }
  s->perf_filters = session_perf_filters (probe, (const char *const *) perf_events);
  open_health_counters (s, probe, cpus, (const char *const *) perf_events);
  if (!session_spawn_perf (s, probe->perf, (const char *const *) perf_events, error))
    return 1;

  /* perf answers only once it has set everything up. */
  if (!session_perf_control (s, "ping", PERF_READY_TIMEOUT_S, error))
    return 1;
  if (s->ftrace != NULL && !s->abort_start)
    {
      /* on just before perf: the instance's window covers perf's */
      g_autoptr (GError) ftrace_error = NULL;
      if (!rsp_ftrace_start (s->ftrace, &ftrace_error))
        session_channel_off (s, ftrace_error->message, FALSE);
      else
        {
          /* the files open now, before the command runs: they name the
           * inodes of the instance's file events at the end */
          s->files = rsp_file_names_new ();
          rsp_file_names_snapshot (s->files, "/proc");
          g_autoptr (GError) namer_error = NULL;
          if (s->namer != NULL && rsp_ftrace_start (s->namer, &namer_error))
            s->namer_next_us = g_get_monotonic_time ();
          else if (s->namer != NULL)
            {
              fprintf (stderr, _("rsp record: warning: the files behind disk waits are named only when the "
                                 "recording ends: %s\n"),
                       namer_error->message);
              g_clear_pointer (&s->namer, rsp_ftrace_free);
            }
        }
    }
  if (!s->abort_start && !session_perf_control (s, "enable", PERF_ACK_TIMEOUT_S, error))
    return 1;
  /* perf's sampling timers run now: the exits of their expiries, which the
   * model ignores, are left out of the instance from here on (a few ms) */
  if (s->ftrace != NULL && !s->abort_start)
    rsp_ftrace_filter_perf_timer_exits (s->ftrace, PERF_TIMERS_WAIT_MS);
  if (s->abort_start)
    {
      g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_INTERRUPTED,
                   _("interrupted before the recording started"));
      return 130;
    }

  s->phase = PHASE_RECORDING;
  print_start (s, g_strv_length (probe->all_events));
  /* The counters run inside perf's enabled window, and only the samples
   * timed inside theirs are compared with them: the handshake with perf
   * takes milliseconds, in which a busy machine fires many events.  The
   * window is read before the counters start and after they stop, so it
   * covers everything they count: a shortfall is a real loss. */
  s->health_start_ns = monotonic_ns ();
  if (s->counters != NULL)
    rsp_health_counters_enable (s->counters);
  s->start_ns = monotonic_ns ();
  s->first_command_pid = s->command_pid;
  s->run_start_ns = s->start_ns;
  if (s->command_pid > 0 && !session_release_command (s, error))
    return s->exec_errno == ENOENT ? 127 : 126;
  session_wait_for_end (s);

  gint64 tail_end = g_get_monotonic_time () + RSP_RECORDER_TAIL_MS * 1000;
  while (g_get_monotonic_time () < tail_end && perf_alive (s))
    session_poll (s, tail_end);
  s->phase = PHASE_STOPPING;

  if (s->counters != NULL)
    {
      rsp_health_counters_disable (s->counters);
      *health = rsp_health_counters_read (s->counters);
    }
  s->health_end_ns = monotonic_ns ();
  gboolean disabled = perf_alive (s) && session_perf_control (s, "disable", PERF_ACK_TIMEOUT_S, NULL);
  /* off just after perf, then the rest of its buffers and its statistics */
  rsp_ftrace_stop (s->ftrace);
  rsp_ftrace_stop (s->namer);
  session_file_namer_tick (s, NULL, 0, TRUE);
  if (s->keep_awake != NULL)
    rsp_keep_awake_stop (s->keep_awake);
  if (!disabled && perf_alive (s))
    fprintf (stderr, "%s", _("rsp record: perf did not acknowledge 'disable'; stopping it anyway\n"));

  if (!session_stop_perf (s, error))
    return 1;
  s->perf_data_complete = TRUE;
  return -1;
}

static int
session_run (Session *s, GError **error)
{
  Probe probe = { 0 };
  g_autoptr (GArray) health = NULL;
  int status = 1;

  if (recorder_probe_machine (s->options, &probe, error))
    {
      status = session_record (s, &probe, &health, error);
      if (status < 0)
        {
          if (health == NULL)
            health = rsp_health_entries_new ();
          status = session_finish (s, &probe, health, error);
        }
    }
  recorder_probe_clear (&probe);
  return status;
}

int
rsp_recorder_run (const RspRecorderOptions *options)
{
  g_return_val_if_fail (options != NULL, 1);

  Session s = {
    .options = options,
    .phase = PHASE_STARTING,
    .signal_fd = -1,
    .command_pidfd = -1,
    .go_fd = -1,
    .exec_error_fd = -1,
    .perf_pidfd = -1,
    .ctl_fd = -1,
    .ack_fd = -1,
    .out_fd = -1,
    .ack_text = g_string_new (NULL),
    .perf_output = g_string_new (NULL),
  };
  SavedSignals saved;
  g_autoptr (GError) error = NULL;
  int status = 1;

  if (session_install_signal_handlers (&s, &saved, &error))
    {
      status = session_run (&s, &error);
      session_cleanup (&s);
      session_restore_signal_handlers (&s, &saved);
    }
  if (error != NULL)
    {
      fprintf (stderr, _("rsp record: %s\n"), error->message);
      if (s.perf_data_complete && access (s.tmp_path, F_OK) == 0)
        fprintf (stderr, _("rsp record: the perf.data part is kept in %s\n"), s.tmp_path);
      else if (s.tmp_path != NULL)
        unlink (s.tmp_path);
      if (status == 0)
        status = 1;
    }
  session_free_fields (&s);
  return status;
}

