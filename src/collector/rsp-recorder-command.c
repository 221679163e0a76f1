/* rsp-recorder-command.c — COMMAND: the invoking user it runs as when rsp
 * was started through sudo or pkexec, forked early and held on a pipe,
 * released when the recording starts, and its exit status. */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The standard output of ARGV, a system program (ARGV[0] a name, looked
 * for in the system's directories, not in PATH: rsp runs as root here),
 * or NULL when it cannot be run or fails. */
static char *
tool_output (const char *const *argv)
{
  static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin" };
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], argv[0], NULL);
      if (!g_file_test (path, G_FILE_TEST_IS_EXECUTABLE))
        continue;
      g_auto (GStrv) full = g_strdupv ((char **) argv);
      g_free (full[0]);
      full[0] = g_steal_pointer (&path);
      g_autofree char *out = NULL;
      int status = 0;
      if (!g_spawn_sync (NULL, full, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL)
          || !g_spawn_check_wait_status (status, NULL))
        return NULL;
      return g_steal_pointer (&out);
    }
  return NULL;
}

/* The user UID's name, home and groups, asked of getent(1) and id(1):
 * they read the user databases through NSS (/etc/passwd, systemd's,
 * sssd's, LDAP), which a statically linked rsp cannot do itself (a static
 * C library loading those modules crashes; main.c keeps it to the files).
 * FALSE when the tools cannot tell. */
static gboolean
user_from_tools (Session *s, uid_t uid)
{
  g_autofree char *uid_text = g_strdup_printf ("%u", (unsigned) uid);
  const char *getent[] = { "getent", "passwd", uid_text, NULL };
  g_autofree char *entry = tool_output (getent);
  g_autofree char *name = NULL, *home = NULL;
  gid_t pw_gid;
  if (entry == NULL || !rsp_probe_parse_passwd (entry, uid, &name, &pw_gid, &home))
    return FALSE;
  if (s->user_gid == (gid_t) -1)
    s->user_gid = pw_gid;
  /* as getgrouplist(name, gid): that group, then the groups the user is
   * a member of.  id -G prints the passwd entry's group first, then those
   * (without it again): not that first one, which is the group given or
   * not the user's here (sudo's SUDO_GID may be another, after newgrp or
   * sg). */
  const char *id[] = { "id", "-G", "--", name, NULL };
  g_autofree char *groups = tool_output (id);
  g_autoptr (GArray) listed = g_array_new (FALSE, FALSE, sizeof (gid_t));
  if (groups == NULL || !rsp_probe_parse_groups (groups, listed))
    {
      fprintf (stderr, _("rsp record: warning: %s\n"),
               _("the invoking user's groups could not be read (id -G): the command runs with the "
                 "user's group alone"));
      g_array_set_size (listed, 0);
    }
  g_array_set_size (s->user_groups, 0);
  g_array_append_val (s->user_groups, s->user_gid);
  for (guint i = 1; i < listed->len; i++)
    if (g_array_index (listed, gid_t, i) != s->user_gid)
      g_array_append_val (s->user_groups, g_array_index (listed, gid_t, i));
  s->user_name = g_steal_pointer (&name);
  s->user_home = g_steal_pointer (&home);
  return TRUE;
}

/* Under sudo or pkexec, as root: COMMAND is to run as the invoking user,
 * with that user's groups, name and home. */
void
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
  if (user_from_tools (s, uid))
    return;

  /* without getent and id: the C library's own look-up */
  struct passwd *pw = getpwuid (uid);
  if (pw == NULL)
    {
      g_autofree char *what = g_strdup_printf (_("user %u has no entry in the user database that getent or "
                                                 "/etc/passwd show: the command runs with that user id, "
                                                 "no supplementary groups, and rsp's HOME"),
                                               (unsigned) uid);
      fprintf (stderr, _("rsp record: warning: %s\n"), what);
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
gboolean
session_fork_command (Session *s, GError **error)
{
  const char *program = s->options->command[0];
  g_free (s->command_path); /* a run of --repeat after the first */
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
      recorder_reset_child_signals ();
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
      if (s->options->stop_on_eof)
        {
          /* standard input is rsp's stop signal, not COMMAND's input */
          int null = open ("/dev/null", O_RDONLY);
          if (null < 0 || dup2 (null, STDIN_FILENO) < 0)
            report_child_errno_and_exit (report[1], 126);
          if (null != STDIN_FILENO)
            close (null);
        }
      execve (s->command_path, s->options->command, envp);
      report_child_errno_and_exit (report[1], errno == ENOENT ? 127 : 126);
    }

  close (go[0]);
  close (report[1]);
  s->command_pid = pid;
  s->go_fd = go[1];
  s->exec_error_fd = report[0];
  s->command_pidfd = recorder_open_pidfd (pid);
  return TRUE;
}

/* Lets COMMAND exec; FALSE (with ERROR) when it could not. */
gboolean
session_release_command (Session *s, GError **error)
{
  s->command_released = TRUE;
  if (write (s->go_fd, "x", 1) != 1)
    {
      /* It died while held (a Ctrl-C, say); its exit is seen below. */
    }
  recorder_close_fd (&s->go_fd);

  int child_errno = 0;
  ssize_t n;
  do
    n = read (s->exec_error_fd, &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  recorder_close_fd (&s->exec_error_fd);
  if (n <= 0)
    return TRUE;
  s->exec_errno = child_errno;
  g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, _("cannot run %s%s%s: %s"),
               s->options->command[0], s->drop_privileges ? _(" as ") : "",
               s->drop_privileges ? (s->user_name != NULL ? s->user_name : _("the invoking user")) : "",
               g_strerror (child_errno));
  return FALSE;
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
