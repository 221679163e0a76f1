/* rsp-probe.c — capability checks before recording.  See rsp-probe.h. */
#include "rsp-probe.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rsp-recording.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

G_DEFINE_QUARK (rsp-probe-error-quark, rsp_probe_error)

/* What each event gives the analysis, said as what is lost without it. */
static const RspEventSpec event_set[] = {
  { "sched:sched_switch", "runs and sleeps cannot be rebuilt: the analysis will be nearly empty", FALSE },
  { "sched:sched_waking", "who woke whom will be guessed from sched_wakeup (often the wrong context)", TRUE },
  { "sched:sched_wakeup", "wake-up times will come from sched_waking", TRUE },
  { "sched:sched_wakeup_new", "new tasks will not be linked to the task that created them", FALSE },
  { "sched:sched_process_fork", "fork links will come from perf's FORK records only", FALSE },
  { "sched:sched_process_exec", "exec generations will come from perf's COMM records only", FALSE },
  { "sched:sched_process_exit", "task ends will come from perf's EXIT records only", FALSE },
  { "block:block_rq_insert", "disk queue time will not be told apart from service time", FALSE },
  { "block:block_rq_issue", "disk service time will not be measured", FALSE },
  { "block:block_rq_complete", "disk waits will show as hardware waits", TRUE },
  { "irq:irq_handler_entry", "hardware interrupts will be unnamed and guessed from stacks", TRUE },
  { "irq:irq_handler_exit", "interrupt context will be guessed from stacks", TRUE },
  { "irq:softirq_entry", "softirq context will be guessed from stacks", TRUE },
  { "irq:softirq_exit", "softirq context will be guessed from stacks", TRUE },
  { "sock:sock_send_length", "network waits will start at the sleep instead of the last send", FALSE },
  { "sock:sock_recv_length", "network receives will not be seen", FALSE },
  { "sock:sk_data_ready", "network waits will show as hardware waits", TRUE },
  { "sock:inet_sock_set_state", "the remote host and port of TCP waits will be unknown", FALSE },
  { "fib:fib_table_lookup", "the remote host and port of UDP waits will be unknown", FALSE },
};

const RspEventSpec *
rsp_probe_event_set (guint *n_events)
{
  g_return_val_if_fail (n_events != NULL, NULL);
  *n_events = G_N_ELEMENTS (event_set);
  return event_set;
}

const RspEventSpec *
rsp_probe_event_spec (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (event_set); i++)
    if (strcmp (event_set[i].name, name) == 0)
      return &event_set[i];
  return NULL;
}

static gboolean
is_executable_file (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISREG (st.st_mode) && access (path, X_OK) == 0;
}

char *
rsp_probe_find_perf (const char *rsp_perf_env, const char *path_env, GError **error)
{
  if (rsp_perf_env != NULL && *rsp_perf_env != '\0')
    {
      if (is_executable_file (rsp_perf_env))
        return g_strdup (rsp_perf_env);
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_PERF,
                   _("perf not found: RSP_PERF=%s is not an executable file "
                   "(unset RSP_PERF to use perf from PATH; install perf with 'apt-get install linux-perf')"),
                   rsp_perf_env);
      return NULL;
    }

  g_auto (GStrv) dirs = g_strsplit (path_env != NULL ? path_env : "/usr/bin:/bin", ":", -1);
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *candidate = g_build_filename (*dirs[i] != '\0' ? dirs[i] : ".", "perf", NULL);
      if (is_executable_file (candidate))
        return g_steal_pointer (&candidate);
    }
  g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_PERF,
               _("perf not found in PATH: install it with 'apt-get install linux-perf' "
               "(Debian; 'linux-tools-$(uname -r)' on Ubuntu, 'perf' on Fedora)"));
  return NULL;
}

static gboolean
capability_effective (int bit)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return FALSE;
  const char *line = strstr (status, "\nCapEff:");
  if (line == NULL)
    return FALSE;
  guint64 caps = g_ascii_strtoull (line + strlen ("\nCapEff:"), NULL, 16);
  return (caps >> bit) & 1;
}

void
rsp_probe_privileges_here (RspPrivileges *privileges, const char *tracefs)
{
  g_return_if_fail (privileges != NULL);

  privileges->euid = geteuid ();
  privileges->egid = getegid ();
  privileges->perf_event_paranoid = 2;
  g_autofree char *text = NULL;
  if (g_file_get_contents ("/proc/sys/kernel/perf_event_paranoid", &text, NULL, NULL))
    privileges->perf_event_paranoid = (int) g_ascii_strtoll (text, NULL, 10);
  privileges->cap_perfmon = capability_effective (CAP_PERFMON_BIT)
                            || capability_effective (CAP_SYS_ADMIN_BIT);
  privileges->tracefs_readable = FALSE;
  if (tracefs != NULL)
    {
      g_autofree char *id = g_build_filename (tracefs, "events", "sched", "sched_switch", "id", NULL);
      privileges->tracefs_readable = access (id, R_OK) == 0;
    }
}

gboolean
rsp_probe_check_privileges (const RspPrivileges *privileges, GError **error)
{
  g_return_val_if_fail (privileges != NULL, FALSE);

  if (privileges->euid == 0)
    return TRUE;
  /* Tracepoint samples carry raw data: the kernel allows that system wide
   * only with CAP_PERFMON or perf_event_paranoid -1; and perf reads the
   * tracepoint ids and formats from tracefs. */
  if (!privileges->cap_perfmon && privileges->perf_event_paranoid > -1)
    {
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_PRIVILEGES,
                   _("not allowed to record the whole system (kernel.perf_event_paranoid is %d): "
                   "run 'sudo rsp record ...', or allow it with "
                   "'sudo sysctl kernel.perf_event_paranoid=-1'"),
                   privileges->perf_event_paranoid);
      return FALSE;
    }
  if (!privileges->tracefs_readable)
    {
      /* The tracepoint files are 0440 root: a mode= alone does not open them. */
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_PRIVILEGES,
                   _("cannot read the tracepoints in tracefs as a normal user: "
                   "run 'sudo rsp record ...', or give your group access with "
                   "'sudo mount -o remount,mode=750,gid=%u /sys/kernel/tracing'"),
                   (guint) privileges->egid);
      return FALSE;
    }
  return TRUE;
}

static gboolean
is_tracefs (const char *path)
{
  struct statfs st;
  return statfs (path, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

char *
rsp_probe_tracefs (gboolean may_mount, gboolean *mounted_now, GError **error)
{
  static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

  if (mounted_now != NULL)
    *mounted_now = FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (candidates); i++)
    if (is_tracefs (candidates[i]))
      return g_strdup (candidates[i]);

  if (!may_mount)
    {
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_TRACEFS,
                   _("tracefs is not mounted, so the kernel's tracepoints cannot be used: "
                   "run rsp record as root (it mounts it), or "
                   "'sudo mount -t tracefs nodev /sys/kernel/tracing'"));
      return NULL;
    }
  if (mount ("nodev", candidates[0], "tracefs", 0, NULL) != 0 || !is_tracefs (candidates[0]))
    {
      int saved_errno = errno;
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_TRACEFS,
                   _("tracefs is not mounted and mounting it at %s failed (%s): "
                   "is the kernel built with CONFIG_TRACING?"),
                   candidates[0], g_strerror (saved_errno));
      return NULL;
    }
  if (mounted_now != NULL)
    *mounted_now = TRUE;
  return g_strdup (candidates[0]);
}

gboolean
rsp_probe_pretends_missing (const char *pretend_missing, const char *name)
{
  if (pretend_missing == NULL)
    return FALSE;
  g_auto (GStrv) items = g_strsplit (pretend_missing, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    if (strcmp (g_strstrip (items[i]), name) == 0)
      return TRUE;
  return FALSE;
}

/* The events recorded in part (rsp_probe_event_filter()): each filter
 * and the field of the event it reads. */
static const struct {
  const char *event, *field, *filter;
} event_filters[] = {
  { "sock:sock_send_length", "family", "family != 1" },
  { "sock:sock_recv_length", "family", "family != 1" },
  { "sock:sk_data_ready", "family", "family != 1" },
};

/* The text of FILE ("id", "format") of EVENT ("system:name") in TRACEFS,
 * or NULL. */
static char *
read_event_file (const char *tracefs, const char *event, const char *file)
{
  g_auto (GStrv) parts = g_strsplit (event, ":", 2);
  if (parts[0] == NULL || parts[1] == NULL)
    return NULL;
  g_autofree char *path = g_build_filename (tracefs, "events", parts[0], parts[1], file, NULL);
  char *text = NULL;
  return g_file_get_contents (path, &text, NULL, NULL) ? text : NULL;
}

/* Whether TRACEFS's format of EVENT ("system:name") has a field named
 * FIELD. */
static gboolean
format_has_field (const char *tracefs, const char *event, const char *field)
{
  g_autofree char *text = read_event_file (tracefs, event, "format");
  /* the name ends a field line's declaration: " family;\toffset:" */
  g_autofree char *needle = g_strdup_printf (" %s;\toffset:", field);
  return text != NULL && strstr (text, needle) != NULL;
}

const char *
rsp_probe_event_filter (const char *tracefs, const char *event, const char *pretend_missing)
{
  g_return_val_if_fail (tracefs != NULL && event != NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (event_filters); i++)
    if (strcmp (event_filters[i].event, event) == 0)
      {
        g_autofree char *pretend = g_strdup_printf ("filter:%s", event_filters[i].field);
        if (rsp_probe_pretends_missing (pretend_missing, pretend)
            || !format_has_field (tracefs, event, event_filters[i].field))
          return NULL;
        return event_filters[i].filter;
      }
  return NULL;
}

static gboolean
read_event_id (const char *tracefs, const char *name, guint64 *id)
{
  g_autofree char *text = read_event_file (tracefs, name, "id");
  if (text == NULL)
    return FALSE;
  g_strstrip (text);
  return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, id, NULL);
}

gboolean
rsp_probe_events (const char *tracefs, const char *pretend_missing, RspProbedEvents *events,
                  GError **error)
{
  g_return_val_if_fail (tracefs != NULL, FALSE);
  g_return_val_if_fail (events != NULL, FALSE);

  events->present = g_array_new (FALSE, TRUE, sizeof (RspProbedEvent));
  events->missing = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
  g_array_set_clear_func (events->missing, rsp_missing_event_clear);

  for (gsize i = 0; i < G_N_ELEMENTS (event_set); i++)
    {
      const RspEventSpec *spec = &event_set[i];
      RspProbedEvent probed = { spec->name, 0 };
      gboolean pretended = rsp_probe_pretends_missing (pretend_missing, spec->name);

      if (!pretended && read_event_id (tracefs, spec->name, &probed.id))
        {
          g_array_append_val (events->present, probed);
          continue;
        }
      RspMissingEvent missing = {
        g_strdup (spec->name),
        g_strdup_printf ("%s (%s)", spec->lost,
                         pretended ? "marked missing by RSP_RECORD_PRETEND_MISSING"
                                   : "this kernel does not have it"),
      };
      g_array_append_val (events->missing, missing);
    }

  if (events->present->len == 0)
    {
      g_set_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_EVENTS,
                   _("none of the scheduler, block, irq or sock tracepoints can be found in %s/events: "
                   "is the kernel built with CONFIG_TRACEPOINTS and CONFIG_FTRACE?"), tracefs);
      return FALSE;
    }
  return TRUE;
}

void
rsp_probed_events_clear (RspProbedEvents *events)
{
  g_return_if_fail (events != NULL);
  g_clear_pointer (&events->present, g_array_unref);
  g_clear_pointer (&events->missing, g_array_unref);
}

GArray *
rsp_probe_parse_cpu_list (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);

  g_autoptr (GArray) cpus = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *copy = g_strstrip (g_strdup (text));
  if (*copy == '\0')
    return NULL;
  g_auto (GStrv) ranges = g_strsplit (copy, ",", -1);
  for (guint i = 0; ranges[i] != NULL; i++)
    {
      guint64 first, last;
      char *dash = strchr (ranges[i], '-');
      if (dash != NULL)
        *dash = '\0';
      if (!g_ascii_string_to_unsigned (ranges[i], 10, 0, 65535, &first, NULL))
        return NULL;
      last = first;
      if (dash != NULL && !g_ascii_string_to_unsigned (dash + 1, 10, first, 65535, &last, NULL))
        return NULL;
      for (guint64 cpu = first; cpu <= last; cpu++)
        {
          guint value = (guint) cpu;
          g_array_append_val (cpus, value);
        }
    }
  return g_steal_pointer (&cpus);
}

GArray *
rsp_probe_online_cpus (void)
{
  g_autofree char *text = NULL;
  GArray *cpus = NULL;

  if (g_file_get_contents ("/sys/devices/system/cpu/online", &text, NULL, NULL))
    cpus = rsp_probe_parse_cpu_list (text);
  if (cpus == NULL || cpus->len == 0)
    {
      long n = sysconf (_SC_NPROCESSORS_ONLN);
      g_clear_pointer (&cpus, g_array_unref);
      cpus = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint cpu = 0; cpu < (guint) MAX (n, 1); cpu++)
        g_array_append_val (cpus, cpu);
    }
  return cpus;
}

static gboolean
parse_id (const char *text, guint64 *value)
{
  return text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32 - 1, value, NULL);
}

gboolean
rsp_probe_invoking_user (const char *const *envp, uid_t *uid, gid_t *gid)
{
  g_return_val_if_fail (uid != NULL && gid != NULL, FALSE);

  guint64 user_id, group_id;
  const char *sudo_uid = g_environ_getenv ((char **) envp, "SUDO_UID");
  const char *pkexec_uid = g_environ_getenv ((char **) envp, "PKEXEC_UID");

  if (parse_id (sudo_uid, &user_id))
    {
      if (!parse_id (g_environ_getenv ((char **) envp, "SUDO_GID"), &group_id))
        group_id = (gid_t) -1;
    }
  else if (parse_id (pkexec_uid, &user_id))
    group_id = (gid_t) -1;
  else
    return FALSE;
  if (user_id == 0)
    return FALSE;
  *uid = (uid_t) user_id;
  *gid = (gid_t) group_id;
  return TRUE;
}

gboolean
rsp_probe_parse_passwd (const char *text, uid_t uid, char **name, gid_t *gid, char **home)
{
  g_return_val_if_fail (text != NULL && name != NULL && gid != NULL && home != NULL, FALSE);

  /* name:password:uid:gid:gecos:home:shell, one line */
  g_autofree char *line = g_strndup (text, strcspn (text, "\n"));
  g_auto (GStrv) fields = g_strsplit (line, ":", -1);
  guint64 user_id, group_id;
  if (g_strv_length (fields) != 7 || fields[0][0] == '\0' || !parse_id (fields[2], &user_id)
      || user_id != uid || !parse_id (fields[3], &group_id) || fields[5][0] != '/')
    return FALSE;
  *name = g_strdup (fields[0]);
  *gid = (gid_t) group_id;
  *home = g_strdup (fields[5]);
  return TRUE;
}

gboolean
rsp_probe_parse_groups (const char *text, GArray *groups)
{
  g_return_val_if_fail (text != NULL && groups != NULL, FALSE);

  g_autofree char *line = g_strndup (text, strcspn (text, "\n"));
  g_auto (GStrv) words = g_strsplit_set (line, " \t", -1);
  guint before = groups->len;
  for (guint i = 0; words[i] != NULL; i++)
    {
      guint64 id;
      if (words[i][0] == '\0')
        continue;
      if (!parse_id (words[i], &id))
        {
          g_array_set_size (groups, before);
          return FALSE;
        }
      gid_t g = (gid_t) id;
      gboolean seen = FALSE;
      for (guint k = 0; k < groups->len && !seen; k++)
        seen = g_array_index (groups, gid_t, k) == g;
      if (!seen)
        g_array_append_val (groups, g);
    }
  return groups->len > before;
}
