/* rsp-cmd-report.c — `rsp report FILE [--pid P | --comm NAME] [--from MS --to MS] [--json]`:
 * where the wall time of a process went, and why. */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>

#include "rsp-analysis.h"
#include "rsp-cli-options.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-report.h"

/* The command once its arguments are checked: load, pick the process,
 * analyse, print. */
static int
report (const char *path, const RspCliTarget *target, gboolean json)
{
  g_autoptr (RspModel) model = rsp_cli_load (path);
  if (model == NULL)
    return 1;

  /* the process of interest, as every analysing command picks it */
  gint32 pid = rsp_cli_pick_target (model, path, target->pid, target->comm, TRUE);
  if (pid < 0)
    return 1;

  guint64 from, to;
  rsp_cli_target_range (target, model, &from, &to);
  /* The JSON is for scripts: its finding sentences are English with
   * decimal points whatever the locale (RSP_DESCRIBE_PLAIN); the locale
   * itself is left alone. */
  g_autoptr (GError) error = NULL;
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

int
rsp_cmd_report (int argc, char **argv)
{
  gboolean json = FALSE;
  RspCliTarget target;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print the report as JSON (its fields: docs/REPORT-JSON.md)"), NULL },
    { NULL },
  };
  const RspCliParser parser = {
    .command = "report",
    .parameters = N_ ("- where the time of a process went, and why"),
    .usage = N_ ("rsp report FILE"),
    .entries = entries,
    .target = &target,
  };
  int status;
  g_autofree char *path = rsp_cli_parse (&parser, argc, argv, &status);
  if (path == NULL)
    return status;
  status = report (path, &target, json);
  rsp_cli_target_clear (&target);
  return status;
}
