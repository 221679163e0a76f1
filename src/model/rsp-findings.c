/* rsp-findings.c — findings: the stretches summed by cause (category,
 * process name, describing frame, endpoint), each keeping the path of its
 * largest stretch; their sentences are composed where they are shown
 * (rsp-describe.c). */
#include "rsp-analysis-private.h"

/* ------------------------------------------------------------------ findings */

guint
analysis_finding_key_hash (gconstpointer p)
{
  const FindingKey *k = p;
  return (guint) k->category * 31 + GPOINTER_TO_UINT (k->comm) * 17 + GPOINTER_TO_UINT (k->frame)
         + GPOINTER_TO_UINT (k->endpoint) + (guint) k->own;
}

gboolean
analysis_finding_key_equal (gconstpointer pa, gconstpointer pb)
{
  const FindingKey *ka = pa, *kb = pb;
  return ka->category == kb->category && ka->comm == kb->comm && ka->frame == kb->frame
         && ka->endpoint == kb->endpoint && ka->own == kb->own;
}

static gint
compare_findings (gconstpointer pa, gconstpointer pb)
{
  const RspFinding *fa = pa, *fb = pb;
  if (fa->ns != fb->ns)
    return fa->ns < fb->ns ? 1 : -1;
  return (gint) fa->category - (gint) fb->category;
}

void
analysis_sort_findings (RspAnalysis *a)
{
  g_array_sort (a->findings, compare_findings);
}

void
analysis_add_finding (RspAnalysis *a, RspCategory cat, RspIdx seg_idx, const char *frame, const char *endpoint, guint64 start,
             guint64 ns)
{
  if (ns == 0)
    return;
  const RspSegment *seg = seg_at (a, seg_idx);
  /* work reached over the network names the peer it answered */
  for (RspIdx i = seg->parent; endpoint == NULL && i != RSP_NONE; i = seg_at (a, i)->parent)
    endpoint = analysis_segment_endpoint (a, seg_at (a, i));
  const RspTask *task = &g_array_index (a->m->tasks, RspTask, seg->task);
  FindingKey key = { cat, task->comm, frame, endpoint, task->pid == a->pid };
  gpointer found = g_hash_table_lookup (a->finding_index, &key);
  guint idx;
  if (found == NULL)
    {
      RspFinding f = { 0 };
      f.category = cat;
      f.task = seg->task;
      f.frame = frame;
      f.endpoint = endpoint;
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
}
