/* rsp-recorder.c — `rsp record`: drives perf record, writes the recording
 * file.  See rsp-recorder.h for the sequence. */
#include "rsp-recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rsp-ftrace-section.h"
#include "rsp-ftrace.h"
#include "rsp-health.h"
#include "rsp-perf-reader.h"
#include "rsp-probe.h"
#include "rsp-recording.h"
#include "rsp-symbols.h"

G_DEFINE_QUARK (rsp-recorder-error-quark, rsp_recorder_error)

#define PERF_READY_TIMEOUT_S 120   /* perf synthesizes every process before it answers */
#define PERF_ACK_TIMEOUT_S 30
#define PERF_STOP_TIMEOUT_S 600    /* perf reads its whole file again for build ids */
#define FORWARD_INTERRUPT_MS 500   /* a terminal Ctrl-C reaches COMMAND itself */
#define NO_PIDFD_TICK_MS 2
#define PERF_OUTPUT_MAX (256 * 1024)
#define MAX_CALLCHAIN_FRAMES 512
#define SAMPLING_EVENT_FORMAT "cpu-clock/freq=%u/"

/* Options */

const char *
rsp_recorder_usage (void)
{
  static char *usage = NULL;
  if (usage == NULL)
    usage = g_strdup_printf (_("Usage: rsp record [OPTION...] [--] COMMAND [ARG...]\n"
                                "       rsp record [OPTION...] [--duration SEC]\n"
                                "\n"
                                "Records the whole system (perf record -a) while COMMAND runs, or for SEC\n"
                                "seconds (or until Ctrl-C) when no COMMAND is given, into one file that\n"
                                "'rsp report' and 'rsp view' open on this machine or another one.\n"
                                "\n"
                                "Options:\n"
                                "  -o, --output FILE        write the recording to FILE (default: %s)\n"
                                "  -F, --freq HZ            cpu-clock samples per second per CPU (default: 1000)\n"
                                "  --call-graph fp|dwarf    how user stacks are taken: frame pointers (default)\n"
                                "                           or stack copies unwound with DWARF (bigger files)\n"
                                "  --duration SEC           stop after SEC seconds (COMMAND gets SIGTERM)\n"
                                "  --keep-awake             last resort where RSP's tracefs instance cannot run: keep\n"
                                "                           every CPU busy with an idle-priority loop so that perf\n"
                                "                           keeps interrupt-context events (slows the workload)\n"
                                "  -h, --help               show this help\n"
                                "\n"
                                "Beside perf, a tracefs instance of RSP's own (trace clock mono) records the\n"
                                "events that fire in interrupt context on idle CPUs, which perf drops: wake-ups,\n"
                                "block completions, interrupts, softirqs, socket data and timer expiries.\n"
                                "\n"
                                "Needs root (or kernel.perf_event_paranoid=-1 and a readable tracefs).  Under\n"
                                "sudo or pkexec, COMMAND runs as the invoking user and FILE is given to that user.\n"
                                "The exit status is COMMAND's (128+N when killed by signal N), 1 on recording errors.\n"),
                             RSP_RECORDER_DEFAULT_OUTPUT);
  return usage;
}

typedef enum {
  MATCH_NO,
  MATCH_YES,
  MATCH_ERROR,
} OptionMatch;

/* Matches ARGV[*I] against an option that takes a value: "-o FILE",
 * "-oFILE", "--output FILE", "--output=FILE". */
static OptionMatch
match_valued_option (int argc, char **argv, int *i, const char *short_name, const char *long_name,
                     const char **value, GError **error)
{
  const char *arg = argv[*i];
  gsize long_length = strlen (long_name);

  if (strcmp (arg, long_name) == 0 || (short_name != NULL && strcmp (arg, short_name) == 0))
    {
      if (*i + 1 >= argc)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("option %s needs a value"), arg);
          return MATCH_ERROR;
        }
      *i += 1;
      *value = argv[*i];
      return MATCH_YES;
    }
  if (strncmp (arg, long_name, long_length) == 0 && arg[long_length] == '=')
    {
      *value = arg + long_length + 1;
      return MATCH_YES;
    }
  if (short_name != NULL && strncmp (arg, short_name, 2) == 0 && arg[2] != '\0')
    {
      *value = arg + 2;
      return MATCH_YES;
    }
  return MATCH_NO;
}

static gboolean
parse_option_value (RspRecorderOptions *options, const char *long_name, const char *value,
                    GError **error)
{
  if (strcmp (long_name, "--output") == 0)
    {
      if (*value == '\0')
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--output needs a file name"));
          return FALSE;
        }
      g_free (options->output);
      options->output = g_strdup (value);
    }
  else if (strcmp (long_name, "--freq") == 0)
    {
      guint64 freq;
      if (!g_ascii_string_to_unsigned (value, 10, 1, RSP_RECORDER_MAX_FREQ, &freq, NULL))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--freq wants a whole number of Hz from 1 to %d, not '%s'"),
                       RSP_RECORDER_MAX_FREQ, value);
          return FALSE;
        }
      options->freq = (guint) freq;
    }
  else if (strcmp (long_name, "--call-graph") == 0)
    {
      if (strcmp (value, "fp") == 0)
        options->call_graph = RSP_CALL_GRAPH_FP;
      else if (strcmp (value, "dwarf") == 0)
        options->call_graph = RSP_CALL_GRAPH_DWARF;
      else
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--call-graph is 'fp' or 'dwarf', not '%s'"), value);
          return FALSE;
        }
    }
  else if (strcmp (long_name, "--duration") == 0)
    {
      char *end = NULL;
      double seconds = g_ascii_strtod (value, &end);
      if (end == value || *end != '\0' || !isfinite (seconds) || seconds <= 0 || seconds > 1e7)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--duration wants a positive number of seconds, not '%s'"), value);
          return FALSE;
        }
      options->duration = seconds;
    }
  else
    g_assert_not_reached ();
  return TRUE;
}

gboolean
rsp_recorder_options_parse (int argc, char **argv, RspRecorderOptions *options, GError **error)
{
  static const struct {
    const char *short_name;
    const char *long_name;
  } valued[] = {
    { "-o", "--output" },
    { "-F", "--freq" },
    { NULL, "--call-graph" },
    { NULL, "--duration" },
  };

  g_return_val_if_fail (options != NULL, FALSE);

  memset (options, 0, sizeof *options);
  options->output = g_strdup (RSP_RECORDER_DEFAULT_OUTPUT);
  options->freq = RSP_RECORDER_DEFAULT_FREQ;
  options->call_graph = RSP_CALL_GRAPH_FP;

  int i;
  for (i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (strcmp (arg, "--") == 0)
        {
          i++;
          break;
        }
      if (arg[0] != '-' || arg[1] == '\0')
        break;
      if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0)
        {
          options->help = TRUE;
          return TRUE;
        }
      if (strcmp (arg, "--keep-awake") == 0)
        {
          options->keep_awake = TRUE;
          continue;
        }
      if (strcmp (arg, "-g") == 0)
        {
          options->call_graph = RSP_CALL_GRAPH_FP;
          continue;
        }

      gboolean known = FALSE;
      for (gsize j = 0; j < G_N_ELEMENTS (valued) && !known; j++)
        {
          const char *value = NULL;
          switch (match_valued_option (argc, argv, &i, valued[j].short_name, valued[j].long_name,
                                       &value, error))
            {
            case MATCH_ERROR:
              return FALSE;
            case MATCH_YES:
              if (!parse_option_value (options, valued[j].long_name, value, error))
                return FALSE;
              known = TRUE;
              break;
            case MATCH_NO:
              break;
            }
        }
      if (!known)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("unknown option '%s' (put '--' before a COMMAND that starts with '-')"), arg);
          return FALSE;
        }
    }

  if (i < argc)
    {
      options->command = g_new0 (char *, argc - i + 1);
      for (int j = i; j < argc; j++)
        options->command[j - i] = g_strdup (argv[j]);
    }
  return TRUE;
}

void
rsp_recorder_options_clear (RspRecorderOptions *options)
{
  g_return_if_fail (options != NULL);
  g_clear_pointer (&options->output, g_free);
  g_clear_pointer (&options->command, g_strfreev);
}

char **
rsp_recorder_perf_argv (const char *perf, const RspRecorderOptions *options,
                        const char *const *tracepoints, const char *output, int ctl_fd, int ack_fd,
                        gboolean large_buffers)
{
  g_return_val_if_fail (perf != NULL && options != NULL && output != NULL, NULL);

  GPtrArray *args = g_ptr_array_new ();
  g_ptr_array_add (args, g_strdup (perf));
  g_ptr_array_add (args, g_strdup ("record"));
  g_ptr_array_add (args, g_strdup ("-a"));
  g_ptr_array_add (args, g_strdup ("-k"));
  g_ptr_array_add (args, g_strdup ("monotonic"));
  g_ptr_array_add (args, g_strdup ("--call-graph"));
  g_ptr_array_add (args, g_strdup (options->call_graph == RSP_CALL_GRAPH_DWARF ? "dwarf" : "fp"));
  g_ptr_array_add (args, g_strdup ("--delay=-1"));
  g_ptr_array_add (args, g_strdup_printf ("--control=fd:%d,%d", ctl_fd, ack_fd));
  /* DWARF samples carry 8 kB of stack each: they need more room. */
  if (large_buffers)
    g_ptr_array_add (args, g_strdup (options->call_graph == RSP_CALL_GRAPH_DWARF ? "--mmap-pages=8M"
                                                                                : "--mmap-pages=2M"));
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup (output));
  for (guint i = 0; tracepoints != NULL && tracepoints[i] != NULL; i++)
    {
      g_ptr_array_add (args, g_strdup ("-e"));
      g_ptr_array_add (args, g_strdup (tracepoints[i]));
    }
  g_ptr_array_add (args, g_strdup ("-e"));
  g_ptr_array_add (args, g_strdup_printf (SAMPLING_EVENT_FORMAT, options->freq));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (args, FALSE);
}

int
rsp_recorder_exit_status (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return 1;
}

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

  /* RSP's tracefs instance (rsp-ftrace.h); NULL when the channel is off,
   * and then FTRACE_ERROR says why. */
  RspFtrace *ftrace;
  char *ftrace_error;

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

static int signal_pipe_write = -1;

static void
on_signal (int signo)
{
  int saved_errno = errno;
  unsigned char byte = (unsigned char) signo;
  if (write (signal_pipe_write, &byte, 1) < 0)
    {
      /* The pipe is full: enough signals are pending already. */
    }
  errno = saved_errno;
}

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };

typedef struct {
  struct sigaction old[G_N_ELEMENTS (handled_signals)];
  struct sigaction old_pipe;
} SavedSignals;

static gboolean
install_signal_handlers (Session *s, SavedSignals *saved, GError **error)
{
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot create a pipe: %s"), g_strerror (saved_errno));
      return FALSE;
    }
  s->signal_fd = fds[0];
  signal_pipe_write = fds[1];

  struct sigaction action = { 0 };
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset (&action.sa_mask);
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    sigaction (handled_signals[i], &action, &saved->old[i]);
  /* A write to perf's control pipe after perf died must fail, not kill us. */
  struct sigaction ignore = { 0 };
  ignore.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &ignore, &saved->old_pipe);
  return TRUE;
}

static void
restore_signal_handlers (Session *s, const SavedSignals *saved)
{
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    sigaction (handled_signals[i], &saved->old[i], NULL);
  sigaction (SIGPIPE, &saved->old_pipe, NULL);
  if (signal_pipe_write >= 0)
    close (signal_pipe_write);
  signal_pipe_write = -1;
  if (s->signal_fd >= 0)
    close (s->signal_fd);
  s->signal_fd = -1;
}

/* In a forked child, before exec: the signal set-up of rsp is not COMMAND's. */
static void
reset_child_signals (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    signal (handled_signals[i], SIG_DFL);
  signal (SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
}

static guint64
monotonic_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

static int
open_pidfd (pid_t pid)
{
#ifdef SYS_pidfd_open
  return (int) syscall (SYS_pidfd_open, pid, 0);
#else
  return -1;
#endif
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static gboolean
command_running (const Session *s)
{
  return s->command_pid > 0 && s->command_released && !s->command_exited;
}

static void
forward_interrupt (Session *s, int signo)
{
  fprintf (stderr,
           _("rsp record: interrupted: waiting for %s to end, then finishing the recording "
             "(interrupt again to terminate it)\n"),
           s->options->command[0]);
  kill (s->command_pid, signo);
}

static void
session_on_signal (Session *s, int signo)
{
  s->n_interrupts++;
  switch (s->phase)
    {
    case PHASE_STARTING:
      s->abort_start = TRUE;
      break;

    case PHASE_RECORDING:
      if (command_running (s))
        {
          s->interrupted = TRUE;
          if (s->n_interrupts == 1)
            {
              /* A terminal's Ctrl-C reached COMMAND too; a kill(1) of rsp alone did not. */
              if (signo == SIGINT)
                s->forward_at_us = g_get_monotonic_time () + FORWARD_INTERRUPT_MS * 1000;
              else
                forward_interrupt (s, SIGTERM);
            }
          else if (s->n_interrupts == 2)
            {
              fprintf (stderr, _("rsp record: terminating %s (interrupt again to kill it)\n"),
                       s->options->command[0]);
              kill (s->command_pid, SIGTERM);
            }
          else
            kill (s->command_pid, SIGKILL);
        }
      else if (s->command_pid <= 0 && !s->stop_requested)
        {
          s->stop_requested = TRUE;
          /* Without --duration, Ctrl-C is the planned end of a whole-system recording. */
          s->interrupted = s->options->duration > 0;
        }
      break;

    case PHASE_STOPPING:
      if (!s->told_finishing)
        fprintf (stderr, "%s", _("rsp record: finishing the recording file, please wait\n"));
      s->told_finishing = TRUE;
      break;
    }
}

static void
keep_perf_output (Session *s, const char *data, gsize length)
{
  g_string_append_len (s->perf_output, data, (gssize) length);
  if (s->perf_output->len > PERF_OUTPUT_MAX)
    g_string_erase (s->perf_output, 0, (gssize) (s->perf_output->len - PERF_OUTPUT_MAX / 2));
}

/* Reads what is there on FD (non-blocking); FALSE at end of file. */
static gboolean
drain_fd (int fd, GString *into)
{
  char buffer[4096];
  for (;;)
    {
      ssize_t n = read (fd, buffer, sizeof buffer);
      if (n > 0)
        {
          g_string_append_len (into, buffer, n);
          continue;
        }
      if (n == 0)
        return FALSE;
      return errno == EAGAIN || errno == EINTR;
    }
}

static void
count_acks (Session *s)
{
  /* perf writes "ack\n" followed by a NUL: drop the NULs, count the lines. */
  gsize kept = 0;
  for (gsize i = 0; i < s->ack_text->len; i++)
    if (s->ack_text->str[i] != '\0')
      s->ack_text->str[kept++] = s->ack_text->str[i];
  g_string_truncate (s->ack_text, kept);

  const char *line;
  while ((line = strstr (s->ack_text->str, "ack\n")) != NULL)
    {
      s->acks++;
      g_string_erase (s->ack_text, 0, (line - s->ack_text->str) + 4);
    }
}

static void
reap_children (Session *s)
{
  int status;
  if (s->command_pid > 0 && !s->command_exited && waitpid (s->command_pid, &status, WNOHANG) == s->command_pid)
    {
      s->command_exited = TRUE;
      s->command_status = status;
      close_fd (&s->command_pidfd);
    }
  if (s->perf_pid > 0 && !s->perf_exited && waitpid (s->perf_pid, &status, WNOHANG) == s->perf_pid)
    {
      s->perf_exited = TRUE;
      s->perf_status = status;
      close_fd (&s->perf_pidfd);
    }
}

/* Waits for something to happen, at most until DEADLINE_US (monotonic µs;
 * 0 = no deadline), and handles it: signals, perf's output and acks, the
 * exit of COMMAND or perf. */
static void
session_poll (Session *s, gint64 deadline_us)
{
  guint n_ftrace_max = s->ftrace != NULL ? rsp_ftrace_get_n_cpus (s->ftrace) : 0;
  struct pollfd *fds = g_newa (struct pollfd, 5 + n_ftrace_max);
  nfds_t n = 0;
  gint64 now = g_get_monotonic_time ();
  gint64 timeout_ms = -1;

  if (deadline_us > 0)
    timeout_ms = MAX (0, (deadline_us - now + 999) / 1000);
  if (s->forward_at_us > 0)
    {
      gint64 forward_ms = MAX (0, (s->forward_at_us - now + 999) / 1000);
      timeout_ms = timeout_ms < 0 ? forward_ms : MIN (timeout_ms, forward_ms);
    }
  if ((s->command_pid > 0 && !s->command_exited && s->command_pidfd < 0)
      || (s->perf_pid > 0 && !s->perf_exited && s->perf_pidfd < 0))
    timeout_ms = timeout_ms < 0 ? NO_PIDFD_TICK_MS : MIN (timeout_ms, NO_PIDFD_TICK_MS);

  fds[n++] = (struct pollfd) { s->signal_fd, POLLIN, 0 };
  if (s->out_fd >= 0)
    fds[n++] = (struct pollfd) { s->out_fd, POLLIN, 0 };
  if (s->ack_fd >= 0)
    fds[n++] = (struct pollfd) { s->ack_fd, POLLIN, 0 };
  if (s->command_pidfd >= 0)
    fds[n++] = (struct pollfd) { s->command_pidfd, POLLIN, 0 };
  if (s->perf_pidfd >= 0)
    fds[n++] = (struct pollfd) { s->perf_pidfd, POLLIN, 0 };
  /* the instance's buffers: readable when RSP_FTRACE_BUFFER_PERCENT full */
  nfds_t ftrace_first = n;
  n += rsp_ftrace_poll_fds (s->ftrace, fds + n, n_ftrace_max);

  if (poll (fds, n, (int) MIN (timeout_ms, G_MAXINT)) < 0 && errno != EINTR)
    g_warning ("poll: %s", g_strerror (errno));
  else if (n > ftrace_first)
    rsp_ftrace_drain (s->ftrace, fds + ftrace_first, (guint) (n - ftrace_first));

  unsigned char signals[16];
  ssize_t n_signals;
  while ((n_signals = read (s->signal_fd, signals, sizeof signals)) > 0)
    for (ssize_t i = 0; i < n_signals; i++)
      session_on_signal (s, signals[i]);

  if (s->out_fd >= 0)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      gboolean open = drain_fd (s->out_fd, text);
      keep_perf_output (s, text->str, text->len);
      if (!open)
        close_fd (&s->out_fd);
    }
  if (s->ack_fd >= 0)
    {
      gboolean open = drain_fd (s->ack_fd, s->ack_text);
      count_acks (s);
      if (!open)
        close_fd (&s->ack_fd);
    }

  reap_children (s);

  if (s->forward_at_us > 0 && g_get_monotonic_time () >= s->forward_at_us)
    {
      s->forward_at_us = 0;
      if (command_running (s))
        forward_interrupt (s, SIGINT);
    }
}

static gboolean
perf_alive (const Session *s)
{
  return s->perf_pid > 0 && !s->perf_exited;
}

/* perf's own lines that only say what rsp says better. */
static gboolean
perf_line_is_noise (const char *line)
{
  return *line == '\0' || g_str_has_prefix (line, "[ perf record: ")
         || strcmp (line, "Events disabled") == 0 || strcmp (line, "Events enabled") == 0;
}

/* Prints what perf said, prefixed "perf: "; returns the number of lines. */
static guint
print_perf_output (Session *s, gboolean everything)
{
  g_auto (GStrv) lines = g_strsplit (s->perf_output->str, "\n", -1);
  guint printed = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    if (everything ? *lines[i] != '\0' : !perf_line_is_noise (lines[i]))
      {
        fprintf (stderr, "perf: %s\n", lines[i]);
        printed++;
      }
  g_string_truncate (s->perf_output, 0);
  return printed;
}

static void
set_perf_failed (Session *s, GError **error, const char *when)
{
  const char *see_above = print_perf_output (s, TRUE) > 0 ? _(" (its messages are above, prefixed 'perf:')") : "";
  if (s->perf_exited)
    {
      g_autofree char *how = WIFSIGNALED (s->perf_status)
                                 ? g_strdup_printf (_("was killed by signal %d"), WTERMSIG (s->perf_status))
                                 : g_strdup_printf (_("exited with status %d"), WEXITSTATUS (s->perf_status));
      g_set_error (error, RSP_RECORDER_ERROR, 0, _("perf record %s %s%s"), how, when, see_above);
    }
  else
    g_set_error (error, RSP_RECORDER_ERROR, 0, _("perf record stopped answering %s%s"), when, see_above);
}

/* Sends COMMAND ("ping", "enable", "disable") on perf's control pipe and
 * waits for its ack. */
static gboolean
perf_control (Session *s, const char *command, int timeout_s, GError **error)
{
  g_autofree char *line = g_strconcat (command, "\n", NULL);
  guint expected = s->acks + 1;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;

  const char *when = strcmp (command, "disable") == 0 ? _("while stopping") : _("while starting");
  if (write (s->ctl_fd, line, strlen (line)) != (ssize_t) strlen (line))
    {
      /* perf is gone: collect its last words and its exit status. */
      gint64 grace = g_get_monotonic_time () + G_USEC_PER_SEC;
      while ((perf_alive (s) || s->out_fd >= 0) && g_get_monotonic_time () < grace)
        session_poll (s, grace);
      set_perf_failed (s, error, when);
      return FALSE;
    }
  while (s->acks < expected && perf_alive (s) && s->ack_fd >= 0 && g_get_monotonic_time () < deadline)
    {
      if (s->phase == PHASE_STARTING && s->abort_start)
        return TRUE; /* the caller checks abort_start */
      session_poll (s, deadline);
    }
  if (s->acks >= expected)
    return TRUE;
  /* perf closed the ack pipe: it is exiting; wait for its status. */
  gint64 grace = g_get_monotonic_time () + G_USEC_PER_SEC;
  while ((perf_alive (s) || s->out_fd >= 0) && g_get_monotonic_time () < grace)
    session_poll (s, grace);
  set_perf_failed (s, error, when);
  return FALSE;
}

/* COMMAND */

static void
session_set_user (Session *s)
{
  uid_t uid;
  gid_t gid;
  g_auto (GStrv) envp = g_get_environ ();

  if (geteuid () != 0 || !rsp_probe_invoking_user ((const char *const *) envp, &uid, &gid))
    return;

  s->drop_privileges = TRUE;
  s->user_uid = uid;
  s->user_gid = gid;
  s->user_groups = g_array_new (FALSE, FALSE, sizeof (gid_t));

  struct passwd *pw = getpwuid (uid);
  if (pw == NULL)
    {
      if (s->user_gid == (gid_t) -1)
        s->user_gid = uid;
      return;
    }
  if (s->user_gid == (gid_t) -1)
    s->user_gid = pw->pw_gid;
  s->user_name = g_strdup (pw->pw_name);
  s->user_home = g_strdup (pw->pw_dir);

  int n_groups = 64;
  g_array_set_size (s->user_groups, n_groups);
  if (getgrouplist (pw->pw_name, s->user_gid, &g_array_index (s->user_groups, gid_t, 0), &n_groups) < 0)
    {
      g_array_set_size (s->user_groups, n_groups);
      if (getgrouplist (pw->pw_name, s->user_gid, &g_array_index (s->user_groups, gid_t, 0), &n_groups) < 0)
        n_groups = 0;
    }
  g_array_set_size (s->user_groups, MAX (n_groups, 0));
}

static char **
command_environment (const Session *s)
{
  char **envp = g_get_environ ();
  if (s->drop_privileges && s->user_name != NULL)
    {
      envp = g_environ_setenv (envp, "HOME", s->user_home, TRUE);
      envp = g_environ_setenv (envp, "USER", s->user_name, TRUE);
      envp = g_environ_setenv (envp, "LOGNAME", s->user_name, TRUE);
    }
  return envp;
}

static void
report_child_errno_and_exit (int fd, int code)
{
  int value = errno;
  if (write (fd, &value, sizeof value) < 0)
    {
      /* Nothing more can be said from here. */
    }
  _exit (code);
}

/* Forks COMMAND, held on a pipe until session_release_command(). */
static gboolean
session_fork_command (Session *s, GError **error)
{
  const char *program = s->options->command[0];
  s->command_path = strchr (program, '/') != NULL ? g_strdup (program) : g_find_program_in_path (program);
  if (s->command_path == NULL)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT, _("%s: command not found"), program);
      return FALSE;
    }

  g_auto (GStrv) envp = command_environment (s);
  int go[2], report[2];
  if (pipe2 (go, O_CLOEXEC) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "pipe: %s", g_strerror (errno));
      return FALSE;
    }
  if (pipe2 (report, O_CLOEXEC) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "pipe: %s", g_strerror (errno));
      close (go[0]);
      close (go[1]);
      return FALSE;
    }

  pid_t pid = fork ();
  if (pid < 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FORK, _("cannot fork: %s"), g_strerror (saved_errno));
      close (go[0]);
      close (go[1]);
      close (report[0]);
      close (report[1]);
      return FALSE;
    }
  if (pid == 0)
    {
      close (go[1]);
      close (report[0]);
      reset_child_signals ();
      if (s->drop_privileges)
        {
          if (setgroups (s->user_groups->len, (gid_t *) s->user_groups->data) != 0
              || setgid (s->user_gid) != 0 || setuid (s->user_uid) != 0)
            report_child_errno_and_exit (report[1], 126);
        }
      char byte;
      if (read (go[0], &byte, 1) != 1)
        _exit (127); /* rsp gave up before recording started */
      close (go[0]);
      execve (s->command_path, s->options->command, envp);
      report_child_errno_and_exit (report[1], errno == ENOENT ? 127 : 126);
    }

  close (go[0]);
  close (report[1]);
  s->command_pid = pid;
  s->go_fd = go[1];
  s->exec_error_fd = report[0];
  s->command_pidfd = open_pidfd (pid);
  return TRUE;
}

/* Lets COMMAND exec; FALSE (with ERROR) when it could not. */
static gboolean
session_release_command (Session *s, GError **error)
{
  s->command_released = TRUE;
  if (write (s->go_fd, "x", 1) != 1)
    {
      /* It died while held (a Ctrl-C, say); its exit is seen below. */
    }
  close_fd (&s->go_fd);

  int child_errno = 0;
  ssize_t n;
  do
    n = read (s->exec_error_fd, &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close_fd (&s->exec_error_fd);
  if (n <= 0)
    return TRUE;
  s->exec_errno = child_errno;
  g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, _("cannot run %s%s%s: %s"),
               s->options->command[0], s->drop_privileges ? _(" as ") : "",
               s->drop_privileges ? (s->user_name != NULL ? s->user_name : _("the invoking user")) : "",
               g_strerror (child_errno));
  return FALSE;
}

/* perf */

static pid_t perf_parent_pid;

static void
perf_child_setup (gpointer user_data)
{
  /* Own process group: a terminal Ctrl-C must reach COMMAND, not perf. */
  setpgid (0, 0);
  reset_child_signals ();
  /* If rsp dies, perf must stop (it writes its file on SIGTERM). */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  if (getppid () != perf_parent_pid)
    _exit (1);
}

static gboolean
session_spawn_perf (Session *s, const char *perf, const char *const *tracepoints, GError **error)
{
  int ctl[2], ack[2], out[2];

  if (pipe2 (ctl, O_CLOEXEC) != 0)
    goto pipe_failed;
  if (pipe2 (ack, O_CLOEXEC) != 0)
    {
      close (ctl[0]);
      close (ctl[1]);
      goto pipe_failed;
    }
  if (pipe2 (out, O_CLOEXEC) != 0)
    {
      close (ctl[0]);
      close (ctl[1]);
      close (ack[0]);
      close (ack[1]);
      goto pipe_failed;
    }

  s->perf_argv = rsp_recorder_perf_argv (perf, s->options, tracepoints, s->tmp_path, ctl[0], ack[1],
                                         geteuid () == 0);
  perf_parent_pid = getpid ();
  /* The control fds keep their numbers in perf, as its command line says. */
  int child_fds[2] = { ctl[0], ack[1] };
  GPid pid = 0;
  gboolean spawned = g_spawn_async_with_pipes_and_fds (NULL, (const char *const *) s->perf_argv, NULL,
                                                       G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL,
                                                       perf_child_setup, NULL, -1, out[1], out[1],
                                                       child_fds, child_fds, G_N_ELEMENTS (child_fds),
                                                       &pid, NULL, NULL, NULL, error);
  close (ctl[0]);
  close (ack[1]);
  close (out[1]);
  if (!spawned)
    {
      close (ctl[1]);
      close (ack[0]);
      close (out[0]);
      return FALSE;
    }
  s->perf_pid = pid;
  s->perf_pidfd = open_pidfd (pid);
  s->ctl_fd = ctl[1];
  s->ack_fd = ack[0];
  s->out_fd = out[0];
  g_unix_set_fd_nonblocking (s->ack_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (s->out_fd, TRUE, NULL);
  return TRUE;

pipe_failed:
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "pipe: %s", g_strerror (errno));
  return FALSE;
}

/* Stops perf with SIGINT (it then writes its header and build ids) and
 * waits for it.  TRUE when it ended the way perf ends on SIGINT. */
static gboolean
session_stop_perf (Session *s, GError **error)
{
  if (!perf_alive (s))
    {
      set_perf_failed (s, error, _("during the recording"));
      return FALSE;
    }
  kill (s->perf_pid, SIGINT);
  gint64 deadline = g_get_monotonic_time () + (gint64) PERF_STOP_TIMEOUT_S * G_USEC_PER_SEC;
  while (perf_alive (s) && g_get_monotonic_time () < deadline)
    session_poll (s, deadline);
  while (s->out_fd >= 0)
    session_poll (s, g_get_monotonic_time () + 100 * 1000);
  if (perf_alive (s))
    {
      kill (s->perf_pid, SIGKILL);
      set_perf_failed (s, error, _("while writing its file"));
      return FALSE;
    }
  /* perf record re-raises the signal that stopped it. */
  gboolean ok = (WIFEXITED (s->perf_status) && WEXITSTATUS (s->perf_status) == 0)
                || (WIFSIGNALED (s->perf_status)
                    && (WTERMSIG (s->perf_status) == SIGINT || WTERMSIG (s->perf_status) == SIGTERM));
  if (!ok)
    {
      set_perf_failed (s, error, _("while writing its file"));
      return FALSE;
    }
  print_perf_output (s, FALSE);
  return TRUE;
}

/* Ends every process rsp started and closes every fd, on any path. */
static void
session_cleanup (Session *s)
{
  /* A COMMAND still held exits when the hold pipe closes, before exec. */
  close_fd (&s->go_fd);
  close_fd (&s->exec_error_fd);
  if (s->command_pid > 0 && !s->command_exited)
    {
      if (!s->command_released)
        kill (s->command_pid, SIGKILL);
      while (waitpid (s->command_pid, &s->command_status, 0) < 0 && errno == EINTR)
        ;
      s->command_exited = TRUE;
    }
  g_clear_pointer (&s->keep_awake, rsp_keep_awake_free);
  /* Nothing stays enabled in the kernel: the instance goes on every path
   * (a SIGKILL or crash leaves it to the next rsp record's sweep). */
  g_clear_pointer (&s->ftrace, rsp_ftrace_free);
  if (perf_alive (s))
    {
      kill (s->perf_pid, SIGINT);
      gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      while (perf_alive (s) && g_get_monotonic_time () < deadline)
        session_poll (s, deadline);
      if (perf_alive (s))
        {
          kill (s->perf_pid, SIGKILL);
          while (waitpid (s->perf_pid, &s->perf_status, 0) < 0 && errno == EINTR)
            ;
          s->perf_exited = TRUE;
        }
    }
  close_fd (&s->command_pidfd);
  close_fd (&s->perf_pidfd);
  close_fd (&s->ctl_fd);
  close_fd (&s->ack_fd);
  close_fd (&s->out_fd);
  g_clear_pointer (&s->counters, rsp_health_counters_free);
}

static void
session_free_fields (Session *s)
{
  g_clear_pointer (&s->command_path, g_free);
  g_clear_pointer (&s->perf_argv, g_strfreev);
  g_clear_pointer (&s->user_name, g_free);
  g_clear_pointer (&s->user_home, g_free);
  g_clear_pointer (&s->user_groups, g_array_unref);
  g_clear_pointer (&s->tmp_path, g_free);
  g_clear_pointer (&s->ftrace_error, g_free);
  if (s->ack_text != NULL)
    g_string_free (s->ack_text, TRUE);
  if (s->perf_output != NULL)
    g_string_free (s->perf_output, TRUE);
  s->ack_text = s->perf_output = NULL;
}

/* Post-pass: what the perf.data holds */

typedef struct {
  guint64 records;
  guint64 samples;
  guint64 lost_events;
  guint64 lost_samples;
  GBytes *symbols;
} PostPass;

/* Reads the perf.data at PATH once: counts the samples of each health
 * entry's tracepoint timed within [WINDOW_START, WINDOW_END] into its
 * recorded field, and gathers the symbols the samples use. */
static gboolean
post_pass (const char *path, guint64 window_start, guint64 window_end, GArray *health,
           PostPass *result, GError **error)
{
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open (path, error);
  if (reader == NULL)
    return FALSE;

  g_autoptr (RspSymbolizer) symbolizer = rsp_symbolizer_new ();
  g_autoptr (GError) kallsyms_error = NULL;
  if (!rsp_symbolizer_load_proc_kallsyms (symbolizer, &kallsyms_error))
    fprintf (stderr, _("rsp record: kernel function names will be missing: %s\n"), kallsyms_error->message);
  const RspPerfHeader *header = rsp_perf_reader_get_header (reader);
  for (guint i = 0; header->build_ids != NULL && i < header->build_ids->len; i++)
    {
      const RspBuildId *build_id = &g_array_index (header->build_ids, RspBuildId, i);
      if (build_id->filename != NULL)
        rsp_symbolizer_add_build_id (symbolizer, build_id->filename, build_id->id, build_id->size);
    }
  rsp_symbolizer_set_track_used (symbolizer, TRUE);

  guint n_evsels = rsp_perf_reader_get_n_evsels (reader);
  g_autofree guint64 *samples_per_evsel = g_new0 (guint64, n_evsels);
  g_autofree RspFrame *frames = g_new (RspFrame, MAX_CALLCHAIN_FRAMES);
  RspEvent event;

  while (rsp_perf_reader_next (reader, &event))
    {
      rsp_symbolizer_process_event (symbolizer, &event);
      if (event.type != PERF_RECORD_SAMPLE)
        continue;
      result->samples++;
      if (event.evsel != NULL && event.evsel->index < n_evsels && event.has_time
          && event.time >= window_start && event.time <= window_end)
        samples_per_evsel[event.evsel->index]++;
      if (event.sample.n_callchain > 0 || event.sample.user_stack_size > 0)
        rsp_symbolizer_resolve_callchain (symbolizer, &event, frames, MAX_CALLCHAIN_FRAMES);
    }

  for (guint i = 0; i < health->len; i++)
    {
      RspHealthEntry *entry = &g_array_index (health, RspHealthEntry, i);
      const RspEvsel *evsel = rsp_perf_reader_find_evsel (reader, entry->event);
      if (evsel != NULL && evsel->index < n_evsels)
        entry->recorded = samples_per_evsel[evsel->index];
    }

  const RspReaderStats *stats = rsp_perf_reader_get_stats (reader);
  result->records = stats->records;
  result->lost_events = stats->lost_events;
  result->lost_samples = stats->lost_samples;
  const char *const *warnings = rsp_perf_reader_warnings (reader);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    fprintf (stderr, _("rsp record: warning: %s\n"), warnings[i]);
  result->symbols = rsp_symbolizer_export_used (symbolizer);
  return TRUE;
}

/* Metadata */

static RspRecordingMeta *
build_meta (const Session *s, char **events, const GArray *missing, const GArray *health,
            gboolean idle_loss_suspected)
{
  RspRecordingMeta *meta = rsp_recording_meta_new ();
  struct utsname uts;

  g_free (meta->rsp_version);
  meta->rsp_version = g_strdup (RSP_VERSION);
  meta->command = g_strdupv (s->options->command);
  meta->target_pid = s->command_pid > 0 ? s->command_pid : -1;
  meta->start_ns = s->start_ns;
  meta->end_ns = s->end_ns;
  meta->exit_status = s->command_pid > 0 && s->command_exited ? rsp_recorder_exit_status (s->command_status) : -1;
  meta->hostname = g_strdup (g_get_host_name ());
  meta->kernel_release = g_strdup (uname (&uts) == 0 ? uts.release : "unknown");
  g_free (meta->clock);
  meta->clock = g_strdup ("monotonic");
  meta->perf_argv = g_strdupv (s->perf_argv);
  meta->events = g_strdupv (events);

  if (meta->missing_events == NULL)
    {
      meta->missing_events = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
      g_array_set_clear_func (meta->missing_events, rsp_missing_event_clear);
    }
  for (guint i = 0; i < missing->len; i++)
    {
      const RspMissingEvent *from = &g_array_index (missing, RspMissingEvent, i);
      RspMissingEvent copy = { g_strdup (from->name), g_strdup (from->reason) };
      g_array_append_val (meta->missing_events, copy);
    }
  if (meta->health == NULL)
    {
      meta->health = g_array_new (FALSE, TRUE, sizeof (RspHealthEntry));
      g_array_set_clear_func (meta->health, rsp_health_entry_clear);
    }
  for (guint i = 0; health != NULL && i < health->len; i++)
    {
      const RspHealthEntry *from = &g_array_index (health, RspHealthEntry, i);
      RspHealthEntry copy = { g_strdup (from->event), from->counted, from->recorded };
      g_array_append_val (meta->health, copy);
    }
  meta->keep_awake = s->options->keep_awake;
  if (meta->keep_awake_pids == NULL)
    meta->keep_awake_pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  if (s->keep_awake != NULL)
    {
      const GArray *pids = rsp_keep_awake_get_pids (s->keep_awake);
      g_array_append_vals (meta->keep_awake_pids, pids->data, pids->len);
    }
  meta->idle_loss_suspected = idle_loss_suspected;
  meta->interrupted = s->interrupted;
  if (s->ftrace != NULL)
    meta->ftrace = rsp_ftrace_build_meta (s->ftrace);
  else if (s->ftrace_error != NULL)
    {
      meta->ftrace = rsp_ftrace_meta_new ();
      meta->ftrace->clock = g_strdup (RSP_FTRACE_CLOCK);
      meta->ftrace->error = g_strdup (s->ftrace_error);
    }
  return meta;
}

static GPtrArray *
single_part (GBytes *bytes)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (parts, g_bytes_ref (bytes));
  return parts;
}

/* Appends the trailer: meta, symbols and, when FTRACE_PARTS is given, the
 * instance's section. */
static gboolean
append_trailer (Session *s, const RspRecordingMeta *meta, GBytes *symbols, GPtrArray *ftrace_parts,
                GError **error)
{
  gsize meta_length = 0;
  char *meta_json = rsp_recording_meta_to_json (meta, &meta_length);
  g_autoptr (GBytes) meta_bytes = g_bytes_new_take (meta_json, meta_length);
  g_autoptr (GBytes) no_symbols = g_bytes_new_static ("", 0);
  g_autoptr (GPtrArray) meta_parts = single_part (meta_bytes);
  g_autoptr (GPtrArray) symbol_parts = single_part (symbols != NULL ? symbols : no_symbols);
  const char *const names[] = { RSP_SECTION_META, RSP_SECTION_SYMBOLS, RSP_SECTION_FTRACE };
  GPtrArray *const parts[] = { meta_parts, symbol_parts, ftrace_parts };

  return rsp_recording_append_sections (s->tmp_path, names, parts, ftrace_parts != NULL ? 3 : 2, error);
}

/* Appends the trailer to the perf.data at the temporary path, gives it to
 * the invoking user, and renames it into place.  When the instance's
 * section cannot be written (a full disk), the recording is written
 * without it, and META says so. */
static gboolean
write_recording (Session *s, RspRecordingMeta *meta, GBytes *symbols, GError **error)
{
  g_autoptr (GPtrArray) ftrace_parts = NULL;
  if (s->ftrace != NULL && meta->ftrace != NULL)
    {
      g_autoptr (GError) ftrace_error = NULL;
      ftrace_parts = rsp_ftrace_section_parts (s->ftrace, &ftrace_error);
      if (ftrace_parts == NULL)
        {
          fprintf (stderr, _("rsp record: warning: the tracefs instance's events are left out: %s; %s\n"),
                   ftrace_error->message, _(RSP_FTRACE_LOSS_TEXT));
          g_free (meta->ftrace->error);
          meta->ftrace->error = g_strdup (ftrace_error->message);
        }
    }
  if (ftrace_parts != NULL)
    {
      g_autoptr (GError) ftrace_error = NULL;
      if (append_trailer (s, meta, symbols, ftrace_parts, &ftrace_error))
        goto written;
      fprintf (stderr, _("rsp record: warning: the tracefs instance's events cannot be written (%s): the "
                         "recording is written without them; %s\n"),
               ftrace_error->message, _(RSP_FTRACE_LOSS_TEXT));
      g_free (meta->ftrace->error);
      meta->ftrace->error = g_strdup_printf (_("its section could not be written: %s"), ftrace_error->message);
    }
  if (!append_trailer (s, meta, symbols, NULL, error))
    return FALSE;

written:
  if (s->drop_privileges && chown (s->tmp_path, s->user_uid, s->user_gid) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot give %s to uid %u: %s"), s->tmp_path, (guint) s->user_uid, g_strerror (saved_errno));
      return FALSE;
    }
  if (rename (s->tmp_path, s->options->output) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot rename %s to %s: %s"), s->tmp_path, s->options->output, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* The recording */

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

static gboolean
check_output_path (const char *output, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (output);
  struct stat st;
  if (stat (output, &st) == 0 && S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   _("%s is a directory: give a file name with -o"), output);
      return FALSE;
    }
  /* the recording is renamed into place: never over a device, pipe or
   * socket (as root, -o /dev/null would replace the device) */
  if (lstat (output, &st) == 0 && !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s exists and is not a regular file: give another file name with -o"), output);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot write the recording in %s: %s (choose another place with -o)"), dir,
                   g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  char *perf;
  char *tracefs;
  RspProbedEvents events;
  char **tracepoints;   /* names passed to perf */
  char **all_events;    /* tracepoints + the sampling event */
} Probe;

static void
probe_clear (Probe *probe)
{
  g_clear_pointer (&probe->perf, g_free);
  g_clear_pointer (&probe->tracefs, g_free);
  if (probe->events.present != NULL)
    rsp_probed_events_clear (&probe->events);
  g_clear_pointer (&probe->tracepoints, g_free); /* names are static */
  g_clear_pointer (&probe->all_events, g_strfreev);
}

static gboolean
probe_machine (const RspRecorderOptions *options, Probe *probe, GError **error)
{
  probe->perf = rsp_probe_find_perf (g_getenv ("RSP_PERF"), g_getenv ("PATH"), error);
  if (probe->perf == NULL)
    return FALSE;

  gboolean mounted_now = FALSE;
  probe->tracefs = rsp_probe_tracefs (geteuid () == 0, &mounted_now, error);
  if (probe->tracefs == NULL)
    return FALSE;
  if (mounted_now)
    fprintf (stderr, _("rsp record: mounted tracefs at %s\n"), probe->tracefs);

  RspPrivileges privileges;
  rsp_probe_privileges_here (&privileges, probe->tracefs);
  if (!rsp_probe_check_privileges (&privileges, error))
    return FALSE;

  if (!rsp_probe_events (probe->tracefs, g_getenv ("RSP_RECORD_PRETEND_MISSING"), &probe->events, error))
    return FALSE;
  for (guint i = 0; i < probe->events.missing->len; i++)
    {
      const RspMissingEvent *missing = &g_array_index (probe->events.missing, RspMissingEvent, i);
      fprintf (stderr, _("rsp record: %s missing: %s\n"), missing->name, missing->reason);
    }

  guint n = probe->events.present->len;
  probe->tracepoints = g_new0 (char *, n + 1);
  probe->all_events = g_new0 (char *, n + 2);
  for (guint i = 0; i < n; i++)
    {
      const RspProbedEvent *event = &g_array_index (probe->events.present, RspProbedEvent, i);
      probe->tracepoints[i] = (char *) event->name;
      probe->all_events[i] = g_strdup (event->name);
    }
  probe->all_events[n] = g_strdup_printf (SAMPLING_EVENT_FORMAT, options->freq);
  return TRUE;
}

/* The instance cannot run: one warning, and the reason kept for the meta.
 * WITH_FIX: the cause is privileges or the tracefs mount, which the user
 * can fix. */
static void
channel_off (Session *s, const char *why, gboolean with_fix)
{
  if (with_fix)
    fprintf (stderr,
             _("rsp record: warning: RSP's tracefs instance is off: %s; %s (perf drops them). To fix it, run "
               "rsp record as root with tracefs mounted read-write: 'mount -t tracefs nodev /sys/kernel/tracing'\n"),
             why, _(RSP_FTRACE_LOSS_TEXT));
  else
    fprintf (stderr, _("rsp record: warning: RSP's tracefs instance is off: %s; %s (perf drops them)\n"), why,
             _(RSP_FTRACE_LOSS_TEXT));
  g_free (s->ftrace_error);
  s->ftrace_error = g_strdup (why);
  g_clear_pointer (&s->ftrace, rsp_ftrace_free);
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
      if (!rsp_health_counters_add (counters, event->name, event->id, &error))
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
      fprintf (stderr,
               _("rsp record: recording the whole system while %s runs%s%s "
                 "(%u events, cpu-clock at %u Hz, %s call graphs%s)...\n"),
               command, s->drop_privileges ? _(" as ") : "",
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

/* From COMMAND's release (or the start) to its end (or the deadline). */
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
      if (s->command_pid > 0 ? s->command_exited : s->stop_requested)
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

/* The instance's own losses, next to perf's. */
static void
report_ftrace_losses (const RspFtraceMeta *ftrace)
{
  for (guint i = 0; ftrace != NULL && i < ftrace->cpus->len; i++)
    {
      const RspFtraceCpuStats *c = &g_array_index (ftrace->cpus, RspFtraceCpuStats, i);
      guint64 lost = c->overrun + c->commit_overrun + c->dropped_events;
      if (lost > 0)
        fprintf (stderr,
                 _("rsp record: warning: the tracefs instance lost %llu events on CPU %u (buffer overrun): "
                   "its %d kB buffer filled faster than rsp record emptied it; %s\n"),
                 (unsigned long long) lost, c->cpu, RSP_FTRACE_BUFFER_KB, _(RSP_FTRACE_LOSS_TEXT));
    }
}

/* Starts RSP's tracefs instance (tracing still off), after removing the
 * stale ones.  When it cannot run, says once what is lost and how to fix
 * it; the recording goes on with perf alone. */
/* Events the tracefs instance records instead of perf when it runs.  They
 * fire in interrupt context (perf drops them on idle CPUs), the model
 * needs no stack of theirs, and perf's sampling of tracepoints is what
 * slows an event-dense workload: on a PostgreSQL commit loop, perf with
 * every tracepoint cost +46%, with these left to the instance +22%
 * (docs/PERFORMANCE.md).  perf keeps the events whose stacks the model
 * reads (sched_switch: the sleeper's; sched_waking: the waker's) and those
 * that fire in the task they describe (fork, exec, exit, sends, routes,
 * block_rq_insert). */
static const char *const instance_only_events[] = {
  "sched:sched_wakeup", "block:block_rq_issue", "block:block_rq_complete", "irq:irq_handler_entry",
  "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit", "sock:sk_data_ready",
  "sock:inet_sock_set_state", NULL,
};

/* What perf records: the probed tracepoints, less those the running
 * instance has taken over. */
static char **
perf_tracepoints (const Session *s, const Probe *probe)
{
  g_autoptr (RspFtraceMeta) meta = s->ftrace != NULL ? rsp_ftrace_build_meta (s->ftrace) : NULL;
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; probe->tracepoints != NULL && probe->tracepoints[i] != NULL; i++)
    {
      const char *name = probe->tracepoints[i];
      if (meta != NULL && meta->events != NULL && g_strv_contains (instance_only_events, name)
          && g_strv_contains ((const char *const *) meta->events, name))
        continue;
      g_ptr_array_add (out, g_strdup (name));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* perf's events whose every occurrence the instance also recorded, with
 * nothing lost: a shortfall of perf's there is no loss (the reader merges
 * the instance's copies in). */
static char **
covered_events (const RspFtraceMeta *ftrace)
{
  if (ftrace == NULL || ftrace->events == NULL || ftrace->error != NULL || rsp_ftrace_meta_lost (ftrace) > 0
      || ftrace->cpus->len == 0)
    return g_new0 (char *, 1);
  return g_strdupv (ftrace->events);
}

static void
session_open_ftrace (Session *s, const Probe *probe, const GArray *cpus)
{
  rsp_ftrace_remove_stale (probe->tracefs);
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp_prefix = g_strdup_printf ("%s.%d", s->options->output, (int) getpid ());
  s->ftrace = rsp_ftrace_new (probe->tracefs, cpus, tmp_prefix, g_getenv ("RSP_RECORD_PRETEND_MISSING"), &error);
  if (s->ftrace == NULL)
    {
      gboolean fixable = g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_ACCES)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_PERM)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_ROFS)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
      channel_off (s, error->message, fixable);
      return;
    }
  g_autoptr (RspFtraceMeta) meta = rsp_ftrace_build_meta (s->ftrace);
  for (guint i = 0; i < meta->missing_events->len; i++)
    {
      const RspMissingEvent *missing = &g_array_index (meta->missing_events, RspMissingEvent, i);
      gboolean told = FALSE;
      for (guint j = 0; j < probe->events.missing->len && !told; j++)
        told = g_strcmp0 (g_array_index (probe->events.missing, RspMissingEvent, j).name, missing->name) == 0;
      if (!told)
        fprintf (stderr, _("rsp record: %s missing in the tracefs instance: %s\n"), missing->name, missing->reason);
    }
}

/* After perf stopped: count what was recorded, judge the health, write the
 * file.  Returns the exit status. */
static int
session_finish (Session *s, const Probe *probe, GArray *health, GError **error)
{
  const RspRecorderOptions *options = s->options;
  PostPass result = { 0 };
  RspHealthVerdict verdict;

  if (!post_pass (s->tmp_path, s->health_start_ns, s->health_end_ns, health, &result, error))
    return 1;

  g_autoptr (RspFtraceMeta) ftrace_now = s->ftrace != NULL ? rsp_ftrace_build_meta (s->ftrace) : NULL;
  g_auto (GStrv) covered = covered_events (ftrace_now);
  rsp_health_judge (health, options->keep_awake, (const char *const *) covered,
                    result.lost_events + result.lost_samples, &verdict);
  for (guint i = 0; i < verdict.warnings->len; i++)
    fprintf (stderr, _("rsp record: warning: %s\n"), (const char *) g_ptr_array_index (verdict.warnings, i));
  if (result.lost_events > 0 || result.lost_samples > 0)
    fprintf (stderr,
             _("rsp record: warning: perf lost %llu events and %llu samples (its buffers overflowed): "
               "use a lower --freq%s if it matters\n"),
             (unsigned long long) result.lost_events, (unsigned long long) result.lost_samples,
             options->call_graph == RSP_CALL_GRAPH_DWARF ? " or --call-graph fp" : "");

  RspRecordingMeta *meta = build_meta (s, probe->all_events, probe->events.missing, health,
                                       verdict.idle_loss_suspected);
  report_ftrace_losses (meta->ftrace);
  gboolean written = write_recording (s, meta, result.symbols, error);
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
  return s->command_pid > 0 ? rsp_recorder_exit_status (s->command_status) : 0;
}

/* Probes, starts everything, records, stops perf.  Returns the exit status
 * when it cannot go on, -1 when perf stopped cleanly. */
static int
session_record (Session *s, const Probe *probe, GArray **health, GError **error)
{
  const RspRecorderOptions *options = s->options;
  g_autoptr (GArray) cpus = rsp_probe_online_cpus ();

  if (!check_output_path (options->output, error))
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
  g_auto (GStrv) perf_events = perf_tracepoints (s, probe);
  open_health_counters (s, probe, cpus, (const char *const *) perf_events);
  if (!session_spawn_perf (s, probe->perf, (const char *const *) perf_events, error))
    return 1;

  /* perf answers only once it has set everything up. */
  if (!perf_control (s, "ping", PERF_READY_TIMEOUT_S, error))
    return 1;
  if (s->ftrace != NULL && !s->abort_start)
    {
      /* on just before perf: the instance's window covers perf's */
      g_autoptr (GError) ftrace_error = NULL;
      if (!rsp_ftrace_start (s->ftrace, &ftrace_error))
        channel_off (s, ftrace_error->message, FALSE);
    }
  if (!s->abort_start && !perf_control (s, "enable", PERF_ACK_TIMEOUT_S, error))
    return 1;
  if (s->abort_start)
    {
      g_set_error (error, RSP_RECORDER_ERROR, 0, _("interrupted before the recording started"));
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
  gboolean disabled = perf_alive (s) && perf_control (s, "disable", PERF_ACK_TIMEOUT_S, NULL);
  /* off just after perf, then the rest of its buffers and its statistics */
  rsp_ftrace_stop (s->ftrace);
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

  if (probe_machine (s->options, &probe, error))
    {
      status = session_record (s, &probe, &health, error);
      if (status < 0)
        {
          if (health == NULL)
            health = rsp_health_entries_new ();
          status = session_finish (s, &probe, health, error);
        }
    }
  probe_clear (&probe);
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

  if (install_signal_handlers (&s, &saved, &error))
    {
      status = session_run (&s, &error);
      session_cleanup (&s);
      restore_signal_handlers (&s, &saved);
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
