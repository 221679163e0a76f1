/* rsp-control-paths.c — the pseudo-stacks of the control paths: segments
 * (runs and sleeps of tasks, nested by who woke whom), built outward from
 * the process of interest (see rsp-analysis.h for the procedure). */
#include <string.h>

#include "rsp-analysis-private.h"

void
analysis_build_indexes (RspAnalysis *a)
{
  const RspModelIndex *x = rsp_model_get_index (a->m);
  a->n_tasks = x->n_tasks;
  a->task_runs = x->task_runs;
  a->task_disk_ops = x->task_disk_ops;
  a->task_disk_reach = x->task_disk_reach;
  a->device_ops = x->device_ops;
  a->device_reach = x->device_reach;
  a->covered = g_new0 (GArray *, MAX (x->n_tasks, 1));
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

/* ------------------------------------------------------------------ coverage */

/* A stretch of a task on control paths: the path of its first segment. */
typedef struct {
  guint64 start, end;
  guint32 path;
} RspCovered;

/* The last of C's stretches that starts at or before T, or -1. */
static gint
covered_at_or_before (const GArray *c, guint64 t)
{
  gint lo = 0, hi = (gint) c->len; /* the first that starts after T */
  while (lo < hi)
    {
      gint mid = (lo + hi) / 2;
      if (g_array_index (c, RspCovered, mid).start <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo - 1;
}

/* TASK's [START, END] is on PATH: joined with the stretches it touches
 * (segments mostly come in time order: then it extends the last one). */
static void
cover (RspAnalysis *a, RspIdx task, guint64 start, guint64 end, guint32 path)
{
  if (end <= start)
    return;
  GArray *c = a->covered[task];
  if (c == NULL)
    c = a->covered[task] = g_array_new (FALSE, FALSE, sizeof (RspCovered));
  /* the stretch it joins (keeping its path), or a new one after it; then
   * the later ones it reaches */
  gint i = covered_at_or_before (c, start);
  gboolean joined = i >= 0 && g_array_index (c, RspCovered, i).end >= start;
  RspCovered n = joined ? g_array_index (c, RspCovered, i) : (RspCovered){ start, end, path };
  if (joined && end <= n.end)
    return;
  n.end = MAX (n.end, end);
  guint at = joined ? (guint) i : (guint) (i + 1);
  guint k = joined ? at + 1 : at;
  for (; k < c->len && g_array_index (c, RspCovered, k).start <= n.end; k++)
    n.end = MAX (n.end, g_array_index (c, RspCovered, k).end);
  if (k > at)
    g_array_remove_range (c, at, k - at);
  g_array_insert_val (c, at, n);
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
  cover (a, task, start, end, path);
  return a->segments->len - 1;
}

/* Emits TASK's runs and sleeps over [WS, WE], clipped, in time order.
 * Returns the number emitted; they are contiguous from the array's end. */
guint
analysis_emit_timeline (RspAnalysis *a, RspIdx task, guint64 ws, guint64 we, guint32 path, guint16 depth, RspIdx parent)
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
  return n + analysis_emit_timeline (a, task, from, we, path, depth, parent_seg);
}

/* The run that RUN continues when it begins with an exec: the previous
 * generation's last run; RSP_NONE otherwise, or when none is known. */
static RspIdx
run_before_exec (const RspAnalysis *a, const RspRun *run)
{
  if (run->start_kind != RSP_RUN_START_EXEC)
    return RSP_NONE;
  RspIdx prev = g_array_index (a->m->tasks, RspTask, run->task).parent;
  RspIdx last = prev != RSP_NONE ? g_array_index (a->m->tasks, RspTask, prev).last_run : RSP_NONE;
  return last != RSP_NONE && run_at (a, last) != run ? last : RSP_NONE;
}

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
      if (sl == RSP_NONE)
        {
          RspIdx before = run_before_exec (a, run);
          if (before == RSP_NONE)
            return run->start;
          r = before;
          continue;
        }
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

guint32
analysis_new_path (RspAnalysis *a, guint64 start, guint64 end)
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

/* Whether task T is task OF or one of its earlier generations (before an
 * exec). */
static gboolean
same_lineage (const RspAnalysis *a, RspIdx t, RspIdx of)
{
  for (int hops = 0; of != RSP_NONE && hops < 16; hops++)
    {
      if (of == t)
        return TRUE;
      const RspTask *ot = &g_array_index (a->m->tasks, RspTask, of);
      if (ot->generation == 0)
        return FALSE;
      of = ot->parent;
    }
  return FALSE;
}

/* The wait that set W's activity going: the last before W that was not a
 * preemption, followed back across an exec (a run that begins with one
 * continues the previous generation's last run); NULL if none is known. */
static const RspSleep *
wait_before (const RspAnalysis *a, const RspRun *w)
{
  /* a child preempted many times between its fork and its exec */
  for (int hops = 0; hops < 4096; hops++)
    {
      if (w->prev_sleep != RSP_NONE)
        {
          const RspSleep *ws = sleep_at (a, w->prev_sleep);
          if (ws->reason != RSP_WAKE_PREEMPTION || ws->prev_run == RSP_NONE)
            return ws;
          w = run_at (a, ws->prev_run);
          continue;
        }
      RspIdx before = run_before_exec (a, w);
      if (before == RSP_NONE)
        return NULL;
      w = run_at (a, before);
    }
  return NULL;
}

/* Whether the waker W was set going by the sleeper itself just before it
 * slept: W's own wait before W (across an exec, the previous generation's)
 * was ended by the sleeper's last run, or W's process was forked by it, or
 * by one of the runs before it that only preemptions (or, for a fork, a
 * wake-up by W's own task) separate from the sleep.  The paper's pass
 * writes the token, then blocks reading the answer; a shell's vfork waits
 * until the child execs, then waits for it to exit.  W then works on the
 * sleeper's behalf however long the sleeper took to block after handing
 * off. */
static gboolean
handed_off (const RspAnalysis *a, const RspSleep *s, const RspRun *w)
{
  const RspSleep *ws = wait_before (a, w);
  if (ws == NULL || (ws->reason != RSP_WAKE_RUN && ws->reason != RSP_WAKE_FORK) || ws->waker_run == RSP_NONE)
    return FALSE;
  /* a thread it started is a lane of its own process, not a hand-off */
  if (ws->reason == RSP_WAKE_FORK
      && g_array_index (a->m->tasks, RspTask, ws->task).pid == g_array_index (a->m->tasks, RspTask, s->task).pid)
    return FALSE;
  RspIdx r = s->prev_run;
  for (int hops = 0; r != RSP_NONE && hops < 64; hops++)
    {
      if (r == ws->waker_run)
        return TRUE;
      const RspRun *run = run_at (a, r);
      if (run->prev_sleep == RSP_NONE)
        return FALSE;
      const RspSleep *before = sleep_at (a, run->prev_sleep);
      /* the vfork release: only for a child the sleeper forked */
      gboolean by_waker = ws->reason == RSP_WAKE_FORK && before->reason == RSP_WAKE_RUN
                          && before->waker_run != RSP_NONE
                          && same_lineage (a, run_at (a, before->waker_run)->task, w->task);
      if (before->reason != RSP_WAKE_PREEMPTION && !by_waker)
        return FALSE;
      r = before->prev_run;
    }
  return FALSE;
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
   * the tolerance), or have been set going by the sleeper's hand-off just
   * before it; how long it runs after waking the parent does not matter,
   * since the child ends at the wake-up */
  gboolean fits = (w->start + RSP_FIT_TOLERANCE_NS >= s->defacto_start || handed_off (a, s, w))
                  && w->start <= s->end + RSP_FIT_TOLERANCE_NS;
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
      analysis_expand_children (a, first, n);
      return;
    }

  /* A thread of the process of interest is a lane of control path 0
   * already: waiting for it is waiting on that lane, not a new path that
   * would count its time twice.  (In the analysis of one thread only that
   * thread is a lane: its siblings are other paths.) */
  if (wt->pid == a->pid && (a->tid <= 0 || wt->tid == a->tid) && w->end > a->start && w->start < a->end)
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
   * lane is its stretch up to the lane's end that no path has, from the end
   * of the latest stretch a path has; if a path has the lane's end (the
   * wake-up), the sleep waits on that path.  (Its latest covered stretch
   * alone was looked at: one later than the lane was taken for covering
   * it, and the waker's work before was on no path.) */
  const GArray *covered = a->covered[waker_task];
  gint c = covered != NULL ? covered_at_or_before (covered, lane_end) : -1;
  if (c >= 0)
    {
      const RspCovered *r = &g_array_index (covered, RspCovered, c);
      if (r->end >= lane_end)
        {
          seg_at (a, seg_idx)->other_path = r->path;
          return;
        }
      if (r->end > lane_start)
        lane_start = r->end;
    }
  if (lane_end <= lane_start)
    return;
  guint32 id = analysis_new_path (a, lane_start, lane_end);
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
  analysis_expand_children (a, first, n);
}

void
analysis_expand_children (RspAnalysis *a, RspIdx first, guint n)
{
  for (guint i = 0; i < n; i++)
    if (seg_at (a, first + i)->kind == RSP_SEG_SLEEP)
      expand_sleep (a, first + i);
}

/* The network peer a segment's sleep waited on (its own operation, or the
 * loopback hop that linked it). */
const char *
analysis_segment_endpoint (RspAnalysis *a, const RspSegment *s)
{
  if (s->kind != RSP_SEG_SLEEP)
    return NULL;
  const RspSleep *sl = sleep_at (a, s->item);
  return sl->net_op != RSP_NONE ? g_array_index (a->m->net_ops, RspNetOp, sl->net_op).endpoint : NULL;
}

const char *
analysis_segment_file (RspAnalysis *a, const RspSegment *s)
{
  return s->kind == RSP_SEG_SLEEP ? sleep_at (a, s->item)->file : NULL;
}
