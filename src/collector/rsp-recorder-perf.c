/* rsp-recorder-perf.c — perf record as rsp's child: spawned with its
 * control and ack pipes, driven through them ("ping", "enable",
 * "disable"), its output kept and shown, stopped with SIGINT. */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PERF_STOP_TIMEOUT_S 600    /* perf reads its whole file again for build ids */
#define PERF_OUTPUT_MAX (256 * 1024)

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

/* Reads what perf wrote on its output and ack pipes (non-blocking), and
 * closes each at its end of file. */
void
session_read_perf (Session *s)
{
  if (s->out_fd >= 0)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      gboolean open = drain_fd (s->out_fd, text);
      keep_perf_output (s, text->str, text->len);
      if (!open)
        recorder_close_fd (&s->out_fd);
    }
  if (s->ack_fd >= 0)
    {
      gboolean open = drain_fd (s->ack_fd, s->ack_text);
      count_acks (s);
      if (!open)
        recorder_close_fd (&s->ack_fd);
    }
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
      g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_PERF, _("perf record %s %s%s"), how, when, see_above);
    }
  else
    g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_PERF, _("perf record stopped answering %s%s"), when, see_above);
}

/* Sends COMMAND ("ping", "enable", "disable") on perf's control pipe and
 * waits for its ack. */
gboolean
session_perf_control (Session *s, const char *command, int timeout_s, GError **error)
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

static pid_t perf_parent_pid;

static void
perf_child_setup (gpointer user_data)
{
  /* Own process group: a terminal Ctrl-C must reach COMMAND, not perf. */
  setpgid (0, 0);
  recorder_reset_child_signals ();
  /* If rsp dies, perf must stop (it writes its file on SIGTERM). */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  if (getppid () != perf_parent_pid)
    _exit (1);
}

gboolean
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

  s->perf_argv = rsp_recorder_perf_argv (perf, s->options, tracepoints, s->perf_filters, s->tmp_path, ctl[0],
                                         ack[1], geteuid () == 0);
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
  s->perf_pidfd = recorder_open_pidfd (pid);
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
gboolean
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
