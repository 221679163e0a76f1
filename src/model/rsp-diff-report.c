/* rsp-diff-report.c — the text and JSON of `rsp diff A B`: both
 * accountings side by side with their deltas, and the changes ranked. */
#include "rsp-report.h"

#include "rsp-describe.h"
#include "rsp-report-private.h"

#include <glib/gi18n-lib.h>

#define MAX_TEXT_CHANGES 10

/* The change's sentence: the finding sentence in the recording where it
 * is larger, and its time in the other. */
char *
rsp_diff_change_describe (const RspDiff *d, const RspDiffChange *c, RspDescribeMode mode)
{
  gboolean in_b = c->delta_ns > 0;
  const RspAnalysis *side = in_b ? rsp_diff_b (d) : rsp_diff_a (d);
  RspFinding f = {
    .category = c->category,
    .task = in_b ? c->b_task : c->a_task,
    .frame = c->frame,
    .ns = in_b ? c->b_ns : c->a_ns,
  };
  g_autofree char *what = rsp_finding_describe (rsp_analysis_model (side), &f, mode);
  gdouble other_ms = ms (in_b ? c->a_ns : c->b_ns);
  if (mode == RSP_DESCRIBE_LOCAL)
    return g_strdup_printf (in_b ? _("%s in B, %.1f ms in A") : _("%s in A, %.1f ms in B"), what, other_ms);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (in_b ? "%s in B, %s ms in A" : "%s in A, %s ms in B", what,
                          g_ascii_formatd (number, sizeof number, "%.1f", other_ms));
}

static void
append_side (GString *out, const char *name, const RspAnalysis *a, const char *path)
{
  const RspModel *m = rsp_analysis_model (a);
  const RspTask *t = rsp_model_task (m, rsp_analysis_target_task (a));
  g_string_append_printf (out, _("%s: %s: %s (pid %d), %.2f ms\n"), name, path, task_comm (t), t->pid,
                          ms (rsp_analysis_wall_ns (a)));
}

char *
rsp_diff_report_text (const RspDiff *d, const char *path_a, const char *path_b)
{
  const RspAnalysis *a = rsp_diff_a (d), *b = rsp_diff_b (d);
  GString *out = g_string_new (NULL);
  append_side (out, "A", a, path_a);
  append_side (out, "B", b, path_b);

  g_string_append_printf (out, "\n%-36s %10s %10s %10s\n", _("Category"), _("A ms"), _("B ms"), _("delta ms"));
  g_string_append_printf (out, "%-36s %10.2f %10.2f %+10.2f\n", _("Wall time"), ms (rsp_analysis_wall_ns (a)),
                          ms (rsp_analysis_wall_ns (b)),
                          ms (rsp_analysis_wall_ns (b)) - ms (rsp_analysis_wall_ns (a)));
  g_string_append_printf (out, "%-36s %10.2f %10.2f %+10.2f\n", _("Total time"), ms (rsp_analysis_total_ns (a)),
                          ms (rsp_analysis_total_ns (b)),
                          ms (rsp_analysis_total_ns (b)) - ms (rsp_analysis_total_ns (a)));
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      guint64 x = rsp_analysis_category_ns (a, c), y = rsp_analysis_category_ns (b, c);
      if (x == 0 && y == 0)
        continue;
      g_string_append_printf (out, "  %-34s %10.2f %10.2f %+10.2f\n", _(rsp_category_label (c)), ms (x), ms (y),
                              ms (y) - ms (x));
    }

  g_string_append_printf (out, "\n%s\n", _("What changed most:"));
  guint n = MIN (rsp_diff_n_changes (d), MAX_TEXT_CHANGES);
  for (guint i = 0; i < n; i++)
    {
      const RspDiffChange *c = rsp_diff_change (d, i);
      g_autofree char *sentence = rsp_diff_change_describe (d, c, RSP_DESCRIBE_LOCAL);
      g_string_append_printf (out, "%3u. %+9.2f ms  %s\n", i + 1, c->delta_ns / 1e6, sentence);
    }
  if (n == 0)
    g_string_append_printf (out, "  %s\n", _("nothing: the same findings took the same time"));
  return g_string_free (out, FALSE);
}

static void
add_side_json (RspJsonWriter *b, const char *name, const RspAnalysis *a, const char *path)
{
  const RspModel *m = rsp_analysis_model (a);
  rsp_json_writer_set_member_name (b, name);
  rsp_json_writer_begin_object (b);
  rsp_json_add_recording (b, m, path);
  rsp_json_writer_set_member_name (b, "target");
  rsp_json_add_task (b, rsp_model_task (m, rsp_analysis_target_task (a)), NULL, FALSE);
  rsp_json_writer_end_object (b);
  rsp_json_member_double (b, "wall_ms", ms (rsp_analysis_wall_ns (a)));
  rsp_json_member_double (b, "total_ms", ms (rsp_analysis_total_ns (a)));
  rsp_json_writer_end_object (b);
}

char *
rsp_diff_report_json (const RspDiff *d, const char *path_a, const char *path_b)
{
  const RspAnalysis *a = rsp_diff_a (d), *b = rsp_diff_b (d);
  g_autoptr (RspJsonWriter) jb = rsp_json_writer_new ();
  rsp_json_writer_begin_object (jb);
  add_side_json (jb, "a", a, path_a);
  add_side_json (jb, "b", b, path_b);
  rsp_json_member_double (jb, "wall_delta_ms", ms (rsp_analysis_wall_ns (b)) - ms (rsp_analysis_wall_ns (a)));

  rsp_json_writer_set_member_name (jb, "categories");
  rsp_json_writer_begin_array (jb);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      gdouble x = ms (rsp_analysis_category_ns (a, c)), y = ms (rsp_analysis_category_ns (b, c));
      rsp_json_writer_begin_object (jb);
      rsp_json_member_string (jb, "category", rsp_category_id (c));
      rsp_json_member_double (jb, "a_ms", x);
      rsp_json_member_double (jb, "b_ms", y);
      rsp_json_member_double (jb, "delta_ms", y - x);
      rsp_json_writer_end_object (jb);
    }
  rsp_json_writer_end_array (jb);

  rsp_json_writer_set_member_name (jb, "changes");
  rsp_json_writer_begin_array (jb);
  for (guint i = 0; i < rsp_diff_n_changes (d); i++)
    {
      const RspDiffChange *c = rsp_diff_change (d, i);
      rsp_json_writer_begin_object (jb);
      rsp_json_member_int (jb, "rank", i + 1);
      rsp_json_member_string (jb, "category", rsp_category_id (c->category));
      rsp_json_member_double (jb, "delta_ms", c->delta_ns / 1e6);
      rsp_json_member_double (jb, "a_ms", ms (c->a_ns));
      rsp_json_member_double (jb, "b_ms", ms (c->b_ns));
      rsp_json_member_string (jb, "comm", c->comm);
      rsp_json_member_string (jb, "frame", c->frame);
      g_autofree char *sentence = rsp_diff_change_describe (d, c, RSP_DESCRIBE_PLAIN);
      rsp_json_member_string (jb, "summary", sentence);
      rsp_json_writer_end_object (jb);
    }
  rsp_json_writer_end_array (jb);
  rsp_json_writer_end_object (jb);

  return rsp_json_to_text (jb);
}
