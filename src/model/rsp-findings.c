/* rsp-findings.c — findings: the stretches summed by cause (category,
 * process name, describing frame, endpoint), each keeping the path of its
 * largest stretch; their sentences are composed where they are shown
 * (rsp-describe.c). */
#include <string.h>

#include "rsp-analysis-private.h"
#include "rsp-sort.h"

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

/* The findings' index (RspAnalysis.finding_slots): every stretch looks
 * its finding up, and GHashTable's lookup through two callbacks was a
 * twentieth of the analysis of a build. */
typedef struct _FindingSlot {
  guint32 index; /* in findings, + 1; 0 for an empty slot */
  guint32 hash;  /* of its key: most slots that are not the key's are passed without reading the finding */
} FindingSlot;

#define FINDING_SLOTS_MIN 64u

static gboolean
finding_key_equal (const FindingKey *ka, const FindingKey *kb)
{
  return ka->category == kb->category && ka->comm == kb->comm && ka->frame == kb->frame
         && ka->endpoint == kb->endpoint && ka->file == kb->file && ka->own == kb->own;
}

static guint64
finding_key_hash (const FindingKey *k)
{
  /* the strings are interned: their addresses are their identity */
  const guint64 m = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 h = ((guint64) k->category << 1 | (guint64) (k->own != 0)) * m;
  h = (h ^ (guint64) (guintptr) k->comm) * m;
  h = (h ^ (guint64) (guintptr) k->frame) * m;
  h = (h ^ (guint64) (guintptr) k->endpoint) * m;
  h = (h ^ (guint64) (guintptr) k->file) * m;
  return h ^ (h >> 32);
}

/* The key of finding IDX, as analysis_add_finding() made it: its task may
 * have changed since, to one of the same name and side. */
static FindingKey
finding_key (const RspAnalysis *a, guint idx)
{
  const RspFinding *f = &g_array_index (a->findings, RspFinding, idx);
  const RspTask *task = &g_array_index (a->m->tasks, RspTask, f->task);
  return (FindingKey){ f->category, task->comm, f->frame, f->endpoint, f->file, task->pid == a->pid };
}

/* The slot of KEY (of hash HASH): its own, or the empty one where it would go. */
static FindingSlot *
finding_slot (RspAnalysis *a, const FindingKey *key, guint32 hash)
{
  for (guint i = hash & a->finding_mask;; i = (i + 1) & a->finding_mask)
    {
      FindingSlot *slot = &a->finding_slots[i];
      if (slot->index == 0)
        return slot;
      if (slot->hash == hash)
        {
          FindingKey other = finding_key (a, slot->index - 1);
          if (finding_key_equal (&other, key))
            return slot;
        }
    }
}

/* Room for one more finding: the slots doubled and refilled past half. */
static void
finding_slots_reserve (RspAnalysis *a, guint n_findings)
{
  guint cap = a->finding_slots != NULL ? a->finding_mask + 1 : 0;
  if ((n_findings + 1) * 2 <= cap)
    return;
  FindingSlot *old = a->finding_slots;
  guint new_cap = MAX (cap * 2, FINDING_SLOTS_MIN);
  a->finding_slots = g_new0 (FindingSlot, new_cap);
  a->finding_mask = new_cap - 1;
  for (guint i = 0; i < cap; i++)
    if (old[i].index != 0)
      {
        guint k = old[i].hash & a->finding_mask;
        while (a->finding_slots[k].index != 0)
          k = (k + 1) & a->finding_mask;
        a->finding_slots[k] = old[i];
      }
  g_free (old);
}

/* The steps from a root segment down to SEG: its depth and itself. */
static guint
leaf_path_len (RspAnalysis *a, RspIdx seg)
{
  return seg != RSP_NONE ? seg_at (a, seg)->depth + 1u : 0;
}

/* Every finding's path, from the process of interest to the segment of its
 * largest contribution, into one array: made once, not each time a larger
 * contribution came (a read of many files makes a finding per file).
 * ORDER: the findings' old indexes, in their new order. */
static void
make_paths (RspAnalysis *a, const guint *order)
{
  guint n = a->findings->len;
  gsize total = 0;
  for (guint r = 0; r < n; r++)
    total += leaf_path_len (a, g_array_index (a->finding_leaf, FindingLeaf, order[r]).seg);
  g_free (a->finding_steps);
  a->finding_steps = g_new (RspFindingStep, MAX (total, 1));
  RspFindingStep *next = a->finding_steps;
  for (guint r = 0; r < n; r++)
    {
      const FindingLeaf *leaf = &g_array_index (a->finding_leaf, FindingLeaf, order[r]);
      RspFinding *f = &g_array_index (a->findings, RspFinding, r);
      guint depth = leaf_path_len (a, leaf->seg);
      f->path = next;
      f->n_path = depth;
      /* written from the path's end: it starts at the process of interest */
      for (RspIdx i = leaf->seg; i != RSP_NONE; i = seg_at (a, i)->parent)
        {
          const RspSegment *s = seg_at (a, i);
          RspFindingStep step = { s->task, s->kind == RSP_SEG_SLEEP ? rsp_model_sleep_frame (a->m, s->item) : NULL,
                                  analysis_segment_endpoint (a, s) };
          if (i == leaf->seg)
            step.frame = leaf->frame;
          next[--depth] = step;
        }
      next += f->n_path;
    }
  g_array_set_size (a->finding_leaf, 0);
}

void
analysis_sort_findings (RspAnalysis *a)
{
  guint n = a->findings->len;
  /* largest first, equal ones by category, then as made: stable sorts by
   * category, then by size (the comparison inlined: through
   * g_qsort_with_data() it was a fortieth of a build's report) */
  g_autofree RspKeyed *keys = g_new (RspKeyed, MAX (n, 1));
  g_autofree RspKeyed *tmp_keys = g_new (RspKeyed, MAX (n, 1));
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree guint32 *rank = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    keys[i] = (RspKeyed){ g_array_index (a->findings, RspFinding, i).category, i };
  rsp_sort_keyed (keys, tmp_keys, n);
  for (guint k = 0; k < n; k++)
    keys[k].key = G_MAXUINT64 - g_array_index (a->findings, RspFinding, keys[k].index).ns;
  rsp_sort_keyed (keys, tmp_keys, n);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].index;
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
  g_clear_pointer (&a->finding_slots, g_free); /* it held the old order */
  make_paths (a, order);

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
  /* each finding's stretches are its segments' (each in time order), one
   * segment after another: put in time order by a merge sort that finds
   * sorted halves in one comparison */
  guint longest = 0;
  for (guint r = 0; r < n; r++)
    longest = MAX (longest, a->finding_first[r + 1] - a->finding_first[r]);
  g_autofree RspKeyed *keyed = g_new (RspKeyed, MAX (longest, 1));
  g_autofree RspKeyed *tmp = g_new (RspKeyed, MAX (longest, 1));
  const RspStretch *all = (const RspStretch *) (gconstpointer) a->stretches->data;
  for (guint r = 0; r < n; r++)
    {
      guint32 *list = a->finding_stretches + a->finding_first[r];
      guint len = a->finding_first[r + 1] - a->finding_first[r];
      gboolean in_order = TRUE;
      for (guint k = 0; k < len; k++)
        {
          keyed[k] = (RspKeyed){ all[list[k]].start, list[k] };
          in_order = in_order && (k == 0 || keyed[k - 1].key <= keyed[k].key);
        }
      if (in_order)
        continue;
      rsp_sort_keyed (keyed, tmp, len);
      for (guint k = 0; k < len; k++)
        list[k] = keyed[k].index;
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
  guint32 hash = (guint32) finding_key_hash (&key);
  finding_slots_reserve (a, a->findings->len);
  FindingSlot *slot = finding_slot (a, &key, hash);
  guint idx;
  if (slot->index == 0)
    {
      RspFinding f = { 0 };
      f.category = cat;
      f.task = seg->task;
      f.frame = frame;
      f.endpoint = endpoint;
      f.file = file;
      g_array_append_val (a->findings, f);
      guint64 zero = 0;
      g_array_append_val (a->finding_best, zero);
      FindingLeaf none = { RSP_NONE, NULL };
      g_array_append_val (a->finding_leaf, none);
      idx = a->findings->len - 1;
      *slot = (FindingSlot){ idx + 1, hash };
    }
  else
    idx = slot->index - 1;
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
      g_array_index (a->finding_leaf, FindingLeaf, idx) = (FindingLeaf){ seg_idx, frame };
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
