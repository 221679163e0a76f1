/* rsp-recorder-uprobes.c — `rsp record --probe BINARY:FUNCTION`: a uprobe
 * on the function's entry and one on its return, placed through `perf
 * probe` in a group of this recorder's own (rsp_PID), recorded by perf
 * like the tracepoints, and removed when the recording ends, however it
 * ends; a group left by a killed recorder (its pid gone) is removed at the
 * next start.  Each call is a request of `rsp report --requests
 * probe:FUNCTION` (docs/REQUESTS.md). */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

/* Runs PERF probe ARGS...; on failure sets ERROR with perf's own words. */
static gboolean
run_perf_probe (const char *perf, const char *const *args, GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) perf);
  g_ptr_array_add (argv, (gpointer) "probe");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_autofree char *why = g_strstrip (g_strdup (err != NULL && *err != '\0' ? err : out != NULL ? out : ""));
      /* perf's first line says it; the rest is its usage */
      char *nl = strchr (why, '\n');
      if (nl != NULL)
        *nl = '\0';
      g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE, "%s", why);
      return FALSE;
    }
  return TRUE;
}

/* Removes the uprobe groups rsp_PID whose recorder is gone. */
void
recorder_sweep_uprobes (const char *perf)
{
  const char *dir = tracefs_tracing_dir ();
  if (dir == NULL)
    return;
  g_autofree char *path = g_build_filename (dir, "uprobe_events", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  g_autoptr (GHashTable) done = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (char *line = text; line != NULL && *line != '\0';)
    {
      char *next = strchr (line, '\n');
      if (next != NULL)
        *next++ = '\0';
      /* "p:rsp_1234/FUNC /path:0x..." */
      const char *group = strchr (line, ':');
      guint64 pid;
      char *end = NULL;
      if (group != NULL && g_str_has_prefix (group + 1, "rsp_")
          && (pid = g_ascii_strtoull (group + 5, &end, 10)) > 0 && end != NULL && *end == '/'
          && !g_hash_table_contains (done, GUINT_TO_POINTER ((guint) pid))
          && kill ((pid_t) pid, 0) != 0 && errno == ESRCH)
        {
          g_hash_table_add (done, GUINT_TO_POINTER ((guint) pid));
          g_autofree char *spec = g_strdup_printf ("rsp_%u:*", (guint) pid);
          const char *args[] = { "-q", "-d", spec, NULL };
          if (run_perf_probe (perf, args, NULL))
            fprintf (stderr, _("rsp record: removed the uprobes a stopped recorder left (rsp_%u)\n"), (guint) pid);
        }
      line = next;
    }
}

gboolean
session_add_uprobes (Session *s, const char *perf, GPtrArray *events, GError **error)
{
  const RspRecorderOptions *options = s->options;
  if (options->probes == NULL || options->probes[0] == NULL)
    return TRUE;
  g_free (s->probe_group);
  s->probe_group = g_strdup_printf ("rsp_%d", (int) getpid ());
  for (guint i = 0; options->probes[i] != NULL; i++)
    {
      const char *spec = options->probes[i];
      const char *colon = strrchr (spec, ':');
      g_autofree char *binary = g_strndup (spec, (gsize) (colon - spec));
      const char *function = colon + 1;
      g_autofree char *entry = g_strdup_printf ("%s:%s=%s", s->probe_group, function, function);
      g_autofree char *ret = g_strdup_printf ("%s:%s=%s%%return", s->probe_group, function, function);
      const char *args[] = { "-x", binary, "-a", entry, "-a", ret, NULL };
      g_autoptr (GError) why = NULL;
      if (!run_perf_probe (perf, args, &why))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("cannot place a probe on %s (perf probe: %s): check that the function exists in "
                         "the binary (nm -D or nm on it) and is not inlined"),
                       spec, why->message);
          return FALSE;
        }
      s->probes_placed = TRUE;
      g_ptr_array_add (events, g_strdup_printf ("%s:%s", s->probe_group, function));
      g_ptr_array_add (events, g_strdup_printf ("%s:%s__return", s->probe_group, function));
    }
  return TRUE;
}

void
session_remove_uprobes (Session *s, const char *perf)
{
  if (!s->probes_placed || s->probe_group == NULL || perf == NULL)
    return;
  g_autofree char *spec = g_strdup_printf ("%s:*", s->probe_group);
  const char *args[] = { "-q", "-d", spec, NULL };
  g_autoptr (GError) error = NULL;
  if (!run_perf_probe (perf, args, &error))
    fprintf (stderr, _("rsp record: warning: the uprobes %s could not be removed (%s): remove them with "
                       "perf probe -d '%s'\n"),
             s->probe_group, error->message, spec);
  s->probes_placed = FALSE;
}
