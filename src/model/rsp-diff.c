/* rsp-diff.c — two analyses compared (see rsp-diff.h). */
#include "rsp-diff.h"

#include <string.h>

struct _RspDiff {
  const RspAnalysis *a, *b;
  GArray *changes; /* RspDiffChange */
};

/* Sums the findings of ANALYSIS into the changes, per (category, process
 * name, frame): into a_ns for A, b_ns for B. */
static void
add_findings (RspDiff *d, GHashTable *index, const RspAnalysis *analysis, gboolean is_b)
{
  const RspModel *m = rsp_analysis_model (analysis);
  for (guint i = 0; i < rsp_analysis_n_findings (analysis); i++)
    {
      const RspFinding *f = rsp_analysis_finding (analysis, i);
      const RspTask *t = rsp_model_task (m, f->task);
      gboolean is_new;
      guint slot = rsp_finding_cause_slot (index, d->changes, m, f, &is_new); /* may move the array */
      RspDiffChange *c = &g_array_index (d->changes, RspDiffChange, slot);
      if (is_new)
        *c = (RspDiffChange) {
          .category = f->category, .comm = t != NULL ? t->comm : NULL, .frame = f->frame,
          .a_task = RSP_NONE, .b_task = RSP_NONE,
        };
      if (is_b)
        {
          c->b_ns += f->ns;
          if (c->b_task == RSP_NONE)
            c->b_task = f->task;
        }
      else
        {
          c->a_ns += f->ns;
          if (c->a_task == RSP_NONE)
            c->a_task = f->task;
        }
    }
}

static int
compare_changes (gconstpointer pa, gconstpointer pb)
{
  const RspDiffChange *x = pa, *y = pb;
  guint64 ax = (guint64) ABS (x->delta_ns), ay = (guint64) ABS (y->delta_ns);
  return ax > ay ? -1 : ax < ay;
}

RspDiff *
rsp_diff_new (const RspAnalysis *a, const RspAnalysis *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  RspDiff *d = g_new0 (RspDiff, 1);
  d->a = a;
  d->b = b;
  d->changes = g_array_new (FALSE, TRUE, sizeof (RspDiffChange));
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  add_findings (d, index, a, FALSE);
  add_findings (d, index, b, TRUE);
  guint kept = 0;
  for (guint i = 0; i < d->changes->len; i++)
    {
      RspDiffChange *c = &g_array_index (d->changes, RspDiffChange, i);
      c->delta_ns = (gint64) c->b_ns - (gint64) c->a_ns;
      if (c->delta_ns != 0)
        g_array_index (d->changes, RspDiffChange, kept++) = *c;
    }
  g_array_set_size (d->changes, kept);
  g_array_sort (d->changes, compare_changes);
  return d;
}

void
rsp_diff_free (RspDiff *d)
{
  if (d == NULL)
    return;
  g_array_unref (d->changes);
  g_free (d);
}

const RspAnalysis *
rsp_diff_a (const RspDiff *d)
{
  return d->a;
}

const RspAnalysis *
rsp_diff_b (const RspDiff *d)
{
  return d->b;
}

guint
rsp_diff_n_changes (const RspDiff *d)
{
  return d->changes->len;
}

const RspDiffChange *
rsp_diff_change (const RspDiff *d, guint i)
{
  g_return_val_if_fail (i < d->changes->len, NULL);
  return &g_array_index (d->changes, RspDiffChange, i);
}

/* ------------------------------------------------------------------ matching processes */

/* A process's place in the tree: the command names of its main thread and
 * of the processes that forked it, innermost first ("make/sh/cc1"). */
static char *
tree_key (const RspModel *m, RspIdx task)
{
  GString *key = g_string_new (NULL);
  gint32 last_pid = -1;
  for (guint depth = 0; task != RSP_NONE && depth < 64; depth++)
    {
      const RspTask *t = rsp_model_task (m, task);
      if (t->pid != last_pid) /* threads and exec generations of one process count once */
        {
          g_string_append_printf (key, "%s%s", key->len > 0 ? "/" : "", t->comm != NULL ? t->comm : "?");
          last_pid = t->pid;
        }
      task = t->parent;
    }
  return g_string_free (key, FALSE);
}

/* The main threads of MODEL's processes (latest generation) whose tree key
 * is KEY, in order of appearance. */
static GArray *
processes_with_key (const RspModel *m, const char *key)
{
  /* each process once, at its first main-thread task that ran (order of
   * appearance), named by its latest generation: one pass, not one search
   * of the whole model per process */
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GHashTable) listed = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) latest = g_hash_table_new (g_direct_hash, g_direct_equal); /* pid -> task + 1 */
  for (guint i = 0; i < rsp_model_n_tasks (m); i++)
    {
      const RspTask *t = rsp_model_task (m, i);
      if (t->is_idle || t->ignored || t->tid != t->pid)
        continue;
      if (t->n_runs > 0 && g_hash_table_add (listed, GINT_TO_POINTER (t->pid)))
        g_array_append_val (order, t->pid);
      gpointer known = g_hash_table_lookup (latest, GINT_TO_POINTER (t->pid));
      if (known == NULL || t->generation >= rsp_model_task (m, GPOINTER_TO_UINT (known) - 1)->generation)
        g_hash_table_insert (latest, GINT_TO_POINTER (t->pid), GUINT_TO_POINTER (i + 1));
    }
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < order->len; i++)
    {
      gint32 pid = g_array_index (order, gint32, i);
      g_autofree char *k = tree_key (m, GPOINTER_TO_UINT (g_hash_table_lookup (latest, GINT_TO_POINTER (pid))) - 1);
      if (strcmp (k, key) == 0)
        g_array_append_val (pids, pid);
    }
  return pids;
}

gint32
rsp_diff_match_process (const RspModel *a, gint32 pid_a, const RspModel *b)
{
  RspIdx task = rsp_model_find_process (a, pid_a, NULL);
  if (task == RSP_NONE)
    return 0;
  g_autofree char *key = tree_key (a, task);
  g_autoptr (GArray) in_a = processes_with_key (a, key);
  g_autoptr (GArray) in_b = processes_with_key (b, key);
  for (guint i = 0; i < in_a->len; i++)
    if (g_array_index (in_a, gint32, i) == pid_a)
      return i < in_b->len ? g_array_index (in_b, gint32, i) : 0;
  return 0;
}
