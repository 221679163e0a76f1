/* rsp-cli-target.c — loading a recording and picking its process of
 * interest for rsp report and rsp render. */
#include "rsp-cli-target.h"

#include "rsp-diff.h"

#include <stdio.h>

#include <glib/gi18n.h>

RspModel *
rsp_cli_load (const char *path)
{
  return rsp_cli_load_offline (path, FALSE);
}

RspModel *
rsp_cli_load_offline (const char *path, gboolean offline)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  RspModel *model = rsp_model_load_offline (path, offline, NULL, NULL, warnings, &error);
  for (guint i = 0; i < warnings->len; i++)
    g_printerr (_("rsp: warning: %s: %s\n"), path, (const char *) g_ptr_array_index (warnings, i));
  if (model == NULL)
    g_printerr ("rsp: %s: %s\n", path, error->message);
  return model;
}

gint32
rsp_cli_pick_matching (const RspModel *a, gint32 pid_a, const RspModel *b, const char *path_b,
                       const RspCliTarget *target, const char *command)
{
  if (target->pid <= 0)
    return rsp_cli_pick_target (b, path_b, 0, target->comm, TRUE);
  gint32 pid = rsp_diff_match_process (a, pid_a, b);
  if (pid > 0)
    return pid;
  g_printerr (_("rsp %s: %s has no process that matches process %d of the first recording (the same command, "
                "started by the same commands, in the same order): name it with --comm\n"),
              command, path_b, pid_a);
  rsp_cli_print_candidates (b);
  return -1;
}

RspAnalysis *
rsp_cli_analyse (const RspModel *model, const char *path, gint32 pid, const RspCliTarget *target,
                 const char *command)
{
  guint64 from, to;
  rsp_cli_target_range (target, model, &from, &to);
  g_autoptr (GError) error = NULL;
  RspAnalysis *analysis = rsp_analysis_new (model, pid, from, to, &error);
  if (analysis == NULL)
    {
      if (command != NULL)
        g_printerr ("rsp %s: %s: %s\n", command, path, error->message);
      else
        g_printerr ("rsp: %s: %s\n", path, error->message);
      rsp_cli_print_candidates (model);
    }
  return analysis;
}

void
rsp_cli_print_report (const char *text, gboolean json)
{
  fputs (text, stdout);
  if (json)
    fputc ('\n', stdout);
}

void
rsp_cli_print_candidates (const RspModel *model)
{
  g_autoptr (GArray) busiest = rsp_model_busiest_processes (model, 8);
  g_printerr (_("rsp: the busiest processes in this recording are:\n"));
  for (guint i = 0; i < busiest->len; i++)
    {
      const RspProcessSummary *p = &g_array_index (busiest, RspProcessSummary, i);
      g_printerr (_("    --pid %-8d %-16s %8.1f ms on CPU\n"), p->pid, p->comm != NULL ? p->comm : "?",
                  p->cpu_ns / 1e6);
    }
}

gint32
rsp_cli_pick_target (const RspModel *model, const char *path, gint32 pid, const char *comm, gboolean required)
{
  if (pid > 0)
    return pid;
  if (comm != NULL)
    {
      RspIdx t = rsp_model_find_process (model, 0, comm);
      if (t == RSP_NONE)
        {
          g_printerr (_("rsp: no process named '%s' ran in %s\n"), comm, path);
          rsp_cli_print_candidates (model);
          return -1;
        }
      return rsp_model_task (model, t)->pid;
    }
  const RspRecordingMeta *meta = rsp_model_meta (model);
  if (meta != NULL && meta->target_pid > 0)
    return meta->target_pid;
  if (required)
    {
      g_printerr (_("rsp: %s has no target command (a plain perf.data or a whole-system recording): "
                    "name the process of interest with --pid or --comm\n"),
                  path);
      rsp_cli_print_candidates (model);
      return -1;
    }
  return 0;
}
