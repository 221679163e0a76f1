/* rsp-cmd-report.c — `rsp report FILE [--pid P | --comm NAME] [--from MS --to MS] [--json]`:
 * where the wall time of a process went, and why. */
#include <glib.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>

#include "rsp-analysis.h"
#include "rsp-cli-options.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-heap.h"
#include "rsp-report.h"

/* --requests: every request analysed, the distribution and the slow tail. */
static int
report_requests (const char *path, const RspModel *model, const char *spec, gdouble slow_above_ms, gboolean json)
{
  g_autoptr (GError) error = NULL;
  guint64 slow_above_ns = slow_above_ms > 0 ? (guint64) (slow_above_ms * 1e6) : 0;
  g_autoptr (RspRequests) requests = rsp_requests_new (model, spec, slow_above_ns, &error);
  if (requests == NULL)
    {
      g_printerr ("rsp report: %s: %s\n", path, error->message);
      return 1;
    }
  g_autofree char *text = json ? rsp_requests_report_json (requests, path) : rsp_requests_report_text (requests, path);
  rsp_cli_print_report (text, json);
  return 0;
}

/* The command once its arguments are checked: load, pick the process,
 * analyse, print. */
static int
report (const char *path, const RspCliTarget *target, gboolean json, gboolean files, const char *requests,
        gdouble slow_above_ms, gboolean offline)
{
  rsp_heap_tune (rsp_heap_file_bytes (path)); /* the model's arrays in huge pages */
  g_autoptr (RspModel) model = rsp_cli_load_offline (path, offline);
  if (model == NULL)
    return 1;

  /* a recording of rsp record --repeat is about its runs unless a process is named */
  if (requests == NULL && target->pid == 0 && target->comm == NULL && rsp_requests_model_has_runs (model))
    requests = "runs";
  if (requests != NULL)
    return report_requests (path, model, requests, slow_above_ms, json);
  if (slow_above_ms > 0)
    {
      g_printerr ("rsp report: %s\n", _("--slow-above goes with --requests"));
      return 2;
    }

  /* the process of interest, as every analysing command picks it */
  gint32 pid = rsp_cli_pick_target (model, path, target->pid, target->comm, TRUE);
  if (pid < 0)
    return 1;

  /* The JSON is for scripts: its finding sentences are English with
   * decimal points whatever the locale (RSP_DESCRIBE_PLAIN); the locale
   * itself is left alone. */
  g_autoptr (RspAnalysis) analysis = rsp_cli_analyse (model, path, pid, target, NULL);
  if (analysis == NULL)
    return 1;
  g_autofree char *text = json ? rsp_report_json (analysis, path) : rsp_report_text (analysis, path);
  if (files && !json)
    {
      g_autofree char *table = rsp_report_files_text (analysis);
      g_autofree char *both = g_strconcat (text, table, NULL);
      rsp_cli_print_report (both, json);
      return 0;
    }
  rsp_cli_print_report (text, json);
  return 0;
}

int
rsp_cmd_report (int argc, char **argv)
{
  gboolean json = FALSE;
  gboolean files = FALSE;
  char *requests = NULL;
  gdouble slow_above_ms = 0;
  gboolean offline = FALSE;
  gboolean no_cache = FALSE;
  RspCliTarget target;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print the report as JSON (its fields: docs/REPORT-JSON.md)"), NULL },
    { "files", 0, 0, G_OPTION_ARG_NONE, &files,
      N_ ("Add the time waited for the disk per file, most first (always in --json as \"files\")"), NULL },
    { "requests", 0, 0, G_OPTION_ARG_STRING, &requests,
      N_ ("Analyse many requests: 'runs' takes each run of rsp record --repeat as one (the default for such "
          "a recording), 'tcp:PORT' each exchange on a server's TCP port, 'probe:FUNCTION' each call of a "
          "function rsp record --probe watched; prints the latency distribution and what makes the slow ones "
          "slow"),
      N_ ("KIND") },
    { "slow-above", 0, 0, G_OPTION_ARG_DOUBLE, &slow_above_ms,
      N_ ("With --requests: the requests longer than MS are the slow ones (default: the slow mode of the "
          "histogram, else above the 90th percentile)"),
      N_ ("MS") },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &offline,
      N_ ("Use only the symbols stored in the recording, nothing from this machine"), NULL },
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, &no_cache,
      N_ ("Read every symbol table from its file, not from the symbol cache in ~/.cache/rsp (as RSP_NO_CACHE=1 "
          "does)"),
      NULL },
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
  /* the caches read the variable (rsp-disk-cache.c) */
  if (no_cache)
    g_setenv ("RSP_NO_CACHE", "1", TRUE);
  if (slow_above_ms < 0 || !isfinite (slow_above_ms))
    {
      g_printerr ("rsp report: %s\n", _("--slow-above wants a positive number of milliseconds"));
      status = 2;
    }
  else if (requests != NULL && (target.pid != 0 || target.comm != NULL || target.from_ms >= 0 || target.to_ms >= 0))
    {
      /* each request is its own process and stretch of time */
      g_printerr ("rsp report: %s\n", _("--requests analyses each request over its own time: it takes no --pid, "
                                        "--comm, --from or --to"));
      status = 2;
    }
  else
    status = report (path, &target, json, files, requests, slow_above_ms, offline);
  rsp_cli_target_clear (&target);
  g_free (requests);
  return status;
}
