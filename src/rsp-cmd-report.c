/* rsp-cmd-report.c — `rsp report FILE [--pid P | --comm NAME] [--from MS --to MS] [--json]`:
 * where the wall time of a process went, and why. */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>

#include "rsp-analysis.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-report.h"

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
  g_autoptr (GOptionContext) ctx = g_option_context_new (N_ ("- where the time of a process went, and why"));
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

  g_autoptr (RspModel) model = rsp_cli_load (path);
  if (model == NULL)
    return 1;

  /* the process of interest, as every analysing command picks it */
  pid = rsp_cli_pick_target (model, path, pid, comm, TRUE);
  if (pid < 0)
    return 1;

  guint64 origin = rsp_model_start_time (model);
  guint64 from = from_ms >= 0 ? origin + (guint64) (from_ms * 1e6) : 0;
  guint64 to = to_ms >= 0 ? origin + (guint64) (to_ms * 1e6) : G_MAXUINT64;
  /* The JSON is for scripts: its finding sentences are English with
   * decimal points whatever the locale (RSP_DESCRIBE_PLAIN); the locale
   * itself is left alone. */
  g_autoptr (RspAnalysis) analysis = rsp_analysis_new (model, pid, from, to, &error);
  if (analysis == NULL)
    {
      g_printerr ("rsp: %s: %s\n", path, error->message);
      rsp_cli_print_candidates (model);
      return 1;
    }
  g_autofree char *text = json ? rsp_report_json (analysis, path) : rsp_report_text (analysis, path);
  fputs (text, stdout);
  if (json)
    fputc ('\n', stdout);
  return 0;
}
