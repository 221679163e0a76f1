/* rsp-findings.c — findings: the stretches summed by cause (category,
 * process name, describing frame, endpoint), each keeping the path of its
 * largest stretch; their sentences are composed where they are shown
 * (rsp-describe.c). */
#include "rsp-analysis-private.h"

char *
rsp_finding_cause_key (const RspModel *m, const RspFinding *f)
{
  const RspTask *t = rsp_model_task (m, f->task);
  return g_strdup_printf ("%d\x1f%s\x1f%s", (int) f->category, t != NULL && t->comm != NULL ? t->comm : "",
                          f->frame != NULL ? f->frame : "");
}

guint
rsp_finding_cause_slot (GHashTable *index, GArray *slots, const RspModel *m, const RspFinding *f, gboolean *is_new)
{
  g_autofree char *key = rsp_finding_cause_key (m, f);
  gpointer found = g_hash_table_lookup (index, key);
  *is_new = found == NULL;
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  g_array_set_size (slots, slots->len + 1); /* zeroed: the arrays are made with clear = TRUE */
  g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (slots->len));
  return slots->len - 1;
}

/* ------------------------------------------------------------------ findings */

guint
analysis_finding_key_hash (gconstpointer p)
{
  const FindingKey *k = p;
  return (guint) k->category * 31 + GPOINTER_TO_UINT (k->comm) * 17 + GPOINTER_TO_UINT (k->frame)
         + GPOINTER_TO_UINT (k->endpoint) + GPOINTER_TO_UINT (k->file) * 7 + (guint) k->own;
}

gboolean
analysis_finding_key_equal (gconstpointer pa, gconstpointer pb)
{
  const FindingKey *ka = pa, *kb = pb;
  return ka->category == kb->category && ka->comm == kb->comm && ka->frame == kb->frame
         && ka->endpoint == kb->endpoint && ka->file == kb->file && ka->own == kb->own;
}

/* Findings by index, largest first; equal ones in a fixed order. */
static gint
compare_findings (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const GArray *findings = data;
  guint ia = *(const guint *) pa, ib = *(const guint *) pb;
  const RspFinding *fa = &g_array_index (findings, RspFinding, ia), *fb = &g_array_index (findings, RspFinding, ib);
  if (fa->ns != fb->ns)
    return fa->ns < fb->ns ? 1 : -1;
  if (fa->category != fb->category)
    return (gint) fa->category - (gint) fb->category;
  return ia < ib ? -1 : ia > ib;
}

static gint
compare_stretch_starts (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const GArray *stretches = data;
  const RspStretch *sa = &g_array_index (stretches, RspStretch, *(const guint32 *) pa);
  const RspStretch *sb = &g_array_index (stretches, RspStretch, *(const guint32 *) pb);
  return sa->start < sb->start ? -1 : sa->start > sb->start;
}

void
analysis_sort_findings (RspAnalysis *a)
{
  guint n = a->findings->len;
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree guint32 *rank = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_findings, a->findings);
  GArray *sorted = g_array_sized_new (FALSE, FALSE, sizeof (RspFinding), n);
  GArray *best = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  for (guint r = 0; r < n; r++)
    {
      g_array_append_val (sorted, g_array_index (a->findings, RspFinding, order[r]));
      g_array_append_val (best, g_array_index (a->finding_best, guint64, order[r]));
      rank[order[r]] = r;
    }
  g_array_unref (a->findings);
  g_array_unref (a->finding_best);
  a->findings = sorted;
  a->finding_best = best;
  g_hash_table_remove_all (a->finding_index); /* it held the old order */

  /* each finding's stretches: counted, then placed, then put in time order */
  a->finding_first = g_new0 (guint32, n + 1);
  a->finding_stretches = g_new (guint32, MAX (a->stretches->len, 1));
  for (guint i = 0; i < a->stretches->len; i++)
    {
      RspStretch *st = &g_array_index (a->stretches, RspStretch, i);
      st->finding = rank[st->finding];
      a->finding_first[st->finding + 1]++;
    }
  for (guint r = 0; r < n; r++)
    a->finding_first[r + 1] += a->finding_first[r];
  g_autofree guint32 *fill = g_memdup2 (a->finding_first, sizeof (guint32) * (n + 1));
  for (guint i = 0; i < a->stretches->len; i++)
    a->finding_stretches[fill[g_array_index (a->stretches, RspStretch, i).finding]++] = i;
  /* most findings' stretches come from one segment, already in time
   * order: sorted (stably) only where they are not */
  for (guint r = 0; r < n; r++)
    {
      guint32 *list = a->finding_stretches + a->finding_first[r];
      guint len = a->finding_first[r + 1] - a->finding_first[r];
      for (guint k = 1; k < len; k++)
        if (compare_stretch_starts (&list[k - 1], &list[k], a->stretches) > 0)
          {
            g_qsort_with_data (list, (gint) len, sizeof (guint32), compare_stretch_starts, a->stretches);
            break;
          }
    }
}

const guint32 *
rsp_analysis_finding_stretches (const RspAnalysis *a, guint finding, guint *n)
{
  g_return_val_if_fail (finding < a->findings->len, (*n = 0, NULL));
  *n = a->finding_first[finding + 1] - a->finding_first[finding];
  return *n > 0 ? a->finding_stretches + a->finding_first[finding] : NULL;
}

guint32
analysis_add_finding (RspAnalysis *a, RspCategory cat, RspIdx seg_idx, const char *frame, const char *endpoint,
                      const char *file, guint64 start, guint64 ns)
{
  g_assert (ns > 0); /* every stretch is part of one finding */
  const RspSegment *seg = seg_at (a, seg_idx);
  /* work reached over the network names the peer it answered */
  for (RspIdx i = seg->parent; endpoint == NULL && i != RSP_NONE; i = seg_at (a, i)->parent)
    endpoint = analysis_segment_endpoint (a, seg_at (a, i));
  const RspTask *task = &g_array_index (a->m->tasks, RspTask, seg->task);
  FindingKey key = { cat, task->comm, frame, endpoint, file, task->pid == a->pid };
  gpointer found = g_hash_table_lookup (a->finding_index, &key);
  guint idx;
  if (found == NULL)
    {
      RspFinding f = { 0 };
      f.category = cat;
      f.task = seg->task;
      f.frame = frame;
      f.endpoint = endpoint;
      f.file = file;
      f.path = g_array_new (FALSE, FALSE, sizeof (RspFindingStep));
      g_array_append_val (a->findings, f);
      guint64 zero = 0;
      g_array_append_val (a->finding_best, zero);
      idx = a->findings->len - 1;
      g_hash_table_insert (a->finding_index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (idx + 1));
    }
  else
    idx = GPOINTER_TO_UINT (found) - 1;
  RspFinding *f = &g_array_index (a->findings, RspFinding, idx);
  f->ns += ns;
  /* The largest single stretch represents the finding (its task, its path),
   * preferring control path 0: the process of interest's own path is how
   * the reader gets there.  The top bit of finding_best marks path 0. */
  guint64 *best = &g_array_index (a->finding_best, guint64, idx);
  guint64 rank = (seg->path == 0 ? G_GUINT64_CONSTANT (1) << 63 : 0) | ns;
  if (rank > *best)
    {
      *best = rank;
      f->task = seg->task;
      f->best_start = start;
      f->best_end = start + ns;
      g_array_set_size (f->path, 0);
      for (RspIdx i = seg_idx; i != RSP_NONE; i = seg_at (a, i)->parent)
        {
          const RspSegment *s = seg_at (a, i);
          RspFindingStep step = { s->task, s->kind == RSP_SEG_SLEEP ? rsp_model_sleep_frame (a->m, s->item) : NULL,
                                  analysis_segment_endpoint (a, s) };
          if (i == seg_idx)
            step.frame = frame;
          g_array_prepend_val (f->path, step);
        }
    }
  return idx;
}

/* ------------------------------------------------------------------ files */

static gint
compare_file_totals (gconstpointer pa, gconstpointer pb)
{
  const RspFileTotal *x = pa, *y = pb;
  if ((x->file == NULL) != (y->file == NULL))
    return x->file == NULL ? 1 : -1;
  if (x->ns != y->ns)
    return x->ns > y->ns ? -1 : 1;
  return g_strcmp0 (x->file, y->file);
}

GArray *
rsp_analysis_file_totals (const RspAnalysis *a)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RspFileTotal));
  g_autoptr (GHashTable) index = g_hash_table_new (g_direct_hash, g_direct_equal); /* interned file -> idx + 1 */
  g_autoptr (GHashTable) last_segment = g_hash_table_new (g_direct_hash, g_direct_equal); /* idx -> segment + 1 */
  gint unknown = -1;
  for (guint i = 0; i < a->stretches->len; i++)
    {
      const RspStretch *st = &g_array_index (a->stretches, RspStretch, i);
      if (st->category != RSP_CAT_DISK_IO && st->category != RSP_CAT_IO_QUEUE)
        continue;
      guint idx;
      if (st->file == NULL && unknown >= 0)
        idx = (guint) unknown;
      else if (st->file != NULL && g_hash_table_contains (index, st->file))
        idx = GPOINTER_TO_UINT (g_hash_table_lookup (index, st->file)) - 1;
      else
        {
          RspFileTotal t = { st->file };
          g_array_append_val (out, t);
          idx = out->len - 1;
          if (st->file == NULL)
            unknown = (gint) idx;
          else
            g_hash_table_insert (index, (gpointer) st->file, GUINT_TO_POINTER (idx + 1));
        }
      RspFileTotal *t = &g_array_index (out, RspFileTotal, idx);
      guint64 ns = st->end - st->start;
      t->ns += ns;
      if (st->category == RSP_CAT_IO_QUEUE)
        t->queue_ns += ns;
      if (st->inferred)
        t->inferred_ns += ns;
      /* one wait per sleep: its stretches come together */
      if (GPOINTER_TO_UINT (g_hash_table_lookup (last_segment, GUINT_TO_POINTER (idx))) != st->segment + 1)
        {
          t->waits++;
          g_hash_table_insert (last_segment, GUINT_TO_POINTER (idx), GUINT_TO_POINTER (st->segment + 1));
        }
    }
  g_array_sort (out, compare_file_totals);
  return out;
}
