/* rsp-accounting.c — the table of stretches: every nanosecond of every
 * lane that no child segment covers gets exactly one category, decided
 * once here (runs by their samples, sleeps by why they ended, disk waits by
 * the requests in service or queued), with what explains it. */
#include <string.h>

#include "rsp-analysis-private.h"
#include "rsp-kernel-sigs.h"

/* ------------------------------------------------------------------ accounting */

static gint
compare_u64 (gconstpointer pa, gconstpointer pb, gpointer unused)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;
  return a < b ? -1 : a > b;
}

/* A disk wait's cut points: a handful (its ends, each candidate's three
 * moments), where a call to the library's merge sort cost more than the
 * sorting; insertion sort up to 16. */
static void
sort_u64 (guint64 *v, guint n)
{
  if (n > 16)
    {
      g_qsort_with_data (v, (gint) n, sizeof *v, compare_u64, NULL);
      return;
    }
  for (guint i = 1; i < n; i++)
    {
      guint64 x = v[i];
      guint j = i;
      for (; j > 0 && v[j - 1] > x; j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
}

typedef struct {
  RspAnalysis *a;
  RspIdx seg;
  RspCauseKind link_kind; /* what explains the stretches being made */
  RspIdx link;
  const char *file;       /* the file of the sleep being split, or NULL */
  guint64 *task_ns;       /* the segment's (path, task) total, once looked up */
} StretchCtx;

/* One stretch of a segment, decided once: it goes into the table, the
 * accounting, its path's accounting and the findings. */
static void
sample_stretch (StretchCtx *c, guint64 s0, guint64 s1, RspCategory cat, const char *frame, const char *endpoint,
                RspIdx sample)
{
  if (s1 <= s0)
    return;
  RspAnalysis *a = c->a;
  const RspSegment *seg = seg_at (a, c->seg);
  gboolean inferred = seg->kind == RSP_SEG_SLEEP && g_array_index (a->m->sleeps, RspSleep, seg->item).inferred;
  /* a disk wait names its file: its sleep's, else that of the wait that
   * led here (an fsync waiting for the journal thread's write) */
  const char *file = NULL;
  if (cat == RSP_CAT_DISK_IO || cat == RSP_CAT_IO_QUEUE)
    {
      file = c->file;
      for (RspIdx i = seg->parent; file == NULL && i != RSP_NONE; i = seg_at (a, i)->parent)
        file = analysis_segment_file (a, seg_at (a, i));
    }
  RspStretch st = { s0, s1, c->seg, (guint16) cat, (guint16) inferred, frame, endpoint, file, sample,
                    sample != RSP_NONE ? RSP_CAUSE_SAMPLE : c->link_kind, sample != RSP_NONE ? sample : c->link };
  st.finding = analysis_add_finding (a, cat, c->seg, frame, endpoint, file, s0, s1 - s0);
  g_array_append_val (a->stretches, st);
  a->category_ns[cat] += s1 - s0;
  g_array_index (a->paths, RspControlPath, seg->path).category_ns[cat] += s1 - s0;
  if (inferred)
    a->inferred_ns[cat] += s1 - s0;
  if (c->task_ns == NULL)
    {
      guint64 key = ((guint64) seg->path << 32) | seg->task;
      c->task_ns = g_hash_table_lookup (a->path_task_ns, &key);
      if (c->task_ns == NULL)
        {
          c->task_ns = g_new0 (guint64, 1);
          g_hash_table_insert (a->path_task_ns, g_memdup2 (&key, sizeof key), c->task_ns);
        }
    }
  *c->task_ns += s1 - s0;
}

static void
stretch (StretchCtx *c, guint64 s0, guint64 s1, RspCategory cat, const char *frame, const char *endpoint)
{
  sample_stretch (c, s0, s1, cat, frame, endpoint, RSP_NONE);
}

/* What explains the stretches made next: a kind with its index, or
 * nothing when the index is unknown. */
static void
set_cause (StretchCtx *c, RspCauseKind kind, RspIdx link)
{
  gboolean indexed = kind == RSP_CAUSE_NETWORK || kind == RSP_CAUSE_WAKEUP || kind == RSP_CAUSE_DISK;
  c->link_kind = indexed && link == RSP_NONE ? RSP_CAUSE_NONE : kind;
  c->link = c->link_kind == RSP_CAUSE_NONE ? RSP_NONE : link;
}

/* How far back a device's requests are looked at for one wait. */
#define DEVICE_SCAN 4096

static void add_device_candidates (RspAnalysis *a, guint32 dev, GArray *on_dev, RspIdx task, guint64 s0,
                                   guint64 s1, GArray *out);

/* The first index in [LO, HI) of LIST (indexes of OPS, in insert order)
 * whose request was queued at S1 or later; HI if none. */
static guint
first_queued_from (const GArray *ops, const GArray *list, guint lo, guint hi, guint64 s1)
{
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (ops, RspDiskOp, g_array_index (list, RspIdx, mid)).insert < s1)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first index below HI whose running maximum of completions (REACH,
 * rsp-model-private.h) is after S0: every request before it completed by
 * S0. */
static guint
first_reaching_past (const GArray *reach, guint hi, guint64 s0)
{
  guint lo = 0;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (reach, guint64, mid) <= s0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Requests that may explain a disk wait of TASK over [S0, S1): its own,
 * the one whose completion woke it, and any other on that device (a
 * writeback or journal request issued by a kernel thread on its behalf). */
static void
disk_candidates (RspAnalysis *a, RspIdx task, RspIdx main_op, guint64 s0, guint64 s1, GArray *out)
{
  const GArray *ops = a->m->disk_ops;
  GArray *own = a->task_disk_ops[task];
  guint from = 0, to = own != NULL ? own->len : 0;
  const RspDiskReach *r = &a->task_disk_reach[task];
  if (r->reach != NULL)
    {
      /* the ones before FROM that completed did so by S0; from TO on, all
       * were queued at S1 or later: neither can be a candidate.  Those
       * before FROM never completed are, if queued before S1. */
      from = first_reaching_past (r->reach, to, s0);
      to = first_queued_from (ops, own, from, to, s1);
      for (guint k = 0; r->open != NULL && k < r->open->len && g_array_index (r->open, guint, k) < from; k++)
        {
          RspIdx idx = g_array_index (own, RspIdx, g_array_index (r->open, guint, k));
          if (g_array_index (ops, RspDiskOp, idx).insert < s1)
            g_array_append_val (out, idx);
        }
    }
  for (guint i = from; i < to; i++)
    {
      RspIdx idx = g_array_index (own, RspIdx, i);
      const RspDiskOp *op = &g_array_index (ops, RspDiskOp, idx);
      if (op->insert < s1 && (op->complete == 0 || op->complete > s0))
        g_array_append_val (out, idx);
    }
  if (main_op == RSP_NONE)
    {
      /* the completion that woke it is unknown: any device's requests */
      GHashTableIter it;
      gpointer dev, list;
      g_hash_table_iter_init (&it, a->device_ops);
      while (g_hash_table_iter_next (&it, &dev, &list))
        add_device_candidates (a, GPOINTER_TO_UINT (dev), list, task, s0, s1, out);
      return;
    }
  guint32 dev = g_array_index (ops, RspDiskOp, main_op).dev;
  GArray *on_dev = g_hash_table_lookup (a->device_ops, GUINT_TO_POINTER (dev));
  if (on_dev != NULL)
    add_device_candidates (a, dev, on_dev, task, s0, s1, out);
}

static void
add_device_candidates (RspAnalysis *a, guint32 dev, GArray *on_dev, RspIdx task, guint64 s0, guint64 s1,
                       GArray *out)
{
  /* where the latest completion so far is S0 or earlier, every request
   * up to there that completed did so by S0: the scan back stops, and
   * only those never completed remain */
  const RspDiskReach *r = g_hash_table_lookup (a->device_reach, GUINT_TO_POINTER (dev));
  const GArray *ops = a->m->disk_ops;
  /* on_dev is in insert order: skip to the requests queued before S1; at
   * most the last DEVICE_SCAN of those are looked at */
  guint lo = first_queued_from (ops, on_dev, 0, on_dev->len, s1);
  guint lowest = lo > DEVICE_SCAN ? lo - DEVICE_SCAN : 0;
  guint i = lo;
  for (; i > lowest; i--)
    {
      if (r != NULL && g_array_index (r->reach, guint64, i - 1) <= s0)
        break;
      RspIdx idx = g_array_index (on_dev, RspIdx, i - 1);
      const RspDiskOp *op = &g_array_index (ops, RspDiskOp, idx);
      if ((op->complete == 0 || op->complete > s0) && (op->task != task))
        g_array_append_val (out, idx);
    }
  if (r == NULL || r->open == NULL)
    return;
  /* those never completed, below where the scan stopped, latest first */
  for (guint k = r->open->len; k > 0; k--)
    {
      guint pos = g_array_index (r->open, guint, k - 1);
      if (pos >= i)
        continue;
      if (pos < lowest)
        break;
      RspIdx idx = g_array_index (on_dev, RspIdx, pos);
      if (g_array_index (ops, RspDiskOp, idx).task != task)
        g_array_append_val (out, idx);
    }
}

/* Disk wait [S0, S1) of TASK, ended by a disk completion: in service while
 * one of the candidate requests is being served, queued while one is only
 * queued; between requests and after the last one until the wake-up (a
 * writeback worker waiting for a CPU to finish the I/O), still disk I/O as
 * the task lives it; a kernel block only before the first request, unless
 * the task waits for a cache flush (FLUSH). */
/* A sleep in a cache flush (fsync, fdatasync, a journal commit) waits for
 * the device's cache flush from its start: for the flush request and,
 * before the request is issued, for the flush already in progress. */
static gboolean
sleep_in_flush (const RspAnalysis *a, const RspSleep *s)
{
  guint n;
  const RspModelFrame *f = rsp_model_stack_unnamed (a->m, s->stack, &n);
  for (guint i = 0; i < n && f[i].kernel; i++)
    if (rsp_kernel_is_flush_wait (f[i].symbol))
      return TRUE;
  return FALSE;
}

static void
disk_stretches (StretchCtx *c, RspIdx task, guint64 s0, guint64 s1, const char *frame, RspIdx main_op, gboolean flush)
{
  RspAnalysis *a = c->a;
  const GArray *ops = a->m->disk_ops;
  if (a->disk_cand == NULL)
    {
      a->disk_cand = g_array_new (FALSE, FALSE, sizeof (RspIdx));
      a->disk_cuts = g_array_new (FALSE, FALSE, sizeof (guint64));
    }
  GArray *cand = a->disk_cand, *cuts = a->disk_cuts;
  g_array_set_size (cand, 0);
  g_array_set_size (cuts, 0);
  disk_candidates (a, task, main_op, s0, s1, cand);
  if (cand->len == 0 && main_op == RSP_NONE)
    {
      /* a disk wait we could not match to a request is still a disk wait */
      set_cause (c, RSP_CAUSE_NONE, RSP_NONE);
      stretch (c, s0, s1, RSP_CAT_DISK_IO, frame, NULL);
      return;
    }
  g_array_append_val (cuts, s0);
  g_array_append_val (cuts, s1);
  for (guint i = 0; i < cand->len; i++)
    {
      const RspDiskOp *op = &g_array_index (ops, RspDiskOp, g_array_index (cand, RspIdx, i));
      guint64 pts[3] = { op->insert, op->issue, op->complete };
      for (guint k = 0; k < 3; k++)
        if (pts[k] > s0 && pts[k] < s1)
          g_array_append_val (cuts, pts[k]);
    }
  /* the first request's activity: before it, the task was blocked on
   * something else in the kernel (a lock, a page) */
  guint64 first_io = main_op != RSP_NONE ? g_array_index (ops, RspDiskOp, main_op).insert : G_MAXUINT64;
  for (guint i = 0; i < cand->len; i++)
    first_io = MIN (first_io, g_array_index (ops, RspDiskOp, g_array_index (cand, RspIdx, i)).insert);
  if (first_io > s0 && first_io < s1)
    g_array_append_val (cuts, first_io);
  sort_u64 ((guint64 *) (gpointer) cuts->data, cuts->len);
  const guint64 *cv = (const guint64 *) cuts->data;
  for (guint i = 0; i + 1 < cuts->len; i++)
    {
      guint64 p0 = cv[i], p1 = cv[i + 1];
      if (p1 <= p0)
        continue;
      guint64 mid = p0 + (p1 - p0) / 2;
      gboolean served = FALSE, queued = FALSE;
      RspIdx link = main_op, queued_op = RSP_NONE;
      for (guint k = 0; k < cand->len && !served; k++)
        {
          RspIdx idx = g_array_index (cand, RspIdx, k);
          const RspDiskOp *op = &g_array_index (ops, RspDiskOp, idx);
          RspDiskOpSpans sp = rsp_disk_op_spans (op, s1);
          if (mid >= sp.served && mid < sp.end)
            served = TRUE, link = idx;
          else if (mid >= sp.queued && mid < sp.served && !queued)
            queued = TRUE, queued_op = idx;
        }
      if (!served && queued)
        link = queued_op;
      RspCategory cat = served ? RSP_CAT_DISK_IO : queued ? RSP_CAT_IO_QUEUE
                        : (mid >= first_io || flush) ? RSP_CAT_DISK_IO : RSP_CAT_KERNEL_MISC;
      set_cause (c, cat == RSP_CAT_KERNEL_MISC ? RSP_CAUSE_NONE : RSP_CAUSE_DISK, link);
      stretch (c, p0, p1, cat, frame, NULL);
    }
}

static void
wake_cause (StretchCtx *c, const RspSleep *s)
{
  switch (s->reason)
    {
    case RSP_WAKE_TIMER:
      set_cause (c, RSP_CAUSE_TIMER, RSP_NONE);
      break;
    case RSP_WAKE_NETWORK:
      set_cause (c, RSP_CAUSE_NETWORK, s->net_op);
      break;
    case RSP_WAKE_IRQ:
      set_cause (c, RSP_CAUSE_IRQ, RSP_NONE);
      break;
    case RSP_WAKE_RUN:
      set_cause (c, RSP_CAUSE_WAKEUP, s->waker_run);
      break;
    case RSP_WAKE_DISK:
      set_cause (c, RSP_CAUSE_DISK, s->disk_op);
      break;
    default:
      set_cause (c, RSP_CAUSE_NONE, RSP_NONE);
      break;
    }
}

static void
sleep_stretches (StretchCtx *c, const RspSegment *seg, guint64 u0, guint64 u1)
{
  RspAnalysis *a = c->a;
  const RspSleep *s = sleep_at (a, seg->item);
  const char *frame = rsp_model_sleep_frame (a->m, seg->item);
  if (s->reason == RSP_WAKE_PREEMPTION)
    {
      set_cause (c, RSP_CAUSE_NONE, RSP_NONE);
      stretch (c, u0, u1, RSP_CAT_PREEMPTED, frame, NULL);
      return;
    }
  guint64 split = CLAMP (s->runnable_at, u0, u1);
  guint64 b0 = u0, b1 = split; /* before the wake-up */
  const char *endpoint = NULL;
  /* what the wait was for: the wake-up's cause */
  wake_cause (c, s);
  RspCauseKind wake_kind = c->link_kind;
  RspIdx wake_link = c->link;
  switch (s->reason)
    {
    case RSP_WAKE_TIMER:
      stretch (c, b0, b1, s->deliberate ? RSP_CAT_SLEEP : RSP_CAT_TIMEOUT, frame, NULL);
      break;
    case RSP_WAKE_DISK:
      c->file = s->file;
      disk_stretches (c, seg->task, b0, b1, frame, s->disk_op, sleep_in_flush (a, s));
      c->file = NULL;
      break;
    case RSP_WAKE_NETWORK:
      if (s->net_op != RSP_NONE)
        endpoint = g_array_index (a->m->net_ops, RspNetOp, s->net_op).endpoint;
      stretch (c, b0, b1, RSP_CAT_NETWORK, frame, endpoint);
      break;
    case RSP_WAKE_IRQ:
      stretch (c, b0, b1, RSP_CAT_HARDWARE, s->irq_name != NULL ? s->irq_name : frame, NULL);
      break;
    case RSP_WAKE_RUN:
    case RSP_WAKE_FORK:
      stretch (c, b0, b1, seg->other_path != G_MAXUINT32 ? RSP_CAT_OTHER_PATH : RSP_CAT_UNACCOUNTED, frame, NULL);
      break;
    case RSP_WAKE_UNKNOWN:
      stretch (c, b0, b1, (s->prev_state & 0x2) ? RSP_CAT_KERNEL_MISC : RSP_CAT_UNACCOUNTED, frame, NULL);
      break;
    case RSP_WAKE_PREEMPTION:
      break;
    }
  /* runnable, waiting for a CPU: explained by the same wake-up */
  c->link_kind = wake_kind, c->link = wake_link;
  stretch (c, split, u1, RSP_CAT_SCHEDULER, frame, NULL);
}

static void
run_stretches (StretchCtx *c, const RspSegment *seg, guint64 u0, guint64 u1)
{
  RspAnalysis *a = c->a;
  const RspRun *run = run_at (a, seg->item);
  if (run->n_samples == 0)
    {
      /* no sample: the stack it blocked with at the end of the run is the
       * best evidence of what it was doing (paper §6: deduce the stacks) */
      const char *ending = run->next_sleep != RSP_NONE ? rsp_model_sleep_frame (a->m, run->next_sleep) : NULL;
      stretch (c, u0, u1, RSP_CAT_CPU_UNSAMPLED, ending, NULL);
      return;
    }
  /* a run's samples divide its width equally (paper §4.2); in 128 bits:
   * the width times the samples passes 2^64 past an hour's run at 1 kHz */
  guint64 len = MAX (run->end - run->start, 1);
  for (guint k = 0; k < run->n_samples; k++)
    {
      guint64 k0 = run->start + (guint64) ((unsigned __int128) len * k / run->n_samples);
      guint64 k1 = run->start + (guint64) ((unsigned __int128) len * (k + 1) / run->n_samples);
      guint64 x0 = MAX (k0, u0), x1 = MIN (k1, u1);
      if (x1 > x0)
        sample_stretch (c, x0, x1, RSP_CAT_CPU_SAMPLED, rsp_model_sample_frame (a->m, run->first_sample + k), NULL,
                        run->first_sample + k);
    }
}

static void
leaf (StretchCtx *c, guint64 u0, guint64 u1)
{
  const RspSegment *seg = seg_at (c->a, c->seg);
  if (seg->kind == RSP_SEG_RUN)
    run_stretches (c, seg, u0, u1);
  else
    sleep_stretches (c, seg, u0, u1);
}

void
analysis_account (RspAnalysis *a, RspIdx seg_idx)
{
  RspSegment seg = *seg_at (a, seg_idx);
  StretchCtx c = { a, seg_idx, RSP_CAUSE_NONE, RSP_NONE, NULL, NULL };
  guint64 cursor = seg.start;
  for (guint k = 0; k < seg.n_children; k++)
    {
      const RspSegment *child = seg_at (a, seg.first_child + k);
      guint64 c0 = MAX (child->start, cursor);
      if (c0 > cursor)
        leaf (&c, cursor, MIN (c0, seg.end));
      analysis_account (a, seg.first_child + k);
      cursor = MAX (cursor, MIN (child->end, seg.end));
    }
  if (cursor < seg.end)
    leaf (&c, cursor, seg.end);
}

static gint
compare_stretch_start (gconstpointer pa, gconstpointer pb, gpointer unused)
{
  const RspStretch *x = pa, *y = pb;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Groups the table by segment, each segment's stretches in time order: a
 * stable sort by (segment, start).  The stretches are distributed by
 * segment in one pass, keeping their order (each segment's were made in
 * time order, interleaved with its children's); a segment whose stretches
 * are not in time order is then sorted stably by start.  A comparison
 * sort of the table (72-byte elements, copied one by one) was a tenth of
 * the report of a recording of two processes passing a token. */
void
analysis_index_stretches (RspAnalysis *a)
{
  guint n_segs = a->segments->len, n = a->stretches->len;
  guint32 *first = g_new0 (guint32, n_segs + 1);
  for (guint i = 0; i < n; i++)
    {
      RspIdx seg = g_array_index (a->stretches, RspStretch, i).segment;
      g_assert (seg < n_segs);
      first[seg + 1]++;
    }
  for (guint i = 0; i < n_segs; i++)
    first[i + 1] += first[i];
  /* where each stretch goes, then moved there in place, cycle by cycle:
   * a sorted copy of the table (72 bytes a stretch) was faulted in page by
   * page, a twentieth of a report of a 10 MB recording */
  g_autofree guint32 *next = g_memdup2 (first, n_segs * sizeof *first);
  g_autofree guint32 *dest = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    dest[i] = next[g_array_index (a->stretches, RspStretch, i).segment]++;
  RspStretch *all = (RspStretch *) (gpointer) a->stretches->data;
  for (guint i = 0; i < n; i++)
    while (dest[i] != i)
      {
        guint32 d = dest[i];
        RspStretch moved = all[d];
        all[d] = all[i];
        all[i] = moved;
        dest[i] = dest[d];
        dest[d] = d;
      }
  for (guint i = 0; i < n_segs; i++)
    {
      guint len = first[i + 1] - first[i];
      if (len < 2)
        continue;
      RspStretch *seg = &all[first[i]];
      for (guint k = 1; k < len; k++)
        if (seg[k].start < seg[k - 1].start)
          {
            g_qsort_with_data (seg, (gint) len, sizeof *seg, compare_stretch_start, NULL);
            break;
          }
    }
  a->seg_first_stretch = first;
}

guint
rsp_analysis_n_stretches (const RspAnalysis *a)
{
  return a->stretches->len;
}

const RspStretch *
rsp_analysis_stretch (const RspAnalysis *a, guint i)
{
  g_return_val_if_fail (i < a->stretches->len, NULL);
  return &g_array_index (a->stretches, RspStretch, i);
}

const RspStretch *
rsp_analysis_segment_stretches (const RspAnalysis *a, RspIdx segment, guint *n)
{
  g_return_val_if_fail (segment < a->segments->len, NULL);
  guint first = a->seg_first_stretch[segment];
  *n = a->seg_first_stretch[segment + 1] - first;
  return *n > 0 ? &g_array_index (a->stretches, RspStretch, first) : NULL;
}

/* SEGMENT's own stretch covering T, or NULL. */
static const RspStretch *
own_stretch_at (const RspAnalysis *a, RspIdx segment, guint64 t)
{
  guint n;
  const RspStretch *st = rsp_analysis_segment_stretches (a, segment, &n);
  /* in time order: the last that starts at or before T */
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (st[mid].start <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || t >= st[lo - 1].end)
    return NULL;
  return &st[lo - 1];
}

const RspStretch *
rsp_analysis_stretch_at (const RspAnalysis *a, RspIdx segment, guint64 t, RspIdx *owner)
{
  g_return_val_if_fail (segment < a->segments->len, NULL);
  const RspStretch *st = own_stretch_at (a, segment, t);
  /* a moment no stretch of its own covers is one it waited on another
   * task for: the stretch is that task's, a level up */
  while (st == NULL)
    {
      const RspSegment *cur = &g_array_index (a->segments, RspSegment, segment);
      RspIdx next = RSP_NONE;
      for (guint k = 0; k < cur->n_children && next == RSP_NONE; k++)
        {
          const RspSegment *c = &g_array_index (a->segments, RspSegment, cur->first_child + k);
          if (c->start <= t && t < c->end)
            next = cur->first_child + k;
        }
      if (next == RSP_NONE)
        break;
      segment = next;
      st = own_stretch_at (a, segment, t);
    }
  if (owner != NULL)
    *owner = segment;
  return st;
}
