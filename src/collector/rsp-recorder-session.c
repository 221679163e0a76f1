/* rsp-recorder-session.c — the plumbing of one recording: signals through a
 * self-pipe and what an interrupt does in each phase, the poll loop that
 * waits for signals, perf's pipes, the exit of COMMAND or perf and the
 * tracefs instance's buffers, and the cleanup that ends every process rsp
 * started on any path. */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <poll.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORWARD_INTERRUPT_MS 500   /* a terminal Ctrl-C reaches COMMAND itself */
#define NO_PIDFD_TICK_MS 2

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
G_STATIC_ASSERT (G_N_ELEMENTS (handled_signals) == RECORDER_N_SIGNALS); /* SavedSignals */

gboolean
session_install_signal_handlers (Session *s, SavedSignals *saved, GError **error)
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

void
session_restore_signal_handlers (Session *s, const SavedSignals *saved)
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
void
recorder_reset_child_signals (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    signal (handled_signals[i], SIG_DFL);
  signal (SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
}

int
recorder_open_pidfd (pid_t pid)
{
#ifdef SYS_pidfd_open
  return (int) syscall (SYS_pidfd_open, pid, 0);
#else
  return -1;
#endif
}

void
recorder_close_fd (int *fd)
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
reap_children (Session *s)
{
  int status;
  if (s->command_pid > 0 && !s->command_exited && waitpid (s->command_pid, &status, WNOHANG) == s->command_pid)
    {
      s->command_exited = TRUE;
      s->command_status = status;
      recorder_close_fd (&s->command_pidfd);
    }
  if (s->perf_pid > 0 && !s->perf_exited && waitpid (s->perf_pid, &status, WNOHANG) == s->perf_pid)
    {
      s->perf_exited = TRUE;
      s->perf_status = status;
      recorder_close_fd (&s->perf_pidfd);
    }
}

/* Waits for something to happen, at most until DEADLINE_US (monotonic µs;
 * 0 = no deadline), and handles it: signals, perf's output and acks, the
 * exit of COMMAND or perf. */
void
session_poll (Session *s, gint64 deadline_us)
{
  guint n_ftrace_max = s->ftrace != NULL ? rsp_ftrace_get_n_cpus (s->ftrace) : 0;
  guint n_namer_max = s->namer != NULL ? rsp_ftrace_get_n_cpus (s->namer) : 0;
  struct pollfd *fds = g_newa (struct pollfd, 6 + n_ftrace_max + n_namer_max);
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
  nfds_t stdin_slot = G_MAXUINT;
  if (s->options->stop_on_eof && !s->stdin_ended)
    {
      stdin_slot = n;
      fds[n++] = (struct pollfd) { STDIN_FILENO, POLLIN, 0 };
    }
  if (s->out_fd >= 0)
    fds[n++] = (struct pollfd) { s->out_fd, POLLIN, 0 };
  if (s->ack_fd >= 0)
    fds[n++] = (struct pollfd) { s->ack_fd, POLLIN, 0 };
  if (s->command_pidfd >= 0)
    fds[n++] = (struct pollfd) { s->command_pidfd, POLLIN, 0 };
  if (s->perf_pidfd >= 0)
    fds[n++] = (struct pollfd) { s->perf_pidfd, POLLIN, 0 };
  /* the file namer's next read */
  gint64 namer_ms = session_file_namer_timeout (s);
  if (namer_ms >= 0)
    timeout_ms = timeout_ms < 0 ? namer_ms : MIN (timeout_ms, namer_ms);
  /* the instance's buffers: readable when RSP_FTRACE_BUFFER_PERCENT full */
  nfds_t ftrace_first = n;
  n += rsp_ftrace_poll_fds (s->ftrace, fds + n, n_ftrace_max);
  nfds_t namer_first = n;
  n += session_file_namer_poll_fds (s, fds + n, n_namer_max);

  if (poll (fds, n, (int) MIN (timeout_ms, G_MAXINT)) < 0 && errno != EINTR)
    g_warning ("poll: %s", g_strerror (errno));
  else
    {
      if (namer_first > ftrace_first)
        rsp_ftrace_drain (s->ftrace, fds + ftrace_first, (guint) (namer_first - ftrace_first));
      session_file_namer_tick (s, fds + namer_first, (guint) (n - namer_first), FALSE);
    }

  if (stdin_slot < n && (fds[stdin_slot].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
    {
      /* whatever comes is read and dropped; its end is the stop */
      char buf[256];
      ssize_t got = read (STDIN_FILENO, buf, sizeof buf);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) || (fds[stdin_slot].revents & POLLNVAL))
        {
          s->stdin_ended = TRUE;
          session_on_signal (s, SIGTERM);
        }
    }

  unsigned char signals[16];
  ssize_t n_signals;
  while ((n_signals = read (s->signal_fd, signals, sizeof signals)) > 0)
    for (ssize_t i = 0; i < n_signals; i++)
      session_on_signal (s, signals[i]);

  session_read_perf (s);
  reap_children (s);

  if (s->forward_at_us > 0 && g_get_monotonic_time () >= s->forward_at_us)
    {
      s->forward_at_us = 0;
      if (command_running (s))
        forward_interrupt (s, SIGINT);
    }
}

/* Ends every process rsp started and closes every fd, on any path. */
void
session_cleanup (Session *s)
{
  /* A COMMAND still held exits when the hold pipe closes, before exec. */
  recorder_close_fd (&s->go_fd);
  recorder_close_fd (&s->exec_error_fd);
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
  g_clear_pointer (&s->namer, rsp_ftrace_free);
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
  /* the uprobes go once perf has let go of them */
  session_remove_uprobes (s, s->probe_perf);
  recorder_close_fd (&s->command_pidfd);
  recorder_close_fd (&s->perf_pidfd);
  recorder_close_fd (&s->ctl_fd);
  recorder_close_fd (&s->ack_fd);
  recorder_close_fd (&s->out_fd);
  g_clear_pointer (&s->counters, rsp_health_counters_free);
}

void
session_free_fields (Session *s)
{
  g_clear_pointer (&s->command_path, g_free);
  g_clear_pointer (&s->perf_argv, g_strfreev);
  g_clear_pointer (&s->perf_filters, g_array_unref);
  g_clear_pointer (&s->user_name, g_free);
  g_clear_pointer (&s->user_home, g_free);
  g_clear_pointer (&s->user_groups, g_array_unref);
  g_clear_pointer (&s->tmp_path, g_free);
  g_clear_pointer (&s->runs, g_array_unref);
  g_clear_pointer (&s->probe_group, g_free);
  g_clear_pointer (&s->probe_perf, g_free);
  g_clear_pointer (&s->ftrace_error, g_free);
  g_clear_pointer (&s->files, rsp_file_names_free);
  g_clear_pointer (&s->namer_stream, rsp_ftrace_stream_free);
  g_clear_pointer (&s->namer_evsels, g_ptr_array_unref);
  if (s->ack_text != NULL)
    g_string_free (s->ack_text, TRUE);
  if (s->perf_output != NULL)
    g_string_free (s->perf_output, TRUE);
  s->ack_text = s->perf_output = NULL;
}
