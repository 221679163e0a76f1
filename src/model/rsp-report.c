/* rsp-report.c — text, JSON and CSV reports of an analysis. */
#include "rsp-report.h"

#include "rsp-describe.h"
#include "rsp-report-private.h"

#include <glib/gi18n-lib.h>
#include "rsp-json.h"
#include <string.h>


/* ------------------------------------------------------------------ text */

static guint
label_width (const char *label)
{
  return (guint) g_utf8_strlen (label, -1);
}

/* INDENT and LABEL, padded with spaces to WIDTH characters (like
 * printf's "%-*s", but counting characters rather than bytes). */
static void
append_label (GString *out, const char *indent, const char *label, guint width)
{
  g_string_append (out, indent);
  g_string_append (out, label);
  for (guint n = label_width (indent) + label_width (label); n < width; n++)
    g_string_append_c (out, ' ');
}

char *
rsp_report_text (const RspAnalysis *a, const char *path)
{
  const RspModel *m = rsp_analysis_model (a);
  GString *out = g_string_new (NULL);
  const RspTask *target = rsp_model_task (m, rsp_analysis_target_task (a));
  guint64 total = rsp_analysis_total_ns (a);

  g_string_append_printf (out, _("%s: %s (pid %d), %.1f ms of %.1f ms recorded\n\n"), path, task_comm (target),
                          target->pid, ms (rsp_analysis_wall_ns (a)),
                          ms (rsp_model_end_time (m) - rsp_model_start_time (m)));
  /* The label column: 34 characters, wider when a translation needs it
   * (counted in characters, not bytes, for non-ASCII labels). */
  guint width = 34;
  const char *labels[] = { _("Category"), _("Wall time"), _("Total time"), _("Total accounted"),
                           _("Unaccounted"), _("Percent accounted") };
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    width = MAX (width, label_width (labels[i]) + 1);
  for (guint c = 0; c < RSP_CAT_N; c++)
    width = MAX (width, 2 + label_width (_(rsp_category_label (c))) + 1);

  append_label (out, "", _("Category"), width);
  g_string_append_printf (out, " %10s %8s\n", _("ms"), "%");
  append_label (out, "", _("Wall time"), width);
  g_string_append_printf (out, " %10.2f\n", ms (rsp_analysis_wall_ns (a)));
  append_label (out, "", _("Total time"), width);
  g_string_append_printf (out, " %10.2f\n", ms (total));
  if (total > rsp_analysis_wall_ns (a))
    g_string_append_printf (out, "%s\n",
                            _("  (threads and control paths that ran side by side each count in full: more than "
                              "the wall time)"));
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      if (c == RSP_CAT_UNACCOUNTED)
        continue;
      guint64 ns = rsp_analysis_category_ns (a, c);
      append_label (out, "  ", _(rsp_category_label (c)), width);
      g_string_append_printf (out, " %10.2f %7.1f%%\n", ms (ns), total > 0 ? 100.0 * ns / total : 0.0);
    }
  append_label (out, "", _("Total accounted"), width);
  g_string_append_printf (out, " %10.2f\n", ms (rsp_analysis_accounted_ns (a)));
  append_label (out, "", _("Unaccounted"), width);
  g_string_append_printf (out, " %10.2f\n", ms (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED)));
  append_label (out, "", _("Percent accounted"), width);
  g_string_append_printf (out, " %9.1f%%\n", rsp_analysis_accounted_percent (a));
  guint64 inferred = 0;
  for (guint c = 0; c < RSP_CAT_N; c++)
    inferred += rsp_analysis_inferred_ns (a, c);
  if (inferred > 0)
    g_string_append_printf (out,
                            _("(%.2f ms of it inferred: no wake-up was recorded, so the sleeper's own stack "
                              "decided; record with rsp record to get every interrupt-time event)\n"),
                            ms (inferred));

  g_string_append_printf (out, "\n%s\n", _("Control paths:"));
  for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
    {
      const RspControlPath *path_ = rsp_analysis_path (a, p);
      g_string_append_printf (out, _("  #%u  %.2f–%.2f ms, %.2f ms:"), path_->id, rel_ms (m, path_->start),
                              rel_ms (m, path_->end), ms (path_->total));
      for (guint k = 0; k < path_->task_time->len && k < 6; k++)
        {
          const RspPathTask *pt = &g_array_index (path_->task_time, RspPathTask, k);
          const RspTask *t = rsp_model_task (m, pt->task);
          g_string_append_printf (out, _("%s %s[%d] %.2f ms"), k > 0 ? "," : "", task_comm (t), t->tid, ms (pt->ns));
        }
      if (path_->task_time->len > 6)
        g_string_append_printf (out, _(", and %u more"), path_->task_time->len - 6);
      g_string_append_c (out, '\n');
    }

  g_string_append_printf (out, "\n%s\n", _("Why it took so long:"));
  guint n = MIN (rsp_analysis_n_findings (a), RSP_REPORT_MAX_FINDINGS);
  for (guint i = 0; i < n; i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      g_autofree char *sentence = rsp_finding_describe (m, f, RSP_DESCRIBE_LOCAL);
      g_string_append_printf (out, "%3u. %5.1f%%  %s", i + 1, total > 0 ? 100.0 * f->ns / total : 0.0, sentence);
      guint instances;
      rsp_analysis_finding_stretches (a, i, &instances);
      if (instances > 1)
        g_string_append_printf (out, ngettext (" (%u time, the longest %.2f ms at %.2f ms)",
                                               " (%u times, the longest %.2f ms at %.2f ms)", instances),
                                instances, ms (f->best_end - f->best_start), rel_ms (m, f->best_start));
      g_string_append_c (out, '\n');
      if (f->n_path > 1)
        {
          g_string_append_printf (out, "              %s ", _("via"));
          for (guint k = 0; k < f->n_path; k++)
            {
              const RspFindingStep *step = &f->path[k];
              g_string_append_printf (out, "%s%s", k > 0 ? " → " : "", task_comm (rsp_model_task (m, step->task)));
              if (step->frame != NULL)
                g_string_append_printf (out, " (%s%s%s)", step->frame, step->endpoint != NULL ? ", " : "",
                                        step->endpoint != NULL ? step->endpoint : "");
            }
          g_string_append_c (out, '\n');
        }
    }

  guint64 anomalies = 0;
  for (guint k = 0; k < RSP_ANOMALY_N; k++)
    anomalies += rsp_model_anomaly_count (m, k);
  if (anomalies > 0)
    {
      g_string_append_printf (out, "\n%s", _("Inferred from missing events:"));
      for (guint k = 0; k < RSP_ANOMALY_N; k++)
        if (rsp_model_anomaly_count (m, k) > 0)
          g_string_append_printf (out, " %s %" G_GUINT64_FORMAT, rsp_anomaly_id (k), rsp_model_anomaly_count (m, k));
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ JSON */

void
rsp_json_member_double (RspJsonWriter *b, const char *name, gdouble v)
{
  rsp_json_writer_set_member_name (b, name);
  /* three decimals: stable output for scripts and tests */
  rsp_json_writer_add_double_value (b, ((gint64) (v * 1000.0 + (v >= 0 ? 0.5 : -0.5))) / 1000.0);
}

void
rsp_json_member_int (RspJsonWriter *b, const char *name, gint64 v)
{
  rsp_json_writer_set_member_name (b, name);
  rsp_json_writer_add_int_value (b, v);
}

void
rsp_json_member_string (RspJsonWriter *b, const char *name, const char *v)
{
  rsp_json_writer_set_member_name (b, name);
  if (v != NULL)
    rsp_json_writer_add_string_value (b, v);
  else
    rsp_json_writer_add_null_value (b);
}

void
rsp_json_add_task (RspJsonWriter *b, const RspTask *t, const char *frame, gboolean with_frame)
{
  rsp_json_writer_begin_object (b);
  rsp_json_member_int (b, "pid", t->pid);
  rsp_json_member_int (b, "tid", t->tid);
  rsp_json_member_string (b, "comm", t->comm);
  if (with_frame)
    rsp_json_member_string (b, "frame", frame);
}

static const char *
step_label (const RspFindingStep *step)
{
  return step->endpoint;
}

char *
rsp_json_to_text (RspJsonWriter *b)
{
  return rsp_json_writer_finish (b, NULL);
}

void
rsp_json_add_recording (RspJsonWriter *b, const RspModel *m, const char *path)
{
  const RspRecordingMeta *meta = rsp_model_meta (m);
  rsp_json_writer_set_member_name (b, "recording");
  rsp_json_writer_begin_object (b);
  rsp_json_member_string (b, "path", path);
  rsp_json_member_double (b, "duration_ms", ms (rsp_model_end_time (m) - rsp_model_start_time (m)));
  rsp_json_member_int (b, "events", (gint64) rsp_model_n_events (m));
  rsp_json_member_int (b, "lost_events", (gint64) rsp_model_lost_events (m));
  rsp_json_writer_set_member_name (b, "anomalies");
  rsp_json_writer_begin_object (b);
  for (guint k = 0; k < RSP_ANOMALY_N; k++)
    if (rsp_model_anomaly_count (m, k) > 0)
      rsp_json_member_int (b, rsp_anomaly_id (k), (gint64) rsp_model_anomaly_count (m, k));
  rsp_json_writer_end_object (b);
  rsp_json_writer_set_member_name (b, "command");
  if (meta != NULL && meta->command != NULL)
    {
      rsp_json_writer_begin_array (b);
      for (char **arg = meta->command; *arg != NULL; arg++)
        rsp_json_writer_add_string_value (b, *arg);
      rsp_json_writer_end_array (b);
    }
  else
    rsp_json_writer_add_null_value (b);
  rsp_json_writer_end_object (b);
}

char *
rsp_report_json (const RspAnalysis *a, const char *path)
{
  const RspModel *m = rsp_analysis_model (a);
  guint64 total = rsp_analysis_total_ns (a);
  g_autoptr (RspJsonWriter) b = rsp_json_writer_new ();

  rsp_json_writer_begin_object (b);
  rsp_json_add_recording (b, m, path);

  rsp_json_writer_set_member_name (b, "target");
  rsp_json_add_task (b, rsp_model_task (m, rsp_analysis_target_task (a)), NULL, FALSE);
  rsp_json_writer_end_object (b);

  rsp_json_writer_set_member_name (b, "accounting");
  rsp_json_writer_begin_object (b);
  rsp_json_member_double (b, "wall_ms", ms (rsp_analysis_wall_ns (a)));
  rsp_json_member_double (b, "total_ms", ms (total));
  rsp_json_writer_set_member_name (b, "categories");
  rsp_json_writer_begin_array (b);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      rsp_json_writer_begin_object (b);
      rsp_json_member_string (b, "id", rsp_category_id (c));
      rsp_json_member_string (b, "label", rsp_category_label (c));
      rsp_json_member_double (b, "ms", ms (rsp_analysis_category_ns (a, c)));
      rsp_json_member_double (b, "inferred_ms", ms (rsp_analysis_inferred_ns (a, c)));
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  rsp_json_member_double (b, "accounted_ms", ms (rsp_analysis_accounted_ns (a)));
  rsp_json_member_double (b, "unaccounted_ms", ms (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED)));
  rsp_json_member_double (b, "accounted_percent", rsp_analysis_accounted_percent (a));
  rsp_json_writer_end_object (b);

  rsp_json_writer_set_member_name (b, "control_paths");
  rsp_json_writer_begin_array (b);
  for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
    {
      const RspControlPath *cp = rsp_analysis_path (a, p);
      rsp_json_writer_begin_object (b);
      rsp_json_member_int (b, "id", cp->id);
      rsp_json_member_double (b, "start_ms", rel_ms (m, cp->start));
      rsp_json_member_double (b, "end_ms", rel_ms (m, cp->end));
      rsp_json_writer_set_member_name (b, "tasks");
      rsp_json_writer_begin_array (b);
      for (guint k = 0; k < cp->task_time->len; k++)
        {
          const RspPathTask *pt = &g_array_index (cp->task_time, RspPathTask, k);
          rsp_json_add_task (b, rsp_model_task (m, pt->task), NULL, FALSE);
          rsp_json_member_double (b, "ms", ms (pt->ns));
          rsp_json_writer_end_object (b);
        }
      rsp_json_writer_end_array (b);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);

  rsp_json_writer_set_member_name (b, "findings");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      if (i >= RSP_REPORT_MAX_FINDINGS * 5 && f->ns < total / 1000)
        break; /* the long tail below 0.1% adds nothing */
      rsp_json_writer_begin_object (b);
      rsp_json_member_int (b, "rank", i + 1);
      rsp_json_member_string (b, "category", rsp_category_id (f->category));
      rsp_json_member_double (b, "ms", ms (f->ns));
      rsp_json_member_double (b, "percent", total > 0 ? 100.0 * f->ns / total : 0.0);
      guint instances;
      rsp_analysis_finding_stretches (a, i, &instances);
      rsp_json_member_int (b, "instances", instances);
      rsp_json_member_double (b, "largest_start_ms", rel_ms (m, f->best_start));
      rsp_json_member_double (b, "largest_ms", ms (f->best_end - f->best_start));
      rsp_json_writer_set_member_name (b, "task");
      rsp_json_add_task (b, rsp_model_task (m, f->task), NULL, FALSE);
      rsp_json_writer_end_object (b);
      rsp_json_member_string (b, "frame", f->frame);
      rsp_json_member_string (b, "file", f->file);
      rsp_json_member_string (b, "endpoint", f->endpoint);
      rsp_json_writer_set_member_name (b, "path");
      rsp_json_writer_begin_array (b);
      for (guint k = 0; k < f->n_path; k++)
        {
          const RspFindingStep *step = &f->path[k];
          rsp_json_add_task (b, rsp_model_task (m, step->task), step->frame, TRUE);
          if (step_label (step) != NULL)
            rsp_json_member_string (b, "endpoint", step_label (step));
          rsp_json_writer_end_object (b);
        }
      rsp_json_writer_end_array (b);
      g_autofree char *sentence = rsp_finding_describe (rsp_analysis_model (a), f, RSP_DESCRIBE_PLAIN);
      rsp_json_member_string (b, "summary", sentence);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);

  /* the files behind the disk waits (rsp report --files) */
  rsp_json_writer_set_member_name (b, "files");
  rsp_json_writer_begin_array (b);
  g_autoptr (GArray) files = rsp_analysis_file_totals (a);
  for (guint i = 0; i < files->len; i++)
    {
      const RspFileTotal *t = &g_array_index (files, RspFileTotal, i);
      rsp_json_writer_begin_object (b);
      rsp_json_member_string (b, "file", t->file);
      rsp_json_member_double (b, "ms", ms (t->ns));
      rsp_json_member_double (b, "percent", total > 0 ? 100.0 * t->ns / total : 0.0);
      rsp_json_member_double (b, "queue_ms", ms (t->queue_ns));
      rsp_json_member_double (b, "inferred_ms", ms (t->inferred_ns));
      rsp_json_member_int (b, "waits", t->waits);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  rsp_json_writer_end_object (b);

  return rsp_json_to_text (b);
}

char *
rsp_report_files_text (const RspAnalysis *a)
{
  guint64 total = rsp_analysis_total_ns (a);
  g_autoptr (GArray) files = rsp_analysis_file_totals (a);
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "\n%s\n", _("Time waited for the disk, per file:"));
  if (files->len == 0)
    {
      g_string_append_printf (out, "  %s\n", _("(no disk waits)"));
      return g_string_free (out, FALSE);
    }
  g_string_append_printf (out, "  %10s %7s %6s  %s\n", _("ms"), "%", _("waits"), _("file"));
  guint64 named = 0, all = 0;
  for (guint i = 0; i < files->len; i++)
    {
      const RspFileTotal *t = &g_array_index (files, RspFileTotal, i);
      all += t->ns;
      if (t->file != NULL)
        named += t->ns;
      g_string_append_printf (out, "  %10.2f %6.1f%% %6u  %s\n", ms (t->ns), total > 0 ? 100.0 * t->ns / total : 0.0,
                              t->waits, t->file != NULL ? t->file : _("(file not known)"));
    }
  g_string_append_printf (out, _("  %.1f%% of the disk wait time has its file named\n"),
                          all > 0 ? 100.0 * named / all : 0.0);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------- csv */

/* One field: quoted when it holds a separator, a quote or a line break. */
static void
csv_field (GString *out, const char *text, gboolean last)
{
  if (text == NULL)
    text = "";
  if (strpbrk (text, ",\"\r\n") != NULL)
    {
      g_string_append_c (out, '"');
      for (const char *c = text; *c != '\0'; c++)
        {
          if (*c == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *c);
        }
      g_string_append_c (out, '"');
    }
  else
    g_string_append (out, text);
  g_string_append (out, last ? "\r\n" : ",");
}

static void
csv_number (GString *out, gdouble value, gboolean last)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  csv_field (out, g_ascii_formatd (buf, sizeof buf, "%.3f", value), last);
}

static void
csv_int (GString *out, gint64 value, gboolean last)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  csv_field (out, buf, last);
}

/* A row of the table: category CATEGORY (-1 for the wall, total and
 * accounted rows), its numbers, and its ms on each control path (the
 * total's too; empty cells for wall and accounted). */
static void
csv_table_row (GString *out, const RspAnalysis *a, const char *id, const char *label, guint64 ns, gint category)
{
  guint64 total = rsp_analysis_total_ns (a);
  csv_field (out, id, FALSE);
  csv_field (out, label, FALSE);
  csv_number (out, ms (ns), FALSE);
  csv_number (out, total > 0 ? 100.0 * ns / total : 0.0, FALSE);
  if (category >= 0)
    csv_number (out, ms (rsp_analysis_inferred_ns (a, (RspCategory) category)), FALSE);
  else
    csv_field (out, "", FALSE);
  guint n_paths = rsp_analysis_n_paths (a);
  for (guint p = 0; p < n_paths; p++)
    {
      const RspControlPath *cp = rsp_analysis_path (a, p);
      gboolean last = p + 1 == n_paths;
      if (category >= 0)
        csv_number (out, ms (cp->category_ns[category]), last);
      else if (strcmp (id, "total") == 0)
        csv_number (out, ms (cp->total), last);
      else
        csv_field (out, "", last);
    }
  if (n_paths == 0)
    g_string_append (out, "\r\n");
}

char *
rsp_report_csv (const RspAnalysis *a)
{
  const RspModel *m = rsp_analysis_model (a);
  GString *out = g_string_new (NULL);
  guint64 total = rsp_analysis_total_ns (a);
  guint n_paths = rsp_analysis_n_paths (a);

  /* the accounting table */
  csv_field (out, "category", FALSE);
  csv_field (out, "label", FALSE);
  csv_field (out, "ms", FALSE);
  csv_field (out, "percent", FALSE);
  csv_field (out, "inferred_ms", n_paths == 0);
  for (guint p = 0; p < n_paths; p++)
    {
      g_autofree char *name = g_strdup_printf ("path_%u_ms", rsp_analysis_path (a, p)->id);
      csv_field (out, name, p + 1 == n_paths);
    }
  csv_table_row (out, a, "wall", _("Wall time"), rsp_analysis_wall_ns (a), -1);
  csv_table_row (out, a, "total", _("Total time"), total, -1);
  for (guint c = 0; c < RSP_CAT_N; c++)
    csv_table_row (out, a, rsp_category_id (c), _(rsp_category_label (c)), rsp_analysis_category_ns (a, c), (gint) c);
  csv_table_row (out, a, "accounted", _("Total accounted"), rsp_analysis_accounted_ns (a), -1);
  g_string_append (out, "\r\n");

  /* the findings */
  static const char *const header[] = { "rank", "category", "ms", "percent", "instances", "largest_start_ms",
                                        "largest_ms", "comm", "pid", "tid", "frame", "file", "endpoint", "summary" };
  for (gsize i = 0; i < G_N_ELEMENTS (header); i++)
    csv_field (out, header[i], i + 1 == G_N_ELEMENTS (header));
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      const RspTask *task = rsp_model_task (m, f->task);
      guint instances;
      rsp_analysis_finding_stretches (a, i, &instances);
      csv_int (out, i + 1, FALSE);
      csv_field (out, rsp_category_id (f->category), FALSE);
      csv_number (out, ms (f->ns), FALSE);
      csv_number (out, total > 0 ? 100.0 * f->ns / total : 0.0, FALSE);
      csv_int (out, instances, FALSE);
      csv_number (out, rel_ms (m, f->best_start), FALSE);
      csv_number (out, ms (f->best_end - f->best_start), FALSE);
      csv_field (out, task_comm (task), FALSE);
      csv_int (out, task->pid, FALSE);
      csv_int (out, task->tid, FALSE);
      csv_field (out, f->frame, FALSE);
      csv_field (out, f->file, FALSE);
      csv_field (out, f->endpoint, FALSE);
      g_autofree char *sentence = rsp_finding_describe (m, f, RSP_DESCRIBE_LOCAL);
      csv_field (out, sentence, TRUE);
    }
  return g_string_free (out, FALSE);
}
