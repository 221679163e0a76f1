/* rsp-analysis.c — control paths, pseudo-stacks, accounting and findings
 * for one process of interest (see rsp-analysis.h for the procedure). */
#include "rsp-analysis.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "rsp-model-private.h"

/* Deeper chains than this are cut: they are loops of wake-ups, not calls. */
#define MAX_DEPTH 48

struct _RspAnalysis {
  RspModel *m;   /* a reference of the analysis's own: the model outlives it */
  guint n_tasks;     /* the model's, at analysis time: the per-task arrays' length */
  gint32 pid;
  RspIdx target_task;
  guint64 start, end;

  GArray *segments;  /* RspSegment */
  GArray *paths;     /* RspControlPath */
  GHashTable *path_of_run; /* run -> path id + 1, for runs that head a path */

  /* per task: its runs sorted by start (indexes into the model) */
  GArray **task_runs;
  /* per task: its disk operations (indexes) */
  GArray **task_disk_ops;
  guint64 *covered_until; /* per task: the latest end of its segments so far */
  guint32 *covered_path;  /* ... and the control path of that segment */
  GHashTable *device_ops;  /* dev -> GArray of op indexes, in insert order */

  guint64 category_ns[RSP_CAT_N];
  guint64 inferred_ns[RSP_CAT_N]; /* the part of each inferred from a sleeper's stack */
  GHashTable *path_task_ns;  /* (path << 32 | task) -> guint64* */
  GHashTable *finding_index; /* FindingKey -> index in findings */
  GArray *findings;          /* RspFinding */
  GArray *finding_best;      /* guint64: largest single contribution, to pick the path */

  /* The table of stretches the accounting decided, grouped by segment and
   * in time order within one: segment i's are
   * [seg_first_stretch[i], seg_first_stretch[i + 1]). */
  GArray *stretches;         /* RspStretch */
  guint32 *seg_first_stretch;
};

/* Findings aggregate by process name, not thread: sixty cc1 processes of
 * a build are one cause. */
typedef struct {
  RspCategory category;
  const char *comm;
  const char *frame;
  const char *endpoint;
  gboolean own; /* a task of the process of interest: never merged with namesakes */
} FindingKey;

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

/* ------------------------------------------------------------------ indexes */

static const RspRun *
run_at (const RspAnalysis *a, RspIdx r)
{
  return &g_array_index (a->m->runs, RspRun, r);
}

static const RspSleep *
sleep_at (const RspAnalysis *a, RspIdx s)
{
  return &g_array_index (a->m->sleeps, RspSleep, s);
}

static RspSegment *
seg_at (RspAnalysis *a, RspIdx i)
{
  return &g_array_index (a->segments, RspSegment, i);
}

static void
build_indexes (RspAnalysis *a)
{
  const RspModel *m = a->m;
  guint n_tasks = m->tasks->len;
  a->n_tasks = n_tasks;
  a->task_runs = g_new0 (GArray *, MAX (n_tasks, 1));
  a->task_disk_ops = g_new0 (GArray *, MAX (n_tasks, 1));
  a->covered_until = g_new0 (guint64, MAX (n_tasks, 1));
  a->covered_path = g_new0 (guint32, MAX (n_tasks, 1));
  for (guint t = 0; t < n_tasks; t++)
    {
      const RspTask *task = &g_array_index (m->tasks, RspTask, t);
      GArray *runs = g_array_sized_new (FALSE, FALSE, sizeof (RspIdx), task->n_runs);
      for (RspIdx r = task->first_run; r != RSP_NONE; r = run_at (a, r)->next_run)
        g_array_append_val (runs, r);
      a->task_runs[t] = runs;
    }
  a->device_ops = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < m->disk_ops->len; i++)
    {
      const RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, i);
      GArray *on_dev = g_hash_table_lookup (a->device_ops, GUINT_TO_POINTER (op->dev));
      if (on_dev == NULL)
        {
          on_dev = g_array_new (FALSE, FALSE, sizeof (RspIdx));
          g_hash_table_insert (a->device_ops, GUINT_TO_POINTER (op->dev), on_dev);
        }
      RspIdx op_idx = i;
      g_array_append_val (on_dev, op_idx);
      if (op->task == RSP_NONE)
        continue;
      if (a->task_disk_ops[op->task] == NULL)
        a->task_disk_ops[op->task] = g_array_new (FALSE, FALSE, sizeof (RspIdx));
      RspIdx idx = i;
      g_array_append_val (a->task_disk_ops[op->task], idx);
    }
}

/* First run of TASK whose end is after T (binary search). */
static guint
first_run_ending_after (const RspAnalysis *a, RspIdx task, guint64 t)
{
  GArray *runs = a->task_runs[task];
  guint lo = 0, hi = runs->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (run_at (a, g_array_index (runs, RspIdx, mid))->end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ------------------------------------------------------------------ segments */

static RspIdx
emit (RspAnalysis *a, RspSegmentKind kind, RspIdx item, RspIdx task, guint64 start, guint64 end, guint32 path,
      guint16 depth, RspIdx parent)
{
  RspSegment s = { 0 };
  s.path = path;
  s.depth = depth;
  s.kind = kind;
  s.item = item;
  s.task = task;
  s.parent = parent;
  s.first_child = RSP_NONE;
  s.other_path = G_MAXUINT32;
  s.start = start;
  s.end = end;
  g_array_append_val (a->segments, s);
  if (end > a->covered_until[task])
    {
      a->covered_until[task] = end;
      a->covered_path[task] = path;
    }
  return a->segments->len - 1;
}

/* Emits TASK's runs and sleeps over [WS, WE], clipped, in time order.
 * Returns the number emitted; they are contiguous from the array's end. */
static guint
emit_timeline (RspAnalysis *a, RspIdx task, guint64 ws, guint64 we, guint32 path, guint16 depth, RspIdx parent)
{
  if (we <= ws)
    return 0;
  GArray *runs = a->task_runs[task];
  guint n = 0;
  guint i = first_run_ending_after (a, task, ws);
  /* the sleep before the first run in the window, if it reaches in */
  RspIdx sl = RSP_NONE;
  if (i < runs->len)
    sl = run_at (a, g_array_index (runs, RspIdx, i))->prev_sleep;
  else if (runs->len > 0)
    sl = run_at (a, g_array_index (runs, RspIdx, runs->len - 1))->next_sleep;
  if (sl != RSP_NONE)
    {
      const RspSleep *s = sleep_at (a, sl);
      guint64 s0 = MAX (s->start, ws), s1 = MIN (s->end, we);
      if (s1 > s0)
        {
          emit (a, RSP_SEG_SLEEP, sl, task, s0, s1, path, depth, parent);
          n++;
        }
    }
  for (; i < runs->len; i++)
    {
      RspIdx r = g_array_index (runs, RspIdx, i);
      const RspRun *run = run_at (a, r);
      if (run->start >= we)
        break;
      guint64 r0 = MAX (run->start, ws), r1 = MIN (run->end, we);
      if (r1 > r0)
        {
          emit (a, RSP_SEG_RUN, r, task, r0, r1, path, depth, parent);
          n++;
        }
      if (run->next_sleep != RSP_NONE)
        {
          const RspSleep *s = sleep_at (a, run->next_sleep);
          guint64 s0 = MAX (s->start, ws), s1 = MIN (s->end, we);
          if (s1 > s0)
            {
              emit (a, RSP_SEG_SLEEP, run->next_sleep, task, s0, s1, path, depth, parent);
              n++;
            }
        }
    }
  return n;
}

static gboolean
task_is_ancestor (RspAnalysis *a, RspIdx seg, RspIdx task)
{
  for (RspIdx i = seg; i != RSP_NONE; i = seg_at (a, i)->parent)
    if (seg_at (a, i)->task == task)
      return TRUE;
  return FALSE;
}

/* TASK's timeline over [WS, WE] as the child of PARENT_SEG.  When TASK came
 * into being inside the window (an exec or a fork after WS), what created
 * it comes first, up to that moment: the previous generation before an
 * exec, the forking task before a fork, recursively.  A server that forks
 * and execs a worker per connection (dovecot's imap-login) is then followed
 * back to the listener that accepted the connection, instead of leaving
 * the time before the exec unexplained. */
static guint
emit_with_origin (RspAnalysis *a, RspIdx task, guint64 ws, guint64 we, guint32 path, guint16 depth,
                  RspIdx parent_seg, guint hops)
{
  const RspTask *t = &g_array_index (a->m->tasks, RspTask, task);
  guint n = 0;
  guint64 from = ws;
  if (t->start > ws && t->start < we && t->parent != RSP_NONE && hops < 8)
    {
      RspIdx origin = t->parent;
      const RspTask *ot = &g_array_index (a->m->tasks, RspTask, origin);
      if (!ot->ignored && !ot->is_idle && !task_is_ancestor (a, parent_seg, origin))
        {
          n += emit_with_origin (a, origin, ws, t->start, path, depth, parent_seg, hops + 1);
          from = t->start;
        }
    }
  return n + emit_timeline (a, task, from, we, path, depth, parent_seg);
}

static void expand_children (RspAnalysis *a, RspIdx first, guint n);

/* Where the activity that ends with run W began on behalf of someone: walk
 * back over W's task while its runs were woken by anything but TASK
 * (the one that set it going), not before the analysis start. */
static guint64
chain_start (RspAnalysis *a, RspIdx w, RspIdx setter_task)
{
  RspIdx r = w;
  for (guint steps = 0; steps < 100000; steps++)
    {
      const RspRun *run = run_at (a, r);
      if (run->start <= a->start)
        return a->start;
      RspIdx sl = run->prev_sleep;
      if (sl == RSP_NONE && run->start_kind == RSP_RUN_START_EXEC)
        {
          /* an exec continues the previous generation's last run */
          RspIdx prev = g_array_index (a->m->tasks, RspTask, run->task).parent;
          RspIdx last = prev != RSP_NONE ? g_array_index (a->m->tasks, RspTask, prev).last_run : RSP_NONE;
          if (last == RSP_NONE || last == r)
            return run->start;
          r = last;
          continue;
        }
      if (sl == RSP_NONE)
        return run->start;
      const RspSleep *s = sleep_at (a, sl);
      if ((s->reason == RSP_WAKE_RUN || s->reason == RSP_WAKE_FORK) && s->waker_run != RSP_NONE
          && run_at (a, s->waker_run)->task == setter_task)
        return MAX (s->runnable_at, a->start);
      if (s->prev_run == RSP_NONE)
        return MAX (s->start, a->start);
      r = s->prev_run;
    }
  return run_at (a, w)->start;
}

static guint32
new_path (RspAnalysis *a, guint64 start, guint64 end)
{
  RspControlPath p = { 0 };
  p.id = a->paths->len;
  p.start = start;
  p.end = end;
  p.first_root = RSP_NONE;
  p.task_time = g_array_new (FALSE, TRUE, sizeof (RspPathTask));
  g_array_append_val (a->paths, p);
  return p.id;
}

static void
expand_sleep (RspAnalysis *a, RspIdx seg_idx)
{
  RspSegment seg = *seg_at (a, seg_idx);
  const RspSleep *s = sleep_at (a, seg.item);
  /* A new task's wait for its first run is not on behalf of its forker:
   * the forker is its origin (emit_with_origin), or the process of
   * interest itself starting a thread; the wait is scheduler time. */
  if ((s->reason != RSP_WAKE_RUN && s->reason != RSP_WAKE_PREEMPTION) || s->waker_run == RSP_NONE)
    return;
  const RspRun *w = run_at (a, s->waker_run);
  RspIdx waker_task = w->task;
  const RspTask *wt = &g_array_index (a->m->tasks, RspTask, waker_task);
  if (wt->ignored || task_is_ancestor (a, seg_idx, waker_task))
    return;

  /* the waker must have started inside the sleep (its de facto start, less
   * the tolerance); how long it runs after waking the parent does not
   * matter, since the child ends at the wake-up */
  gboolean fits = w->start + RSP_FIT_TOLERANCE_NS >= s->defacto_start && w->start <= s->end + RSP_FIT_TOLERANCE_NS;
  if (fits && seg.depth + 1 < MAX_DEPTH)
    {
      /* the child works on the parent's behalf until it wakes the parent;
       * after that the parent waits for a CPU (a preemption's child runs
       * for the whole preemption) */
      guint64 child_end = s->reason == RSP_WAKE_PREEMPTION ? MIN (seg.end, MAX (w->end, seg.start))
                                                           : MIN (seg.end, MAX (s->runnable_at, seg.start));
      guint first = a->segments->len;
      guint n = emit_with_origin (a, waker_task, seg.start, child_end, seg.path, seg.depth + 1, seg_idx, 0);
      RspSegment *p = seg_at (a, seg_idx);
      p->first_child = n > 0 ? first : RSP_NONE;
      p->n_children = n;
      expand_children (a, first, n);
      return;
    }

  /* A thread of the process of interest is a lane of control path 0
   * already: waiting for it is waiting on that lane, not a new path that
   * would count its time twice. */
  if (wt->pid == a->pid && w->end > a->start && w->start < a->end)
    {
      seg_at (a, seg_idx)->other_path = 0;
      return;
    }

  /* Another control path: the one this waker already heads, or a new one. */
  gpointer known = g_hash_table_lookup (a->path_of_run, GUINT_TO_POINTER (s->waker_run));
  if (known != NULL)
    {
      seg_at (a, seg_idx)->other_path = GPOINTER_TO_UINT (known) - 1;
      return;
    }
  guint64 lane_start = chain_start (a, s->waker_run, seg.task);
  guint64 lane_end = MIN (w->end, a->end);
  /* what of the waker is on a path already is not counted twice: the new
   * lane starts where its last segment ends; if nothing is left, the sleep
   * waits on the path that has it */
  if (a->covered_until[waker_task] > lane_start)
    {
      if (a->covered_until[waker_task] >= lane_end)
        {
          seg_at (a, seg_idx)->other_path = a->covered_path[waker_task];
          return;
        }
      lane_start = a->covered_until[waker_task];
    }
  if (lane_end <= lane_start)
    return;
  guint32 id = new_path (a, lane_start, lane_end);
  g_hash_table_insert (a->path_of_run, GUINT_TO_POINTER (s->waker_run), GUINT_TO_POINTER (id + 1));
  seg_at (a, seg_idx)->other_path = id;
  guint first = a->segments->len;
  /* the lane may begin before the waker's exec (chain_start) */
  guint n = emit_with_origin (a, waker_task, lane_start, lane_end, id, 0, RSP_NONE, 0);
  RspControlPath *path = &g_array_index (a->paths, RspControlPath, id);
  path->first_root = first;
  path->n_roots = n;
  /* its total is what its roots cover, so that the accounting adds up */
  path->total = 0;
  for (guint k = 0; k < n; k++)
    path->total += seg_at (a, first + k)->end - seg_at (a, first + k)->start;
  expand_children (a, first, n);
}

static void
expand_children (RspAnalysis *a, RspIdx first, guint n)
{
  for (guint i = 0; i < n; i++)
    if (seg_at (a, first + i)->kind == RSP_SEG_SLEEP)
      expand_sleep (a, first + i);
}

/* ------------------------------------------------------------------ accounting */

static gint
compare_u64 (gconstpointer pa, gconstpointer pb)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;
  return a < b ? -1 : a > b;
}

/* The network peer a segment's sleep waited on (its own operation, or the
 * loopback hop that linked it). */
static const char *
segment_endpoint (RspAnalysis *a, const RspSegment *s)
{
  if (s->kind != RSP_SEG_SLEEP)
    return NULL;
  const RspSleep *sl = sleep_at (a, s->item);
  return sl->net_op != RSP_NONE ? g_array_index (a->m->net_ops, RspNetOp, sl->net_op).endpoint : NULL;
}

static void
add_finding (RspAnalysis *a, RspCategory cat, RspIdx seg_idx, const char *frame, const char *endpoint, guint64 start,
             guint64 ns)
{
  if (ns == 0)
    return;
  const RspSegment *seg = seg_at (a, seg_idx);
  /* work reached over the network names the peer it answered */
  for (RspIdx i = seg->parent; endpoint == NULL && i != RSP_NONE; i = seg_at (a, i)->parent)
    endpoint = segment_endpoint (a, seg_at (a, i));
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
                                  segment_endpoint (a, s) };
          if (i == seg_idx)
            step.frame = frame;
          g_array_prepend_val (f->path, step);
        }
    }
}

typedef struct {
  RspAnalysis *a;
  RspIdx seg;
  RspCauseKind link_kind; /* what explains the stretches being made */
  RspIdx link;
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
  RspStretch st = { s0, s1, c->seg, (guint16) cat, (guint16) inferred, frame, endpoint, sample,
                    sample != RSP_NONE ? RSP_CAUSE_SAMPLE : c->link_kind, sample != RSP_NONE ? sample : c->link };
  g_array_append_val (a->stretches, st);
  a->category_ns[cat] += s1 - s0;
  g_array_index (a->paths, RspControlPath, seg->path).category_ns[cat] += s1 - s0;
  if (inferred)
    a->inferred_ns[cat] += s1 - s0;
  add_finding (a, cat, c->seg, frame, endpoint, s0, s1 - s0);
  guint64 key = ((guint64) seg->path << 32) | seg->task;
  guint64 *slot = g_hash_table_lookup (a->path_task_ns, &key);
  if (slot == NULL)
    {
      guint64 *k = g_memdup2 (&key, sizeof key);
      slot = g_new0 (guint64, 1);
      g_hash_table_insert (a->path_task_ns, k, slot);
    }
  *slot += s1 - s0;
}

static void
stretch (StretchCtx *c, guint64 s0, guint64 s1, RspCategory cat, const char *frame, const char *endpoint)
{
  sample_stretch (c, s0, s1, cat, frame, endpoint, RSP_NONE);
}

static void add_device_candidates (RspAnalysis *a, GArray *on_dev, RspIdx task, guint64 s0, guint64 s1,
                                   GArray *out);

/* Requests that may explain a disk wait of TASK over [S0, S1): its own,
 * the one whose completion woke it, and any other on that device (a
 * writeback or journal request issued by a kernel thread on its behalf). */
static void
disk_candidates (RspAnalysis *a, RspIdx task, RspIdx main_op, guint64 s0, guint64 s1, GArray *out)
{
  const GArray *ops = a->m->disk_ops;
  GArray *own = a->task_disk_ops[task];
  for (guint i = 0; own != NULL && i < own->len; i++)
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
        add_device_candidates (a, list, task, s0, s1, out);
      return;
    }
  guint32 dev = g_array_index (ops, RspDiskOp, main_op).dev;
  GArray *on_dev = g_hash_table_lookup (a->device_ops, GUINT_TO_POINTER (dev));
  if (on_dev != NULL)
    add_device_candidates (a, on_dev, task, s0, s1, out);
}

static void
add_device_candidates (RspAnalysis *a, GArray *on_dev, RspIdx task, guint64 s0, guint64 s1, GArray *out)
{
  const GArray *ops = a->m->disk_ops;
  /* on_dev is in insert order: skip to the requests queued before S1 */
  guint lo = 0, hi = on_dev->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (ops, RspDiskOp, g_array_index (on_dev, RspIdx, mid)).insert < s1)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint i = lo; i > 0 && lo - i < 4096; i--)
    {
      RspIdx idx = g_array_index (on_dev, RspIdx, i - 1);
      const RspDiskOp *op = &g_array_index (ops, RspDiskOp, idx);
      if ((op->complete == 0 || op->complete > s0) && (op->task != task))
        g_array_append_val (out, idx);
    }
}

/* Disk wait [S0, S1) of TASK, ended by a disk completion: in service while
 * one of the candidate requests is being served, queued while one is only
 * queued; between requests and after the last one until the wake-up (a
 * writeback worker waiting for a CPU to finish the I/O), still disk I/O as
 * the task lives it; a kernel block only before the first request, unless
 * the task waits for a cache flush (FLUSH). */
/* A sleep in blkdev_issue_flush (fsync, fdatasync, a journal commit)
 * waits for the device's cache flush from its start: for the flush request
 * and, before the request is issued, for the flush already in progress. */
static gboolean
sleep_in_flush (const RspAnalysis *a, const RspSleep *s)
{
  guint n;
  const RspModelFrame *f = rsp_model_stack (a->m, s->stack, &n);
  for (guint i = 0; i < n && f[i].kernel; i++)
    if (g_strcmp0 (f[i].symbol, "blkdev_issue_flush") == 0)
      return TRUE;
  return FALSE;
}

static void
disk_stretches (StretchCtx *c, RspIdx task, guint64 s0, guint64 s1, const char *frame, RspIdx main_op, gboolean flush)
{
  RspAnalysis *a = c->a;
  const GArray *ops = a->m->disk_ops;
  g_autoptr (GArray) cand = g_array_new (FALSE, FALSE, sizeof (RspIdx));
  disk_candidates (a, task, main_op, s0, s1, cand);
  if (cand->len == 0 && main_op == RSP_NONE)
    {
      /* a disk wait we could not match to a request is still a disk wait */
      c->link_kind = RSP_CAUSE_NONE;
      c->link = RSP_NONE;
      stretch (c, s0, s1, RSP_CAT_DISK_IO, frame, NULL);
      return;
    }
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (guint64));
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
  g_array_sort (cuts, compare_u64);
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
          guint64 end = op->complete != 0 ? op->complete : s1;
          if (mid >= op->issue && mid < end)
            served = TRUE, link = idx;
          else if (mid >= op->insert && mid < op->issue && !queued)
            queued = TRUE, queued_op = idx;
        }
      if (!served && queued)
        link = queued_op;
      RspCategory cat = served ? RSP_CAT_DISK_IO : queued ? RSP_CAT_IO_QUEUE
                        : (mid >= first_io || flush) ? RSP_CAT_DISK_IO : RSP_CAT_KERNEL_MISC;
      c->link_kind = cat == RSP_CAT_KERNEL_MISC || link == RSP_NONE ? RSP_CAUSE_NONE : RSP_CAUSE_DISK;
      c->link = c->link_kind == RSP_CAUSE_DISK ? link : RSP_NONE;
      stretch (c, p0, p1, cat, frame, NULL);
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
      c->link_kind = RSP_CAUSE_NONE, c->link = RSP_NONE;
      stretch (c, u0, u1, RSP_CAT_PREEMPTED, frame, NULL);
      return;
    }
  guint64 split = CLAMP (s->runnable_at, u0, u1);
  guint64 b0 = u0, b1 = split; /* before the wake-up */
  const char *endpoint = NULL;
  /* what the wait was for: the wake-up's cause */
  switch (s->reason)
    {
    case RSP_WAKE_TIMER:
      c->link_kind = RSP_CAUSE_TIMER, c->link = RSP_NONE;
      break;
    case RSP_WAKE_NETWORK:
      c->link_kind = s->net_op != RSP_NONE ? RSP_CAUSE_NETWORK : RSP_CAUSE_NONE, c->link = s->net_op;
      break;
    case RSP_WAKE_IRQ:
      c->link_kind = RSP_CAUSE_IRQ, c->link = RSP_NONE;
      break;
    case RSP_WAKE_RUN:
      c->link_kind = s->waker_run != RSP_NONE ? RSP_CAUSE_WAKEUP : RSP_CAUSE_NONE, c->link = s->waker_run;
      break;
    case RSP_WAKE_DISK:
      c->link_kind = s->disk_op != RSP_NONE ? RSP_CAUSE_DISK : RSP_CAUSE_NONE, c->link = s->disk_op;
      break;
    default:
      c->link_kind = RSP_CAUSE_NONE, c->link = RSP_NONE;
      break;
    }
  RspCauseKind wake_kind = c->link_kind;
  RspIdx wake_link = c->link;
  switch (s->reason)
    {
    case RSP_WAKE_TIMER:
      stretch (c, b0, b1, s->deliberate ? RSP_CAT_SLEEP : RSP_CAT_TIMEOUT, frame, NULL);
      break;
    case RSP_WAKE_DISK:
      disk_stretches (c, seg->task, b0, b1, frame, s->disk_op, sleep_in_flush (a, s));
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
  /* a run's samples divide its width equally (paper §4.2) */
  guint64 len = MAX (run->end - run->start, 1);
  for (guint k = 0; k < run->n_samples; k++)
    {
      guint64 k0 = run->start + len * k / run->n_samples;
      guint64 k1 = run->start + len * (k + 1) / run->n_samples;
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

static void
account (RspAnalysis *a, RspIdx seg_idx)
{
  RspSegment seg = *seg_at (a, seg_idx);
  StretchCtx c = { a, seg_idx, RSP_CAUSE_NONE, RSP_NONE };
  guint64 cursor = seg.start;
  for (guint k = 0; k < seg.n_children; k++)
    {
      const RspSegment *child = seg_at (a, seg.first_child + k);
      guint64 c0 = MAX (child->start, cursor);
      if (c0 > cursor)
        leaf (&c, cursor, MIN (c0, seg.end));
      account (a, seg.first_child + k);
      cursor = MAX (cursor, MIN (child->end, seg.end));
    }
  if (cursor < seg.end)
    leaf (&c, cursor, seg.end);
}

static gint
compare_stretches (gconstpointer pa, gconstpointer pb)
{
  const RspStretch *x = pa, *y = pb;
  if (x->segment != y->segment)
    return x->segment < y->segment ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Groups the table by segment (each segment's stretches were made in time
 * order, interleaved with its children's). */
static void
index_stretches (RspAnalysis *a)
{
  g_array_sort (a->stretches, compare_stretches);
  guint n_segs = a->segments->len;
  a->seg_first_stretch = g_new0 (guint32, n_segs + 1);
  guint k = 0;
  for (guint i = 0; i < n_segs; i++)
    {
      a->seg_first_stretch[i] = k;
      while (k < a->stretches->len && g_array_index (a->stretches, RspStretch, k).segment == i)
        k++;
    }
  a->seg_first_stretch[n_segs] = k;
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

/* ------------------------------------------------------------------ findings */

static guint
finding_key_hash (gconstpointer p)
{
  const FindingKey *k = p;
  return (guint) k->category * 31 + GPOINTER_TO_UINT (k->comm) * 17 + GPOINTER_TO_UINT (k->frame)
         + GPOINTER_TO_UINT (k->endpoint) + (guint) k->own;
}

static gboolean
finding_key_equal (gconstpointer pa, gconstpointer pb)
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

static gint
compare_path_tasks (gconstpointer pa, gconstpointer pb)
{
  const RspPathTask *a = pa, *b = pb;
  return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : (gint) a->task - (gint) b->task;
}

/* ------------------------------------------------------------------ build */

RspAnalysis *
rsp_analysis_new (const RspModel *model, gint32 pid, guint64 from, guint64 to, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  RspAnalysis *a = g_new0 (RspAnalysis, 1);
  a->m = rsp_model_ref (model);
  a->pid = pid;
  a->segments = g_array_new (FALSE, TRUE, sizeof (RspSegment));
  a->paths = g_array_new (FALSE, TRUE, sizeof (RspControlPath));
  a->path_of_run = g_hash_table_new (g_direct_hash, g_direct_equal);
  a->finding_index = g_hash_table_new_full (finding_key_hash, finding_key_equal, g_free, NULL);
  a->findings = g_array_new (FALSE, TRUE, sizeof (RspFinding));
  a->stretches = g_array_new (FALSE, FALSE, sizeof (RspStretch));
  a->finding_best = g_array_new (FALSE, TRUE, sizeof (guint64));
  a->path_task_ns = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  build_indexes (a);

  /* The command rsp record ran starts at its exec: before it, the forked
   * child is rsp record's own, waiting for perf to be enabled. */
  const RspRecordingMeta *meta = rsp_model_meta (model);
  if (meta != NULL && meta->target_pid == pid)
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
  guint64 t0 = G_MAXUINT64, t1 = 0;
  for (guint i = 0; i < model->tasks->len; i++)
    {
      const RspTask *t = &g_array_index (model->tasks, RspTask, i);
      if (t->pid != pid || t->is_idle || t->n_runs == 0 || t->end <= from)
        continue;
      RspIdx idx = i;
      g_array_append_val (targets, idx);
      t0 = MIN (t0, t->start);
      t1 = MAX (t1, t->end);
      if (t->tid == pid)
        a->target_task = i;
    }
  if (targets->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("process %d never ran in the recording"), pid);
      rsp_analysis_free (a);
      return NULL;
    }
  a->start = MAX (t0, from);
  a->end = MIN (t1, to);
  if (a->end <= a->start)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("process %d did nothing in the chosen time range"), pid);
      rsp_analysis_free (a);
      return NULL;
    }

  /* control path 0: one lane per thread of the process */
  guint32 p0 = new_path (a, a->start, a->end);
  guint first = a->segments->len;
  guint n = 0;
  guint64 total = 0;
  for (guint i = 0; i < targets->len; i++)
    {
      const RspTask *t = &g_array_index (model->tasks, RspTask, g_array_index (targets, RspIdx, i));
      guint64 l0 = MAX (t->start, a->start), l1 = MIN (t->end, a->end);
      if (l1 <= l0)
        continue;
      n += emit_timeline (a, g_array_index (targets, RspIdx, i), l0, l1, p0, 0, RSP_NONE);
      total += l1 - l0;
    }
  RspControlPath *path0 = &g_array_index (a->paths, RspControlPath, p0);
  path0->first_root = first;
  path0->n_roots = n;
  path0->total = total;
  expand_children (a, first, n);

  /* accounting: every root segment of every path, recursively */
  for (guint p = 0; p < a->paths->len; p++)
    {
      const RspControlPath *path = &g_array_index (a->paths, RspControlPath, p);
      for (guint k = 0; k < path->n_roots; k++)
        account (a, path->first_root + k);
    }
  index_stretches (a);

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

  g_array_sort (a->findings, compare_findings);
  return a;
}

void
rsp_analysis_free (RspAnalysis *a)
{
  if (a == NULL)
    return;
  for (guint t = 0; t < a->n_tasks; t++)
    {
      if (a->task_runs != NULL && a->task_runs[t] != NULL)
        g_array_unref (a->task_runs[t]);
      if (a->task_disk_ops != NULL && a->task_disk_ops[t] != NULL)
        g_array_unref (a->task_disk_ops[t]);
    }
  g_free (a->task_runs);
  g_free (a->task_disk_ops);
  g_free (a->covered_until);
  g_free (a->covered_path);
  g_clear_pointer (&a->device_ops, g_hash_table_unref);
  for (guint i = 0; i < a->paths->len; i++)
    g_array_unref (g_array_index (a->paths, RspControlPath, i).task_time);
  for (guint i = 0; i < a->findings->len; i++)
    {
      RspFinding *f = &g_array_index (a->findings, RspFinding, i);
      g_array_unref (f->path);
    }
  g_array_unref (a->segments);
  g_array_unref (a->paths);
  g_hash_table_unref (a->path_of_run);
  g_hash_table_unref (a->path_task_ns);
  g_hash_table_unref (a->finding_index);
  g_array_unref (a->findings);
  g_array_unref (a->finding_best);
  g_clear_pointer (&a->stretches, g_array_unref);
  g_free (a->seg_first_stretch);
  rsp_model_unref (a->m);
  g_free (a);
}

/* ------------------------------------------------------------------ queries */

const RspModel *rsp_analysis_model (const RspAnalysis *a) { return a->m; }
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
