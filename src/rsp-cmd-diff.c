/* rsp-cmd-diff.c — `rsp diff A B [--pid P | --comm NAME] [--from MS --to MS]
 * [--json]`: what changed between two recordings of one workload. */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>

#include "rsp-analysis.h"
#include "rsp-cli-options.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-diff.h"
#include "rsp-heap.h"
#include "rsp-report.h"

static int
diff (const char *path_a, const char *path_b, const RspCliTarget *target, gboolean json, gboolean offline)
{
  /* the two models' arrays in huge pages */
  rsp_heap_tune (rsp_heap_file_bytes (path_a) + rsp_heap_file_bytes (path_b));
  g_autoptr (RspModel) a = rsp_cli_load_offline (path_a, offline);
  if (a == NULL)
    return 1;
  g_autoptr (RspModel) b = rsp_cli_load_offline (path_b, offline);
  if (b == NULL)
    return 1;
  gint32 pid_a = rsp_cli_pick_target (a, path_a, target->pid, target->comm, TRUE);
  if (pid_a < 0)
    return 1;
  gint32 pid_b = rsp_cli_pick_matching (a, pid_a, b, path_b, target, "diff");
  if (pid_b < 0)
    return 1;
  const RspTask *ta = rsp_model_task (a, rsp_model_find_process (a, pid_a, NULL));
  const RspTask *tb = rsp_model_task (b, rsp_model_find_process (b, pid_b, NULL));
  if (ta != NULL && tb != NULL && g_strcmp0 (ta->comm, tb->comm) != 0)
    {
      /* two different programs: nothing to match their findings by */
      g_printerr (_("rsp diff: the recordings have no process of interest in common: %s ran %s, %s ran %s; name one "
                    "that both ran with --comm\n"),
                  path_a, ta->comm != NULL ? ta->comm : "?", path_b, tb->comm != NULL ? tb->comm : "?");
      return 1;
    }
  g_autoptr (RspAnalysis) analysis_a = rsp_cli_analyse (a, path_a, pid_a, target, "diff");
  if (analysis_a == NULL)
    return 1;
  g_autoptr (RspAnalysis) analysis_b = rsp_cli_analyse (b, path_b, pid_b, target, "diff");
  if (analysis_b == NULL)
    return 1;
  g_autoptr (RspDiff) d = rsp_diff_new (analysis_a, analysis_b);
  g_autofree char *text = json ? rsp_diff_report_json (d, path_a, path_b) : rsp_diff_report_text (d, path_a, path_b);
  rsp_cli_print_report (text, json);
  return 0;
}

int
rsp_cmd_diff (int argc, char **argv)
{
  gboolean json = FALSE;
  gboolean offline = FALSE;
  RspCliTarget target;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print the comparison as JSON (its fields: docs/REPORT-JSON.md)"),
      NULL },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &offline,
      N_ ("Use only the symbols stored in the recordings, nothing from this machine"), NULL },
    { NULL },
  };
  const RspCliParser parser = {
    .command = "diff",
    .parameters = N_ ("A B - what changed between two recordings of one workload"),
    .usage = N_ ("rsp diff A.rsp B.rsp"),
    .description = N_ ("The process of interest is the command rsp record ran in each recording, or the one "
                       "--comm names in each; --pid names it in A, and B's is the process with the same command "
                       "started by the same commands in the same order (pids differ between recordings)."),
    .entries = entries,
    .target = &target,
  };
  int status;
  g_auto (GStrv) files = rsp_cli_parse_files (&parser, argc, argv, 2, &status);
  if (files == NULL)
    return status;
  status = diff (files[0], files[1], &target, json, offline);
  rsp_cli_target_clear (&target);
  return status;
}
