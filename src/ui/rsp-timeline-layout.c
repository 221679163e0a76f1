/* rsp-timeline-layout.c — the process running view's layout: which tasks
 * get a row, in which order (process tree, first activity or pid; the
 * process of interest first), and per row the runs, sleeps and operations
 * in range as time-sorted spans (rsp-timeline-private.h); the links between
 * rows.  Built once per (model, options); drawing never walks the model. */
#include "rsp-timeline-private.h"
#include "rsp-sort.h"

#include <stdlib.h>
#include <string.h>

void
rsp_timeline_options_init (RspTimelineOptions *options)
{
  g_return_if_fail (options != NULL);
  memset (options, 0, sizeof *options);
  options->show_links = TRUE;
  options->summary_fraction = 0.005;
  options->sort = RSP_TIMELINE_SORT_TREE;
}

/* ------------------------------------------------------------------ layout */

typedef struct {
  gint32 pid;
  guint64 first_activity;
  GArray *tasks;       /* RspIdx */
  GPtrArray *children; /* Group, borrowed: the processes it forked (tree order) */
  gboolean placed;
} Group;

typedef struct {
  const RspModel *model;
  const guint64 *first_activity;
  RspTimelineSort sort;
  gint32 target;
} SortCtx;

static gint
compare_groups (gconstpointer a, gconstpointer b, gpointer data)
{
  const Group *ga = *(Group *const *) a, *gb = *(Group *const *) b;
  const SortCtx *ctx = data;
  if ((ga->pid == ctx->target) != (gb->pid == ctx->target))
    return ga->pid == ctx->target ? -1 : 1;
  if (ctx->sort != RSP_TIMELINE_SORT_PID && ga->first_activity != gb->first_activity)
    return ga->first_activity < gb->first_activity ? -1 : 1;
  return ga->pid < gb->pid ? -1 : ga->pid > gb->pid ? 1 : 0;
}

static gint
compare_tasks (gconstpointer a, gconstpointer b, gpointer data)
{
  RspIdx ia = *(const RspIdx *) a, ib = *(const RspIdx *) b;
  const SortCtx *ctx = data;
  const RspTask *ta = rsp_model_task (ctx->model, ia), *tb = rsp_model_task (ctx->model, ib);
  if (ctx->sort != RSP_TIMELINE_SORT_PID && ctx->first_activity[ia] != ctx->first_activity[ib])
    return ctx->first_activity[ia] < ctx->first_activity[ib] ? -1 : 1;
  if (ta->tid != tb->tid)
    return ta->tid < tb->tid ? -1 : 1;
  return ta->generation < tb->generation ? -1 : ta->generation > tb->generation ? 1 : 0;
}

static void
group_free (gpointer data)
{
  Group *g = data;
  g_array_unref (g->tasks);
  g_ptr_array_unref (g->children);
  g_free (g);
}

/* The nearest ancestor process of G that has rows: follow its tasks'
 * parents (threads and exec generations stay in the process, processes the
 * layout hides are skipped: make's compilers hang under make, not under the
 * hidden shells between).  0 when there is none. */
static gint32
parent_process (const RspModel *m, const Group *g, GHashTable *by_pid)
{
  for (guint k = 0; k < g->tasks->len; k++)
    {
      RspIdx p = rsp_model_task (m, g_array_index (g->tasks, RspIdx, k))->parent;
      /* bounded: a damaged recording must not loop */
      for (guint hops = 0; p != RSP_NONE && p < rsp_model_n_tasks (m) && hops < 256; hops++)
        {
          const RspTask *pt = rsp_model_task (m, p);
          if (pt->pid != g->pid && g_hash_table_contains (by_pid, GINT_TO_POINTER (pt->pid)))
            return pt->pid;
          p = pt->parent;
        }
    }
  return 0;
}

/* Places ROOT's process tree in ORDER, depth first, children by first
 * activity. */
static void
place_tree (Group *root, GPtrArray *order, SortCtx *ctx)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      Group *g = g_ptr_array_steal_index (stack, stack->len - 1);
      if (g->placed) /* pid reuse can make a cycle */
        continue;
      g->placed = TRUE;
      g_ptr_array_add (order, g);
      g_ptr_array_sort_with_data (g->children, compare_groups, ctx);
      for (guint i = g->children->len; i > 0; i--)
        g_ptr_array_add (stack, g_ptr_array_index (g->children, i - 1));
    }
}

typedef struct {
  guint32 root;
  guint32 links;
} Neighbour;

/* Orders GROUPS as process trees, each process followed by the processes it
 * forked (depth first, siblings by first activity): a pipeline reads top to
 * bottom and a wake-up between parent and child is a short line.  The trees
 * themselves: the process of interest's first, then repeatedly the tree
 * with the most wake-up, fork and exec links (in [FROM, TO]) to the trees
 * already placed — whom the process of interest waits on comes next to it —
 * and, when none is linked, the earliest.  Returns the order (borrowed). */
static GPtrArray *
order_as_tree (const RspModel *m, GPtrArray *groups, GHashTable *by_pid, SortCtx *ctx, guint64 from, guint64 to)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new ();
  for (guint i = 0; i < groups->len; i++)
    {
      Group *g = g_ptr_array_index (groups, i);
      gint32 parent = g->pid == ctx->target ? 0 : parent_process (m, g, by_pid);
      Group *pg = parent > 0 ? g_hash_table_lookup (by_pid, GINT_TO_POINTER (parent)) : NULL;
      if (pg != NULL && pg != g)
        g_ptr_array_add (pg->children, g);
      else
        g_ptr_array_add (roots, g);
    }
  g_ptr_array_sort_with_data (roots, compare_groups, ctx);
  guint n_roots = roots->len;

  /* the tree (root index) of each kept task */
  guint n_tasks = rsp_model_n_tasks (m);
  g_autofree guint32 *tree_of_task = g_new (guint32, MAX (n_tasks, 1));
  for (guint t = 0; t < n_tasks; t++)
    tree_of_task[t] = G_MAXUINT32;
  for (guint r = 0; r < n_roots; r++)
    {
      g_autoptr (GPtrArray) stack = g_ptr_array_new ();
      g_ptr_array_add (stack, g_ptr_array_index (roots, r));
      for (guint depth = 0; stack->len > 0 && depth < groups->len; depth++)
        {
          Group *g = g_ptr_array_steal_index (stack, stack->len - 1);
          RspIdx first = g_array_index (g->tasks, RspIdx, 0);
          if (tree_of_task[first] != G_MAXUINT32)
            continue;
          for (guint k = 0; k < g->tasks->len; k++)
            tree_of_task[g_array_index (g->tasks, RspIdx, k)] = r;
          for (guint c = 0; c < g->children->len; c++)
            g_ptr_array_add (stack, g_ptr_array_index (g->children, c));
        }
    }

  /* links between trees, counted once per pair */
  g_autoptr (GHashTable) pairs = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < rsp_model_n_links (m); i++)
    {
      const RspLink *l = rsp_model_link (m, i);
      if ((l->kind != RSP_LINK_WAKEUP && l->kind != RSP_LINK_FORK && l->kind != RSP_LINK_EXEC)
          || l->from_run == RSP_NONE || l->to_run == RSP_NONE || l->time < from || l->time > to)
        continue;
      RspIdx ta = rsp_model_run (m, l->from_run)->task, tb = rsp_model_run (m, l->to_run)->task;
      if (ta >= n_tasks || tb >= n_tasks)
        continue;
      guint32 a = tree_of_task[ta], b = tree_of_task[tb];
      if (a == G_MAXUINT32 || b == G_MAXUINT32 || a == b)
        continue;
      gpointer key = (gpointer) (guintptr) (((guint64) MIN (a, b) << 32) | MAX (a, b));
      g_hash_table_insert (pairs, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (pairs, key)) + 1));
    }
  g_autofree GArray **neighbours = g_new0 (GArray *, MAX (n_roots, 1));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, pairs);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      guint64 k = (guintptr) key;
      guint32 ends[2] = { (guint32) (k >> 32), (guint32) k };
      for (guint e = 0; e < 2; e++)
        {
          if (neighbours[ends[e]] == NULL)
            neighbours[ends[e]] = g_array_new (FALSE, FALSE, sizeof (Neighbour));
          Neighbour n = { ends[1 - e], GPOINTER_TO_UINT (value) };
          g_array_append_val (neighbours[ends[e]], n);
        }
    }

  GPtrArray *order = g_ptr_array_sized_new (groups->len);
  g_autofree guint64 *score = g_new0 (guint64, MAX (n_roots, 1));
  g_autofree gboolean *done = g_new0 (gboolean, MAX (n_roots, 1));
  /* trees with links to the placed ones and not placed yet: the only ones
   * a step has to look at (most trees are linked to nothing) */
  g_autoptr (GArray) linked = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint earliest = 0;
  for (guint step = 0; step < n_roots; step++)
    {
      guint best = G_MAXUINT, best_at = 0;
      for (guint i = 0; i < linked->len; i++)
        {
          guint32 r = g_array_index (linked, guint32, i);
          /* ties go to the earlier tree */
          if (best == G_MAXUINT || score[r] > score[best] || (score[r] == score[best] && r < best))
            {
              best = r;
              best_at = i;
            }
        }
      if (best != G_MAXUINT)
        g_array_remove_index_fast (linked, best_at);
      else
        {
          while (done[earliest])
            earliest++;
          best = earliest;
        }
      done[best] = TRUE;
      place_tree (g_ptr_array_index (roots, best), order, ctx);
      if (neighbours[best] != NULL)
        for (guint i = 0; i < neighbours[best]->len; i++)
          {
            const Neighbour *n = &g_array_index (neighbours[best], Neighbour, i);
            if (done[n->root])
              continue;
            if (score[n->root] == 0)
              g_array_append_val (linked, n->root);
            score[n->root] += n->links;
          }
    }
  for (guint r = 0; r < n_roots; r++)
    if (neighbours[r] != NULL)
      g_array_unref (neighbours[r]);
  /* groups only reachable through a cycle */
  for (guint i = 0; i < groups->len; i++)
    {
      Group *g = g_ptr_array_index (groups, i);
      if (!g->placed)
        g_ptr_array_add (order, g);
    }
  return order;
}

static gint
compare_span_start (gconstpointer a, gconstpointer b)
{
  const Span *sa = a, *sb = b;
  if (sa->start != sb->start)
    return sa->start < sb->start ? -1 : 1;
  return sa->end < sb->end ? -1 : sa->end > sb->end ? 1 : 0;
}

/* Sorts SPANS[first, first + n) by start (they nearly always are already:
 * the model appends a task's runs in order) and fills the prefix values. */
static void
finish_row_spans (GArray *spans, guint32 first, guint32 n)
{
  Span *s = &g_array_index (spans, Span, first);
  gboolean sorted = TRUE;
  for (guint32 i = 1; i < n && sorted; i++)
    sorted = compare_span_start (&s[i - 1], &s[i]) <= 0;
  if (!sorted)
    qsort (s, n, sizeof *s, compare_span_start);
  guint64 reach = 0, busy = 0;
  for (guint32 i = 0; i < n; i++)
    {
      reach = MAX (reach, s[i].end);
      s[i].reach = reach;
      s[i].busy_before = busy;
      busy += s[i].end - s[i].start;
    }
}

static gboolean
overlaps (guint64 start, guint64 end, guint64 from, guint64 to)
{
  return start <= to && end >= from;
}

static guint
digits (gint64 v)
{
  guint n = v < 0 ? 2 : 1;
  for (v = v < 0 ? -v : v; v >= 10; v /= 10)
    n++;
  return n;
}

static gint
compare_u32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static void
add_op_row (RspTimelineLayout *layout, RspTimelineRowKind kind, guint32 dev, guint32 group, GArray *op_spans)
{
  RspTimelineRow row = { 0 };
  row.kind = kind;
  row.task = RSP_NONE;
  row.dev = dev;
  row.group = group;
  row.first_in_group = layout->rows->len == layout->n_task_rows;
  row.n_items = op_spans->len;
  RowSpans rs = { layout->spans->len, op_spans->len, 0, 0 };
  g_array_append_vals (layout->spans, op_spans->data, op_spans->len);
  finish_row_spans (layout->spans, rs.first, rs.n);
  g_array_append_val (layout->rows, row);
  g_array_append_val (layout->row_spans, rs);
  guint chars = kind == RSP_TIMELINE_ROW_DISK ? 5 + digits (dev >> 20) + 1 + digits (dev & 0xfffff) : 7;
  layout->max_label_chars = MAX (layout->max_label_chars, chars);
}

/* Disk rows (one per device, by device number) and the network row. */
static void
build_op_rows (RspTimelineLayout *layout, guint32 group)
{
  const RspModel *m = layout->model;
  g_autoptr (GHashTable) by_dev = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                         (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < rsp_model_n_disk_ops (m); i++)
    {
      const RspDiskOp *op = rsp_model_disk_op (m, i);
      /* drawn from its insert (else its issue) to its completion (else
       * its issue), its service from MID */
      RspDiskOpSpans sp = rsp_disk_op_spans (op, 0);
      guint64 start = op->insert != 0 ? op->insert : op->issue;
      guint64 end = sp.end != 0 ? sp.end : sp.served != 0 ? sp.served : start;
      guint64 mid = sp.served != 0 ? sp.served : start;
      if (start == 0 || !overlaps (start, end, layout->start, layout->end))
        continue;
      GArray *list = g_hash_table_lookup (by_dev, GUINT_TO_POINTER (op->dev));
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (Span));
          g_hash_table_insert (by_dev, GUINT_TO_POINTER (op->dev), list);
        }
      Span s = { start, end, mid, 0, 0, i };
      g_array_append_val (list, s);
    }
  g_autoptr (GArray) devs = g_array_new (FALSE, FALSE, sizeof (guint32));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, by_dev);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      guint32 dev = GPOINTER_TO_UINT (key);
      g_array_append_val (devs, dev);
    }
  g_array_sort (devs, compare_u32);
  for (guint i = 0; i < devs->len; i++)
    {
      guint32 dev = g_array_index (devs, guint32, i);
      add_op_row (layout, RSP_TIMELINE_ROW_DISK, dev, group,
                  g_hash_table_lookup (by_dev, GUINT_TO_POINTER (dev)));
    }

  g_autoptr (GArray) net = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < rsp_model_n_net_ops (m); i++)
    {
      const RspNetOp *op = rsp_model_net_op (m, i);
      guint64 start = op->send != 0 && op->send <= op->ready ? op->send : op->ready;
      if (op->ready == 0 || !overlaps (start, op->ready, layout->start, layout->end))
        continue;
      Span s = { start, op->ready, start, 0, 0, i };
      g_array_append_val (net, s);
    }
  if (net->len > 0)
    add_op_row (layout, RSP_TIMELINE_ROW_NETWORK, 0, group, net);
}

static gint
op_row_of (const RspTimelineLayout *layout, RspLinkKind kind, RspIdx op)
{
  const RspModel *m = layout->model;
  for (guint r = layout->n_task_rows; r < layout->rows->len; r++)
    {
      const RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, r);
      if (kind == RSP_LINK_DISK && row->kind == RSP_TIMELINE_ROW_DISK && op < rsp_model_n_disk_ops (m)
          && rsp_model_disk_op (m, op)->dev == row->dev)
        return (gint) r;
      if (kind == RSP_LINK_NETWORK && row->kind == RSP_TIMELINE_ROW_NETWORK)
        return (gint) r;
    }
  return -1;
}

/* The layout's links in time order, equal times in the model's order.
 * The model keeps them in the order their wake-ups were matched, about
 * half of them out of time order (a 290 MB recording's 690,000; see
 * rsp-sort.h). */
static void
sort_links (RspTimelineLayout *layout)
{
  guint n = layout->links->len;
  g_autofree LinkRef *tmp = g_new (LinkRef, MAX (n, 1));
  rsp_sort_by_key (layout->links->data, n, sizeof (LinkRef), G_STRUCT_OFFSET (LinkRef, time), tmp);
}

static void
build_links (RspTimelineLayout *layout)
{
  const RspModel *m = layout->model;
  for (guint i = 0; i < rsp_model_n_links (m); i++)
    {
      const RspLink *l = rsp_model_link (m, i);
      if (l->to_run == RSP_NONE || l->time < layout->start || l->time > layout->end)
        continue;
      gint from = -1;
      switch (l->kind)
        {
        case RSP_LINK_WAKEUP:
        case RSP_LINK_FORK:
        case RSP_LINK_EXEC:
          if (l->from_run != RSP_NONE)
            from = layout->task_row[rsp_model_run (m, l->from_run)->task];
          break;
        case RSP_LINK_DISK:
        case RSP_LINK_NETWORK:
          from = op_row_of (layout, l->kind, l->from_op);
          break;
        case RSP_LINK_INTERRUPT:
        case RSP_LINK_PREEMPTION:
        default:
          /* horizontal: same row, nothing to draw between rows */
          break;
        }
      gint to = layout->task_row[rsp_model_run (m, l->to_run)->task];
      if (from < 0 || to < 0 || from == to)
        continue;
      LinkRef ref = { l->time, (guint32) from, (guint32) to, i };
      g_array_append_val (layout->links, ref);
    }
  sort_links (layout);
}

/* What each task did within the layout's range. */
typedef struct {
  guint32 *n_runs, *n_sleeps; /* runs and (drawn) sleeps that overlap the range */
  guint64 *cpu;               /* ns on CPU within the range */
  guint64 *first_activity;    /* its first run or sleep, clipped to the range; G_MAXUINT64: none */
} Activity;

static void
activity_clear (Activity *act)
{
  g_free (act->n_runs);
  g_free (act->n_sleeps);
  g_free (act->cpu);
  g_free (act->first_activity);
}

static gboolean
run_in_range (const RspTimelineLayout *layout, const RspRun *run)
{
  return run->task < layout->n_tasks && run->end >= run->start
         && overlaps (run->start, run->end, layout->start, layout->end);
}

static gboolean
sleep_in_range (const RspTimelineLayout *layout, const RspSleep *sl)
{
  /* a fork's zero-length "sleep" is not a wait worth a box */
  return sl->task < layout->n_tasks && sl->end > sl->start
         && overlaps (sl->start, sl->end, layout->start, layout->end);
}

static void
count_activity (const RspTimelineLayout *layout, Activity *act)
{
  const RspModel *model = layout->model;
  guint n_tasks = layout->n_tasks;
  act->n_runs = g_new0 (guint32, MAX (n_tasks, 1));
  act->n_sleeps = g_new0 (guint32, MAX (n_tasks, 1));
  act->cpu = g_new0 (guint64, MAX (n_tasks, 1));
  act->first_activity = g_new (guint64, MAX (n_tasks, 1));
  for (guint t = 0; t < n_tasks; t++)
    act->first_activity[t] = G_MAXUINT64;
  for (guint r = 0; r < rsp_model_n_runs (model); r++)
    {
      const RspRun *run = rsp_model_run (model, r);
      if (!run_in_range (layout, run))
        continue;
      act->n_runs[run->task]++;
      act->cpu[run->task] += MIN (run->end, layout->end) - MAX (run->start, layout->start);
      act->first_activity[run->task] = MIN (act->first_activity[run->task], MAX (run->start, layout->start));
    }
  if (layout->options.show_sleeps)
    for (guint s = 0; s < rsp_model_n_sleeps (model); s++)
      {
        const RspSleep *sl = rsp_model_sleep (model, s);
        if (!sleep_in_range (layout, sl))
          continue;
        act->n_sleeps[sl->task]++;
        act->first_activity[sl->task] = MIN (act->first_activity[sl->task], MAX (sl->start, layout->start));
      }
}

/* Whether TASK passes FILTER (case-folded): its command holds it, or it
 * is the task's pid or tid. */
static gboolean
task_matches (const RspTask *task, const char *filter)
{
  if (filter == NULL || *filter == '\0')
    return TRUE;
  char *end;
  gint64 n = g_ascii_strtoll (filter, &end, 10);
  if (*end == '\0' && end != filter && (n == task->pid || n == task->tid))
    return TRUE;
  if (task->comm == NULL)
    return FALSE;
  g_autofree char *comm = g_utf8_casefold (task->comm, -1);
  return strstr (comm, filter) != NULL;
}

/* The tasks kept, grouped by process into GROUPS (and GROUPS_BY_PID);
 * the summary hides those with little CPU time (counted in n_hidden). */
static void
group_tasks (RspTimelineLayout *layout, const Activity *act, GHashTable *groups_by_pid, GPtrArray *groups)
{
  const RspModel *model = layout->model;
  const RspTimelineOptions *options = &layout->options;
  guint64 busiest = 0;
  for (guint t = 0; t < layout->n_tasks; t++)
    {
      const RspTask *task = rsp_model_task (model, t);
      if (!task->is_idle && !task->ignored)
        busiest = MAX (busiest, act->cpu[t]);
    }
  guint64 threshold = (guint64) (options->summary_fraction * (double) busiest);
  for (guint t = 0; t < layout->n_tasks; t++)
    {
      const RspTask *task = rsp_model_task (model, t);
      if (task->is_idle || task->ignored)
        continue;
      if (act->n_runs[t] == 0 && act->n_sleeps[t] == 0)
        continue;
      /* The summary keeps the process of interest whatever it did: when it
       * only waits, the wait is what the user came to see. */
      gboolean of_interest = options->pid > 0 && task->pid == options->pid;
      if (options->summary && !of_interest && (act->n_runs[t] == 0 || act->cpu[t] < threshold))
        {
          layout->n_hidden++;
          continue;
        }
      if (!of_interest && !task_matches (task, options->filter))
        {
          layout->n_hidden++;
          continue;
        }
      Group *g = g_hash_table_lookup (groups_by_pid, GINT_TO_POINTER (task->pid));
      if (g == NULL)
        {
          g = g_new0 (Group, 1);
          g->pid = task->pid;
          g->first_activity = G_MAXUINT64;
          g->tasks = g_array_new (FALSE, FALSE, sizeof (RspIdx));
          g->children = g_ptr_array_new ();
          g_hash_table_insert (groups_by_pid, GINT_TO_POINTER (task->pid), g);
          g_ptr_array_add (groups, g);
        }
      RspIdx idx = t;
      g_array_append_val (g->tasks, idx);
      g->first_activity = MIN (g->first_activity, act->first_activity[t]);
    }
}

/* The groups in the order of the rows (borrowed from GROUPS). */
static GPtrArray *
sorted_groups (const RspTimelineLayout *layout, GPtrArray *groups, GHashTable *groups_by_pid, SortCtx *ctx)
{
  if (layout->options.sort == RSP_TIMELINE_SORT_TREE)
    return order_as_tree (layout->model, groups, groups_by_pid, ctx, layout->start, layout->end);
  g_ptr_array_sort_with_data (groups, compare_groups, ctx);
  /* borrowed: g_ptr_array_copy would copy the free function too */
  GPtrArray *order = g_ptr_array_sized_new (groups->len);
  for (guint i = 0; i < groups->len; i++)
    g_ptr_array_add (order, g_ptr_array_index (groups, i));
  return order;
}

/* The groups in the order of the rows: the process of interest, then the
 * processes on its control paths (PATH_PIDS, in their order), then the
 * others as the sort places them. */
static GPtrArray *
order_groups (const RspTimelineLayout *layout, GPtrArray *groups, GHashTable *groups_by_pid, SortCtx *ctx)
{
  GPtrArray *sorted = sorted_groups (layout, groups, groups_by_pid, ctx);
  if (layout->options.n_path_pids == 0)
    return sorted;
  GPtrArray *order = g_ptr_array_sized_new (sorted->len);
  g_autoptr (GHashTable) first = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < sorted->len; i++)
    {
      Group *g = g_ptr_array_index (sorted, i);
      if (g->pid == ctx->target)
        {
          g_ptr_array_add (order, g);
          g_hash_table_add (first, g);
        }
    }
  for (guint k = 0; k < layout->options.n_path_pids; k++)
    {
      Group *g = g_hash_table_lookup (groups_by_pid, GINT_TO_POINTER (layout->options.path_pids[k]));
      if (g != NULL && !g_hash_table_contains (first, g))
        {
          g_ptr_array_add (order, g);
          g_hash_table_add (first, g);
        }
    }
  for (guint i = 0; i < sorted->len; i++)
    if (!g_hash_table_contains (first, g_ptr_array_index (sorted, i)))
      g_ptr_array_add (order, g_ptr_array_index (sorted, i));
  g_ptr_array_unref (sorted);
  return order;
}

/* Whether the threads of process G share one row: by default every
 * multi-threaded process's but the process of interest's, each process
 * in TOGGLED the other way. */
/* The threads of process G: its distinct tids (a task per exec
 * generation shares its tid). */
static guint
n_threads (const RspModel *m, const Group *g)
{
  g_autoptr (GHashTable) tids = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint k = 0; k < g->tasks->len; k++)
    g_hash_table_add (tids, GINT_TO_POINTER (rsp_model_task (m, g_array_index (g->tasks, RspIdx, k))->tid));
  return g_hash_table_size (tids);
}

static gboolean
folds (const RspTimelineLayout *layout, const Group *g, guint threads)
{
  const RspTimelineOptions *o = &layout->options;
  if (!o->fold_threads || threads < 2)
    return FALSE;
  gboolean fold = !(o->pid > 0 && g->pid == o->pid);
  for (guint i = 0; i < o->n_toggled; i++)
    if (o->toggled[i] == g->pid)
      return !fold;
  return fold;
}

/* One row per kept task, group after group, with the place of its spans
 * (one row for all the threads of a folded process): runs of a task are
 * contiguous in the model's order only per task, so spans are counted here
 * and scattered by fill_spans. */
static void
add_task_rows (RspTimelineLayout *layout, GPtrArray *order, const Activity *act, SortCtx *ctx)
{
  const RspModel *model = layout->model;
  guint32 run_total = 0, sleep_total = 0;
  for (guint gi = 0; gi < order->len; gi++)
    {
      Group *g = g_ptr_array_index (order, gi);
      g_array_sort_with_data (g->tasks, compare_tasks, ctx);
      guint threads = g->tasks->len > 1 ? n_threads (model, g) : 1;
      gboolean folded = folds (layout, g, threads);
      for (guint k = 0; k < g->tasks->len; k++)
        {
          RspIdx t = g_array_index (g->tasks, RspIdx, k);
          const RspTask *task = rsp_model_task (model, t);
          if (folded && k > 0)
            {
              /* a thread of a folded process: its spans go to the process's row */
              RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, layout->rows->len - 1);
              RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, layout->rows->len - 1);
              row->cpu_ns += act->cpu[t];
              row->n_items += act->n_runs[t];
              if (task->tid == task->pid)
                row->task = t; /* named after the main thread */
              rs->n += act->n_runs[t];
              rs->sleeps_n += act->n_sleeps[t];
              run_total += act->n_runs[t];
              sleep_total += act->n_sleeps[t];
              layout->task_row[t] = (gint) layout->rows->len - 1;
              continue;
            }
          RspTimelineRow row = { 0 };
          row.kind = RSP_TIMELINE_ROW_TASK;
          row.task = t;
          row.pid = task->pid;
          row.group = gi;
          row.first_in_group = k == 0;
          row.cpu_ns = act->cpu[t];
          row.n_items = act->n_runs[t];
          row.threads = threads;
          row.folded = folded;
          RowSpans rs = { run_total, act->n_runs[t], sleep_total, act->n_sleeps[t] };
          run_total += act->n_runs[t];
          sleep_total += act->n_sleeps[t];
          layout->task_row[t] = (gint) layout->rows->len;
          g_array_append_val (layout->rows, row);
          g_array_append_val (layout->row_spans, rs);
          /* the label: the fold mark, the name, the id column ("tid", or "pid ×N") */
          guint chars = (task->comm != NULL ? g_utf8_strlen (task->comm, -1) : 9) + 1 + digits (task->tid)
                        + (task->tid != task->pid ? 2 : 0) + (threads > 1 ? 3 + (folded ? 2 + digits (threads) : 0) : 0);
          layout->max_label_chars = MAX (layout->max_label_chars, chars);
        }
    }
  layout->n_task_rows = layout->rows->len;
  g_array_set_size (layout->spans, run_total);
  g_array_set_size (layout->sleep_spans, sleep_total);
}

/* Copies every run (and sleep) in the range into its row's spans. */
static void
fill_spans (RspTimelineLayout *layout)
{
  const RspModel *model = layout->model;
  g_autofree guint32 *fill = g_new0 (guint32, MAX (layout->n_task_rows, 1));
  for (guint r = 0; r < rsp_model_n_runs (model); r++)
    {
      const RspRun *run = rsp_model_run (model, r);
      if (!run_in_range (layout, run) || layout->task_row[run->task] < 0)
        continue;
      guint row = (guint) layout->task_row[run->task];
      const RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, row);
      Span *s = &g_array_index (layout->spans, Span, rs->first + fill[row]++);
      *s = (Span) { run->start, run->end, run->start, 0, 0, r };
    }
  memset (fill, 0, sizeof (guint32) * MAX (layout->n_task_rows, 1));
  if (layout->options.show_sleeps)
    for (guint i = 0; i < rsp_model_n_sleeps (model); i++)
      {
        const RspSleep *sl = rsp_model_sleep (model, i);
        if (!sleep_in_range (layout, sl) || layout->task_row[sl->task] < 0)
          continue;
        guint row = (guint) layout->task_row[sl->task];
        const RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, row);
        guint64 woken = sl->runnable_at >= sl->start && sl->runnable_at <= sl->end ? sl->runnable_at : sl->end;
        if (sl->reason == RSP_WAKE_PREEMPTION)
          woken = sl->start;
        Span *s = &g_array_index (layout->sleep_spans, Span, rs->sleeps_first + fill[row]++);
        *s = (Span) { sl->start, sl->end, woken, 0, 0, i };
      }
  for (guint row = 0; row < layout->n_task_rows; row++)
    {
      const RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, row);
      finish_row_spans (layout->spans, rs->first, rs->n);
      finish_row_spans (layout->sleep_spans, rs->sleeps_first, rs->sleeps_n);
    }
}

RspTimelineLayout *
rsp_timeline_layout_new (const RspModel *model, const RspTimelineOptions *options)
{
  g_return_val_if_fail (model != NULL, NULL);
  RspTimelineOptions defaults;
  if (options == NULL)
    {
      rsp_timeline_options_init (&defaults);
      options = &defaults;
    }
  RspTimelineLayout *layout = g_new0 (RspTimelineLayout, 1);
  layout->model = model;
  layout->options = *options;
  layout->options.filter = options->filter != NULL && *options->filter != '\0' ? g_strdup (options->filter) : NULL;
  layout->options.toggled = options->n_toggled > 0 ? g_memdup2 (options->toggled, options->n_toggled * sizeof (gint32))
                                                     : NULL;
  layout->options.n_toggled = layout->options.toggled != NULL ? options->n_toggled : 0;
  layout->options.path_pids = options->n_path_pids > 0
                                  ? g_memdup2 (options->path_pids, options->n_path_pids * sizeof (gint32))
                                  : NULL;
  layout->options.n_path_pids = layout->options.path_pids != NULL ? options->n_path_pids : 0;
  layout->start = options->from != 0 ? options->from : rsp_model_start_time (model);
  layout->end = options->to != 0 ? options->to : rsp_model_end_time (model);
  if (layout->end <= layout->start)
    layout->end = layout->start + 1;
  layout->rows = g_array_new (FALSE, TRUE, sizeof (RspTimelineRow));
  layout->row_spans = g_array_new (FALSE, TRUE, sizeof (RowSpans));
  layout->spans = g_array_new (FALSE, FALSE, sizeof (Span));
  layout->sleep_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  layout->links = g_array_new (FALSE, FALSE, sizeof (LinkRef));
  layout->n_tasks = rsp_model_n_tasks (model);
  layout->task_row = g_new (gint, MAX (layout->n_tasks, 1));
  for (guint t = 0; t < layout->n_tasks; t++)
    layout->task_row[t] = -1;

  Activity act;
  count_activity (layout, &act);
  g_autoptr (GHashTable) groups_by_pid = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (group_free);
  group_tasks (layout, &act, groups_by_pid, groups);
  SortCtx ctx = { model, act.first_activity, options->sort, options->pid };
  g_autoptr (GPtrArray) order = order_groups (layout, groups, groups_by_pid, &ctx);
  add_task_rows (layout, order, &act, &ctx);
  fill_spans (layout);
  activity_clear (&act);

  build_op_rows (layout, groups->len);
  if (options->show_links)
    build_links (layout);
  return layout;
}

void
rsp_timeline_layout_free (RspTimelineLayout *layout)
{
  if (layout == NULL)
    return;
  g_free ((char *) layout->options.filter);
  g_free ((gint32 *) layout->options.toggled);
  g_free ((gint32 *) layout->options.path_pids);
  g_array_unref (layout->rows);
  g_array_unref (layout->row_spans);
  g_array_unref (layout->spans);
  g_array_unref (layout->sleep_spans);
  g_array_unref (layout->links);
  g_free (layout->task_row);
  g_free (layout);
}

const RspModel *
rsp_timeline_layout_model (const RspTimelineLayout *layout)
{
  return layout->model;
}

const RspTimelineOptions *
rsp_timeline_layout_options (const RspTimelineLayout *layout)
{
  return &layout->options;
}

guint64
rsp_timeline_layout_start (const RspTimelineLayout *layout)
{
  return layout->start;
}

guint64
rsp_timeline_layout_end (const RspTimelineLayout *layout)
{
  return layout->end;
}

guint
rsp_timeline_layout_n_rows (const RspTimelineLayout *layout)
{
  return layout->rows->len;
}

guint
rsp_timeline_layout_n_task_rows (const RspTimelineLayout *layout)
{
  return layout->n_task_rows;
}

const RspTimelineRow *
rsp_timeline_layout_row (const RspTimelineLayout *layout, guint row)
{
  g_return_val_if_fail (row < layout->rows->len, NULL);
  return &g_array_index (layout->rows, RspTimelineRow, row);
}

gint
rsp_timeline_layout_task_row (const RspTimelineLayout *layout, RspIdx task)
{
  g_return_val_if_fail (layout != NULL, -1);
  return task < layout->n_tasks ? layout->task_row[task] : -1;
}

guint
rsp_timeline_layout_n_hidden (const RspTimelineLayout *layout)
{
  return layout->n_hidden;
}
