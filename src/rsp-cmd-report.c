/* rsp-cmd-report.c — `rsp report FILE [--pid P | --comm NAME] [--from MS --to MS] [--json]`:
 * where the wall time of a process went, and why. */
#include <glib.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>

#include "rsp-analysis.h"
#include "rsp-commands.h"
#include "rsp-report.h"

static void
print_candidates (const RspModel *m)
{
  g_autoptr (GArray) busiest = rsp_model_busiest_processes (m, 8);
  g_printerr (_("rsp: the busiest processes in this recording are:\n"));
  for (guint i = 0; i < busiest->len; i++)
    {
      const RspProcessSummary *p = &g_array_index (busiest, RspProcessSummary, i);
      g_printerr (_("    --pid %-8d %-16s %8.1f ms on CPU\n"), p->pid, p->comm != NULL ? p->comm : "?", p->cpu_ns / 1e6);
    }
}

int
rsp_cmd_report (int argc, char **argv)
{
  gint pid = 0;
  g_autofree char *comm = NULL;
  gdouble from_ms = -1, to_ms = -1;
  gboolean json = FALSE;
  g_auto (GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "pid", 'p', 0, G_OPTION_ARG_INT, &pid, N_ ("The process of interest (default: the command rsp record ran)"), N_ ("PID") },
    { "comm", 'c', 0, G_OPTION_ARG_STRING, &comm, N_ ("The process of interest by name (the busiest one of that name)"), N_ ("NAME") },
    { "from", 0, 0, G_OPTION_ARG_DOUBLE, &from_ms, N_ ("Start of the range, ms from the recording's start"), N_ ("MS") },
    { "to", 0, 0, G_OPTION_ARG_DOUBLE, &to_ms, N_ ("End of the range, ms from the recording's start"), N_ ("MS") },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print the report as JSON (schema in DESIGN.md)"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_ ("FILE") },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (N_ ("FILE - where the time of a process went, and why"));
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("rsp report: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      g_printerr (_("rsp report: give exactly one recording (rsp report FILE)\n"));
      return 2;
    }
  const char *path = files[0];

  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (RspModel) model = rsp_model_load (path, NULL, NULL, NULL, warnings, &error);
  for (guint i = 0; i < warnings->len; i++)
    g_printerr (_("rsp: warning: %s: %s\n"), path, (const char *) g_ptr_array_index (warnings, i));
  if (model == NULL)
    {
      g_printerr ("rsp: %s: %s\n", path, error->message);
      return 1;
    }

  const RspRecordingMeta *meta = rsp_model_meta (model);
  if (pid <= 0 && comm != NULL)
    {
      RspIdx t = rsp_model_find_process (model, 0, comm);
      if (t == RSP_NONE)
        {
          g_printerr (_("rsp: no process named '%s' ran in %s\n"), comm, path);
          print_candidates (model);
          return 1;
        }
      pid = rsp_model_task (model, t)->pid;
    }
  if (pid <= 0 && meta != NULL && meta->target_pid > 0)
    pid = meta->target_pid;
  if (pid <= 0)
    {
      g_printerr (_("rsp: %s has no target command (a plain perf.data or a whole-system recording): "
                    "name the process of interest with --pid or --comm\n"),
                  path);
      print_candidates (model);
      return 1;
    }

  guint64 origin = rsp_model_start_time (model);
  guint64 from = from_ms >= 0 ? origin + (guint64) (from_ms * 1e6) : 0;
  guint64 to = to_ms >= 0 ? origin + (guint64) (to_ms * 1e6) : G_MAXUINT64;
  /* The JSON is for scripts: its finding summaries (made through gettext
   * and printf) stay English, with decimal points, whatever the locale. */
  if (json)
    {
      setlocale (LC_MESSAGES, "C");
      setlocale (LC_NUMERIC, "C");
    }
  g_autoptr (RspAnalysis) analysis = rsp_analysis_new (model, pid, from, to, &error);
  if (analysis == NULL)
    {
      g_printerr ("rsp: %s: %s\n", path, error->message);
      print_candidates (model);
      return 1;
    }
  g_autofree char *text = json ? rsp_report_json (analysis, path) : rsp_report_text (analysis, path);
  fputs (text, stdout);
  if (json)
    fputc ('\n', stdout);
  return 0;
}
