/* rsp-analysis.c — one analysis of a process of interest over a range:
 * built here from its parts (control paths, accounting, findings; see
 * rsp-analysis-private.h), freed, and queried. */
#include "rsp-analysis.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "rsp-analysis-private.h"

/* ------------------------------------------------------------------ names */

static const char *const category_ids[RSP_CAT_N] = {
  "cpu_sampled", "cpu_unsampled", "disk_io", "io_queue", "network", "scheduler", "preempted",
  "hardware", "timeout", "sleep", "kernel_misc", "other_path", "unaccounted",
};

/* Translatable (the GUI shows them through gettext); the model itself
 * prints them untranslated, as the JSON schema fixes them. */
static const char *const category_labels[RSP_CAT_N] = {
  N_ ("In understood functions"),
  N_ ("Running but not sampled"),
  N_ ("In blocking disk I/O"),
  N_ ("I/O queue overhead"),
  N_ ("Waiting for the network"),
  N_ ("Scheduler overhead"),
  N_ ("Involuntary sleeps"),
  N_ ("Waits \"for\" hardware"),
  N_ ("Waits that timed out"),
  N_ ("Deliberate sleeps"),
  N_ ("Miscellaneous kernel blocks"),
  N_ ("Waiting on other path"),
  N_ ("Unaccounted"),
};

const char *
rsp_category_id (RspCategory cat)
{
  return cat < RSP_CAT_N ? category_ids[cat] : "unknown";
}

const char *
rsp_category_label (RspCategory cat)
{
  return cat < RSP_CAT_N ? category_labels[cat] : "Unknown";
}

static gint
compare_path_tasks (gconstpointer pa, gconstpointer pb)
{
  const RspPathTask *a = pa, *b = pb;
  return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : (gint) a->task - (gint) b->task;
}

/* ------------------------------------------------------------------ build */

G_DEFINE_QUARK (rsp-analysis-error-quark, rsp_analysis_error)

RspAnalysis *
rsp_analysis_new (const RspModel *model, gint32 pid, guint64 from, guint64 to, GError **error)
{
  return rsp_analysis_new_for_thread (model, pid, 0, from, to, error);
}

RspAnalysis *
rsp_analysis_new_for_thread (const RspModel *model, gint32 pid, gint32 tid, guint64 from, guint64 to, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  RspAnalysis *a = g_new0 (RspAnalysis, 1);
  a->m = rsp_model_ref (model);
  a->pid = pid;
  a->tid = tid;
  a->segments = g_array_new (FALSE, TRUE, sizeof (RspSegment));
  a->paths = g_array_new (FALSE, TRUE, sizeof (RspControlPath));
  a->path_of_run = g_hash_table_new (g_direct_hash, g_direct_equal);
  a->findings = g_array_new (FALSE, TRUE, sizeof (RspFinding));
  a->stretches = g_array_new (FALSE, FALSE, sizeof (RspStretch));
  a->finding_best = g_array_new (FALSE, TRUE, sizeof (guint64));
  a->finding_leaf = g_array_new (FALSE, TRUE, sizeof (FindingLeaf));
  a->path_task_ns = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  analysis_build_indexes (a);

  /* The command rsp record ran starts at its exec: before it, the forked
   * child is rsp record's own, waiting for perf to be enabled. */
  const RspRecordingMeta *meta = rsp_model_meta (model);
  gboolean recorded_command = meta != NULL && meta->target_pid == pid;
  for (guint i = 0; meta != NULL && i < meta->runs->len && !recorded_command; i++)
    recorded_command = g_array_index (meta->runs, RspRecordedRun, i).pid == pid; /* --repeat */
  if (recorded_command)
    for (guint i = 0; i < model->tasks->len; i++)
      {
        const RspTask *t = &g_array_index (model->tasks, RspTask, i);
        if (t->pid == pid && t->tid == pid && t->generation == 1)
          {
            from = MAX (from, t->start);
            break;
          }
      }

  /* the process's tasks and their span */
  g_autoptr (GArray) targets = g_array_new (FALSE, FALSE, sizeof (RspIdx));
  gboolean named = FALSE; /* the main thread (or the thread asked for) is one of them */
  guint64 t0 = G_MAXUINT64, t1 = 0;
  for (guint i = 0; i < model->tasks->len; i++)
    {
      const RspTask *t = &g_array_index (model->tasks, RspTask, i);
      if (t->pid != pid || t->is_idle || t->n_runs == 0 || t->end <= from || (tid > 0 && t->tid != tid))
        continue;
      RspIdx idx = i;
      g_array_append_val (targets, idx);
      t0 = MIN (t0, t->start);
      t1 = MAX (t1, t->end);
      if (t->tid == pid || t->tid == tid)
        {
          a->target_task = i;
          named = TRUE;
        }
    }
  /* a process whose main thread is not among them (it ended before FROM,
   * or never ran in the recording): its first thread that is */
  if (!named && targets->len > 0)
    a->target_task = g_array_index (targets, RspIdx, 0);
  if (targets->len == 0)
    {
      g_set_error (error, RSP_ANALYSIS_ERROR, RSP_ANALYSIS_ERROR_NO_PROCESS, _("process %d never ran in the recording"), pid);
      rsp_analysis_free (a);
      return NULL;
    }
  a->start = MAX (t0, from);
  a->end = MIN (t1, to);
  if (a->end <= a->start)
    {
      g_set_error (error, RSP_ANALYSIS_ERROR, RSP_ANALYSIS_ERROR_EMPTY_RANGE,
                   _("process %d did nothing in the chosen time range"), pid);
      rsp_analysis_free (a);
      return NULL;
    }

  /* control path 0: one lane per thread of the process */
  guint32 p0 = analysis_new_path (a, a->start, a->end);
  guint first = a->segments->len;
  guint n = 0;
  guint64 total = 0;
  for (guint i = 0; i < targets->len; i++)
    {
      const RspTask *t = &g_array_index (model->tasks, RspTask, g_array_index (targets, RspIdx, i));
      guint64 l0 = MAX (t->start, a->start), l1 = MIN (t->end, a->end);
      if (l1 <= l0)
        continue;
      n += analysis_emit_timeline (a, g_array_index (targets, RspIdx, i), l0, l1, p0, 0, RSP_NONE);
      total += l1 - l0;
    }
  RspControlPath *path0 = &g_array_index (a->paths, RspControlPath, p0);
  path0->first_root = first;
  path0->n_roots = n;
  path0->total = total;
  analysis_expand_children (a, first, n);

  /* accounting: every root segment of every path, recursively */
  for (guint p = 0; p < a->paths->len; p++)
    {
      const RspControlPath *path = &g_array_index (a->paths, RspControlPath, p);
      for (guint k = 0; k < path->n_roots; k++)
        analysis_account (a, path->first_root + k);
    }
  analysis_index_stretches (a);

  /* time per task per path: the deepest layer's task */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, a->path_task_ns);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      guint64 k = *(guint64 *) key;
      RspControlPath *path = &g_array_index (a->paths, RspControlPath, (guint) (k >> 32));
      RspPathTask pt = { (RspIdx) (k & 0xffffffffu), *(guint64 *) value };
      g_array_append_val (path->task_time, pt);
    }
  for (guint p = 0; p < a->paths->len; p++)
    g_array_sort (g_array_index (a->paths, RspControlPath, p).task_time, compare_path_tasks);

  analysis_sort_findings (a);
  return a;
}

void
rsp_analysis_free (RspAnalysis *a)
{
  if (a == NULL)
    return;
  /* task_runs, task_disk_ops and device_ops are the model's (rsp_model_get_index) */
  for (guint i = 0; a->covered != NULL && i < a->n_tasks; i++)
    if (a->covered[i] != NULL)
      g_array_unref (a->covered[i]);
  g_free (a->covered);
  for (guint i = 0; i < a->paths->len; i++)
    g_array_unref (g_array_index (a->paths, RspControlPath, i).task_time);
  g_array_unref (a->segments);
  g_array_unref (a->paths);
  g_hash_table_unref (a->path_of_run);
  g_hash_table_unref (a->path_task_ns);
  g_free (a->finding_slots);
  g_array_unref (a->findings);
  g_array_unref (a->finding_best);
  g_array_unref (a->finding_leaf);
  g_free (a->finding_steps);
  g_clear_pointer (&a->stretches, g_array_unref);
  g_free (a->seg_first_stretch);
  g_free (a->finding_first);
  g_free (a->finding_stretches);
  g_clear_pointer (&a->disk_cand, g_array_unref);
  g_clear_pointer (&a->disk_cuts, g_array_unref);
  rsp_model_unref (a->m);
  g_free (a);
}

/* ------------------------------------------------------------------ queries */

const RspModel *rsp_analysis_model (const RspAnalysis *a) { return a->m; }

typedef struct {
  gint32 pid;
  guint64 ns;
} ProcessTime;

static gint
compare_process_time (gconstpointer pa, gconstpointer pb)
{
  const ProcessTime *a = pa, *b = pb;
  if (a->ns != b->ns)
    return a->ns > b->ns ? -1 : 1;
  return a->pid < b->pid ? -1 : a->pid > b->pid;
}

GArray *
rsp_analysis_processes (const RspAnalysis *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  g_autoptr (GHashTable) slot = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (ProcessTime));
  for (guint i = 0; i < a->segments->len; i++)
    {
      const RspSegment *s = &g_array_index (a->segments, RspSegment, i);
      gint32 pid = rsp_model_task (a->m, s->task)->pid;
      /* a segment on one of its own process's stands inside it */
      if (pid == a->pid
          || (s->parent != RSP_NONE
              && rsp_model_task (a->m, g_array_index (a->segments, RspSegment, s->parent).task)->pid == pid))
        continue;
      gpointer found;
      if (!g_hash_table_lookup_extended (slot, GINT_TO_POINTER (pid), NULL, &found))
        {
          found = GUINT_TO_POINTER (times->len);
          g_hash_table_insert (slot, GINT_TO_POINTER (pid), found);
          ProcessTime pt = { pid, 0 };
          g_array_append_val (times, pt);
        }
      g_array_index (times, ProcessTime, GPOINTER_TO_UINT (found)).ns += s->end - s->start;
    }
  g_array_sort (times, compare_process_time);
  GArray *pids = g_array_sized_new (FALSE, FALSE, sizeof (gint32), times->len + 1);
  g_array_append_val (pids, a->pid);
  for (guint i = 0; i < times->len; i++)
    g_array_append_val (pids, g_array_index (times, ProcessTime, i).pid);
  return pids;
}
gint32 rsp_analysis_pid (const RspAnalysis *a) { return a->pid; }
RspIdx rsp_analysis_target_task (const RspAnalysis *a) { return a->target_task; }
guint64 rsp_analysis_start (const RspAnalysis *a) { return a->start; }
guint64 rsp_analysis_end (const RspAnalysis *a) { return a->end; }
guint rsp_analysis_n_segments (const RspAnalysis *a) { return a->segments->len; }

const RspSegment *
rsp_analysis_segment (const RspAnalysis *a, RspIdx i)
{
  g_return_val_if_fail (i < a->segments->len, NULL);
  return &g_array_index (a->segments, RspSegment, i);
}

guint rsp_analysis_n_paths (const RspAnalysis *a) { return a->paths->len; }

const RspControlPath *
rsp_analysis_path (const RspAnalysis *a, guint i)
{
  g_return_val_if_fail (i < a->paths->len, NULL);
  return &g_array_index (a->paths, RspControlPath, i);
}

guint64
rsp_analysis_category_ns (const RspAnalysis *a, RspCategory cat)
{
  g_return_val_if_fail (cat < RSP_CAT_N, 0);
  return a->category_ns[cat];
}

guint64
rsp_analysis_inferred_ns (const RspAnalysis *a, RspCategory cat)
{
  g_return_val_if_fail (cat < RSP_CAT_N, 0);
  return a->inferred_ns[cat];
}

guint64 rsp_analysis_wall_ns (const RspAnalysis *a) { return a->end - a->start; }

guint64
rsp_analysis_total_ns (const RspAnalysis *a)
{
  guint64 total = 0;
  for (guint i = 0; i < a->paths->len; i++)
    total += g_array_index (a->paths, RspControlPath, i).total;
  return total;
}

guint64
rsp_analysis_accounted_ns (const RspAnalysis *a)
{
  guint64 sum = 0;
  for (guint c = 0; c < RSP_CAT_N; c++)
    if (c != RSP_CAT_UNACCOUNTED)
      sum += a->category_ns[c];
  return sum;
}

gdouble
rsp_analysis_accounted_percent (const RspAnalysis *a)
{
  guint64 total = rsp_analysis_total_ns (a);
  return total > 0 ? 100.0 * rsp_analysis_accounted_ns (a) / total : 100.0;
}

guint rsp_analysis_n_findings (const RspAnalysis *a) { return a->findings->len; }

const RspFinding *
rsp_analysis_finding (const RspAnalysis *a, guint i)
{
  g_return_val_if_fail (i < a->findings->len, NULL);
  return &g_array_index (a->findings, RspFinding, i);
}
