/* test-timeline.c — the process running view on real checked-in recordings
 * (tests/data/, no perf needed): the layout's rows and order, what the
 * picture must show (runs where the model has them, the ruler, the names,
 * sleeps with their labels, links, operations) and hit testing at given
 * zooms, all computed from the model. */
#include <cairo.h>
#include <glib.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>

#include "rsp-analysis.h"
#include "rsp-theme.h"
#include "rsp-time-axis.h"
#include "rsp-timeline-view.h"

#define WIDTH 1600
#define HEIGHT 900

static RspModel *pingpong;

static RspModel *
load (const char *name)
{
  const char *root = g_getenv ("RSP_SOURCE_ROOT");
  g_autofree char *path = g_build_filename (root != NULL ? root : RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (GError) error = NULL;
  RspModel *m = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

static gint32
target_pid (const RspModel *m)
{
  const RspRecordingMeta *meta = rsp_model_meta (m);
  g_assert_nonnull (meta);
  g_assert_cmpint (meta->target_pid, >, 0);
  return meta->target_pid;
}

/* A theme with a known font size and row height, so the tests do not
 * depend on the defaults. */
static void
test_theme (RspTheme *theme)
{
  rsp_theme_init (theme, FALSE, 1.0);
  theme->font_size = 12;
  theme->row_height = 20;
}

static RspTimelineLayout *
make_layout (const RspModel *m, gboolean sleeps, gboolean links, gboolean summary)
{
  RspTimelineOptions options;
  rsp_timeline_options_init (&options);
  options.pid = target_pid (m);
  options.show_sleeps = sleeps;
  options.show_links = links;
  options.summary = summary;
  return rsp_timeline_layout_new (m, &options);
}

static RspTimelineLayout *
make_sorted_layout (const RspModel *m, RspTimelineSort sort)
{
  RspTimelineOptions options;
  rsp_timeline_options_init (&options);
  options.pid = target_pid (m);
  options.sort = sort;
  return rsp_timeline_layout_new (m, &options);
}

static cairo_surface_t *
render (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTheme *theme)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) vp->width, (int) vp->height);
  cairo_t *cr = cairo_create (s);
  rsp_timeline_view_draw (layout, vp, theme, cr);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

typedef struct {
  int r, g, b;
} Pixel;

static Pixel
pixel_at (cairo_surface_t *s, double x, double y)
{
  int ix = (int) floor (x), iy = (int) floor (y);
  g_assert_cmpint (ix, >=, 0);
  g_assert_cmpint (iy, >=, 0);
  g_assert_cmpint (ix, <, cairo_image_surface_get_width (s));
  g_assert_cmpint (iy, <, cairo_image_surface_get_height (s));
  const guint8 *data = cairo_image_surface_get_data (s);
  guint32 v = *(const guint32 *) (data + iy * cairo_image_surface_get_stride (s) + ix * 4);
  Pixel p = { (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
  return p;
}

static gboolean
is_color (Pixel p, RspColor c, int tolerance)
{
  return abs (p.r - (int) round (c.r * 255)) <= tolerance && abs (p.g - (int) round (c.g * 255)) <= tolerance
         && abs (p.b - (int) round (c.b * 255)) <= tolerance;
}

/* The run colour at any of the opacities that say how busy a pixel column
 * was: clearly red, over white or the faint band of a process group. */
static gboolean
is_run_pixel (Pixel p)
{
  return p.r - p.g > 40 && p.r - p.b > 40;
}

static double
row_center (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTheme *theme, guint row)
{
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, vp, theme, &g);
  return rsp_timeline_view_row_y (layout, vp, theme, row) + g.row_height / 2;
}

static void
viewport_axis (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTheme *theme,
               RspTimeAxis *axis)
{
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, vp, theme, &g);
  rsp_time_axis_init (axis, rsp_model_start_time (rsp_timeline_layout_model (layout)), vp->t0, vp->t1, g.plot_x,
                      g.plot_width, theme);
}

static guint
visible_task_rows (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTheme *theme)
{
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, vp, theme, &g);
  guint n = (guint) ((g.rows_bottom - g.rows_top) / g.row_height);
  return MIN (n, rsp_timeline_layout_n_task_rows (layout));
}

/* The longest run of TASK, RSP_NONE if it never ran. */
static RspIdx
longest_run (const RspModel *m, RspIdx task)
{
  RspIdx best = RSP_NONE;
  guint64 best_len = 0;
  for (RspIdx r = rsp_model_task (m, task)->first_run; r != RSP_NONE; r = rsp_model_run (m, r)->next_run)
    {
      const RspRun *run = rsp_model_run (m, r);
      if (best == RSP_NONE || run->end - run->start > best_len)
        {
          best = r;
          best_len = run->end - run->start;
        }
    }
  return best;
}

static guint64
task_cpu (const RspModel *m, RspIdx task)
{
  guint64 total = 0;
  for (RspIdx r = rsp_model_task (m, task)->first_run; r != RSP_NONE; r = rsp_model_run (m, r)->next_run)
    total += rsp_model_run (m, r)->end - rsp_model_run (m, r)->start;
  return total;
}

/* ------------------------------------------------------------------ layout */

static void
test_layout_rows (void)
{
  const RspModel *m = pingpong;
  gint32 pid = target_pid (m);
  g_autoptr (RspTimelineLayout) layout = make_layout (m, FALSE, TRUE, FALSE);
  guint n_task_rows = rsp_timeline_layout_n_task_rows (layout);
  g_assert_cmpuint (n_task_rows, >=, 2);
  g_assert_cmpuint (rsp_timeline_layout_n_hidden (layout), ==, 0);

  /* the process of interest first, its rows together */
  g_assert_cmpint (rsp_timeline_layout_row (layout, 0)->pid, ==, pid);
  gboolean left_target = FALSE;
  for (guint r = 0; r < n_task_rows; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      g_assert_cmpint (row->kind, ==, RSP_TIMELINE_ROW_TASK);
      if (row->pid != pid)
        left_target = TRUE;
      else
        g_assert_false (left_target);
      g_assert_cmpint (rsp_timeline_layout_task_row (layout, row->task), ==, (gint) r);
      g_assert_cmpuint (row->cpu_ns, ==, task_cpu (m, row->task));
      g_assert_cmpuint (row->n_items, ==, rsp_model_task (m, row->task)->n_runs);
      /* a process's rows are contiguous: first_in_group exactly when the pid changes */
      gboolean new_process = r == 0 || rsp_timeline_layout_row (layout, r - 1)->pid != row->pid;
      g_assert_cmpint (row->first_in_group, ==, new_process);
    }

  /* every task that ran has a row, except the idle tasks */
  for (RspIdx t = 0; t < rsp_model_n_tasks (m); t++)
    {
      const RspTask *task = rsp_model_task (m, t);
      gboolean expected = task->n_runs > 0 && !task->is_idle && !task->ignored;
      g_assert_cmpint (rsp_timeline_layout_task_row (layout, t) >= 0, ==, expected);
    }

  /* processes after the first by first activity, when asked */
  g_autoptr (RspTimelineLayout) by_time = make_sorted_layout (m, RSP_TIMELINE_SORT_FIRST_ACTIVITY);
  g_assert_cmpuint (rsp_timeline_layout_n_task_rows (by_time), ==, n_task_rows);
  guint64 prev = 0;
  for (guint r = 0; r < n_task_rows; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (by_time, r);
      if (!row->first_in_group || row->pid == pid)
        continue;
      guint64 first = G_MAXUINT64;
      for (guint k = r; k < n_task_rows && rsp_timeline_layout_row (by_time, k)->pid == row->pid; k++)
        first = MIN (first, rsp_model_run (m, rsp_model_task (m, rsp_timeline_layout_row (by_time, k)->task)->first_run)->start);
      g_assert_cmpuint (first, >=, prev);
      prev = first;
    }

  /* by pid */
  g_autoptr (RspTimelineLayout) by_pid = make_sorted_layout (m, RSP_TIMELINE_SORT_PID);
  for (guint r = 2; r < n_task_rows; r++)
    if (rsp_timeline_layout_row (by_pid, r - 1)->pid != pid)
      g_assert_cmpint (rsp_timeline_layout_row (by_pid, r - 1)->pid, <=, rsp_timeline_layout_row (by_pid, r)->pid);

  /* the default, a process tree: a process whose parent process has rows
   * comes after it (the process of interest excepted: it is first) */
  for (guint r = 0; r < n_task_rows; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      if (!row->first_in_group || row->pid == pid)
        continue;
      RspIdx p = rsp_model_task (m, row->task)->parent;
      while (p != RSP_NONE && rsp_model_task (m, p)->pid == row->pid)
        p = rsp_model_task (m, p)->parent;
      gint parent_row = p != RSP_NONE ? rsp_timeline_layout_task_row (layout, p) : -1;
      if (parent_row >= 0 && rsp_timeline_layout_row (layout, (guint) parent_row)->pid != pid)
        g_assert_cmpint (parent_row, <, (gint) r);
    }

  /* the summary hides what is negligible, never the process of interest */
  g_autoptr (RspTimelineLayout) summary = make_layout (m, FALSE, TRUE, TRUE);
  guint64 busiest = 0;
  for (guint r = 0; r < n_task_rows; r++)
    busiest = MAX (busiest, rsp_timeline_layout_row (layout, r)->cpu_ns);
  guint kept = 0;
  for (guint r = 0; r < n_task_rows; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      gboolean keep = row->pid == pid || row->cpu_ns >= (guint64) (0.005 * busiest);
      g_assert_cmpint (rsp_timeline_layout_task_row (summary, row->task) >= 0, ==, keep);
      kept += keep;
    }
  g_assert_cmpuint (rsp_timeline_layout_n_task_rows (summary), ==, kept);
  g_assert_cmpuint (rsp_timeline_layout_n_hidden (summary), ==, n_task_rows - kept);
  g_assert_cmpuint (kept, <, n_task_rows);

  /* the filter keeps the tasks whose command holds it (case-folded) or
   * whose pid or tid it is, and the process of interest */
  const char *filters[] = { "migration", "MIGRATION", NULL };
  for (guint f = 0; f < 3; f++)
    {
      g_autofree char *by_id = NULL;
      if (filters[f] == NULL)
        {
          /* a task of another process, by its tid */
          for (guint r = 0; r < n_task_rows && by_id == NULL; r++)
            if (rsp_timeline_layout_row (layout, r)->pid != pid)
              by_id = g_strdup_printf ("%d", rsp_model_task (m, rsp_timeline_layout_row (layout, r)->task)->tid);
          g_assert_nonnull (by_id);
        }
      g_autofree char *folded = g_utf8_casefold (filters[f] != NULL ? filters[f] : by_id, -1);
      RspTimelineOptions options;
      rsp_timeline_options_init (&options);
      options.pid = pid;
      options.filter = folded;
      g_autoptr (RspTimelineLayout) filtered = rsp_timeline_layout_new (m, &options);
      guint kept_f = 0;
      for (guint r = 0; r < n_task_rows; r++)
        {
          const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
          const RspTask *t = rsp_model_task (m, row->task);
          g_autofree char *comm = g_utf8_casefold (t->comm != NULL ? t->comm : "", -1);
          gboolean keep = row->pid == pid || strstr (comm, folded) != NULL
                          || (by_id != NULL && atoi (by_id) == t->tid) || (by_id != NULL && atoi (by_id) == t->pid);
          g_assert_cmpint (rsp_timeline_layout_task_row (filtered, row->task) >= 0, ==, keep);
          kept_f += keep;
        }
      g_assert_cmpuint (rsp_timeline_layout_n_task_rows (filtered), ==, kept_f);
      g_assert_cmpuint (rsp_timeline_layout_n_hidden (filtered), ==, n_task_rows - kept_f);
      g_assert_cmpuint (kept_f, <, n_task_rows);
    }
}

/* Threads folded: every multi-threaded process but the process of
 * interest gets one row holding all its threads' runs, its CPU time the
 * sum of theirs; unfolding it (its pid in TOGGLED) brings their rows
 * back.  On forkexec.rsp (perf's two threads). */
static void
test_layout_fold (void)
{
  g_autoptr (RspModel) m = load ("forkexec.rsp");
  gint32 pid = target_pid (m);
  g_autoptr (RspTimelineLayout) flat = make_layout (m, TRUE, TRUE, FALSE);
  RspTimelineOptions options;
  rsp_timeline_options_init (&options);
  options.pid = pid;
  options.show_sleeps = TRUE;
  options.fold_threads = TRUE;
  g_autoptr (RspTimelineLayout) folded = rsp_timeline_layout_new (m, &options);
  guint n_flat = rsp_timeline_layout_n_task_rows (flat), n_folded = rsp_timeline_layout_n_task_rows (folded);
  g_assert_cmpuint (n_folded, <, n_flat);
  guint processes_folded = 0;
  gint32 some_folded = 0;
  for (guint r = 0; r < n_folded; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (folded, r);
      /* the flat layout's rows of the same process */
      guint n_threads = 0, items = 0;
      guint64 cpu = 0;
      g_autoptr (GHashTable) tids = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint f = 0; f < n_flat; f++)
        {
          const RspTimelineRow *fr = rsp_timeline_layout_row (flat, f);
          if (fr->pid != row->pid)
            continue;
          n_threads++;
          g_hash_table_add (tids, GINT_TO_POINTER (rsp_model_task (m, fr->task)->tid));
          items += fr->n_items;
          cpu += fr->cpu_ns;
          if (row->folded)
            g_assert_cmpint (rsp_timeline_layout_task_row (folded, fr->task), ==, (gint) r);
        }
      g_assert_cmpuint (row->threads, ==, g_hash_table_size (tids));
      g_assert_cmpint (rsp_timeline_layout_task_row (folded, row->task), ==, (gint) r);
      if (row->pid == pid || g_hash_table_size (tids) == 1)
        g_assert_false (row->folded);
      else
        {
          g_assert_true (row->folded);
          g_assert_cmpuint (row->n_items, ==, items);
          g_assert_cmpuint (row->cpu_ns, ==, cpu);
          processes_folded++;
          some_folded = row->pid;
        }
    }
  g_assert_cmpuint (processes_folded, >, 0);
  /* unfolded again: that process's threads have their rows */
  options.toggled = &some_folded;
  options.n_toggled = 1;
  g_autoptr (RspTimelineLayout) unfolded = rsp_timeline_layout_new (m, &options);
  guint rows_of_it = 0;
  for (guint r = 0; r < rsp_timeline_layout_n_task_rows (unfolded); r++)
    if (rsp_timeline_layout_row (unfolded, r)->pid == some_folded)
      {
        g_assert_false (rsp_timeline_layout_row (unfolded, r)->folded);
        rows_of_it++;
      }
  g_assert_cmpuint (rows_of_it, >, 1);
  /* and the process of interest, toggled, folds */
  options.toggled = &pid;
  g_autoptr (RspTimelineLayout) target_folded = rsp_timeline_layout_new (m, &options);
  for (guint r = 0; r < rsp_timeline_layout_n_task_rows (target_folded); r++)
    {
      const RspTimelineRow *tr = rsp_timeline_layout_row (target_folded, r);
      if (tr->pid == pid)
        g_assert_true (tr->folded == (tr->threads > 1));
    }

  /* drawn: the folded row's runs, and a click on its mark is a fold hit */
  RspTheme theme;
  test_theme (&theme);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, folded, 1200, 40 + n_folded * theme.row_height + 60);
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (folded, &vp, &theme, &g);
  gint row = -1;
  for (guint r = 0; r < n_folded && row < 0; r++)
    if (rsp_timeline_layout_row (folded, r)->folded)
      row = (gint) r;
  double y = g.rows_top + row * g.row_height + g.row_height / 2;
  RspTimelineHit hit;
  g_assert_true (rsp_timeline_view_hit_test (folded, &vp, &theme, 10, y, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_FOLD);
  g_assert_cmpint (hit.row, ==, row);
  g_assert_true (rsp_timeline_view_hit_test (folded, &vp, &theme, g.plot_x - 10, y, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_NAME);
}

static void
test_layout_range (void)
{
  const RspModel *m = pingpong;
  gint32 pid = target_pid (m);
  RspIdx main_task = rsp_model_find_process (m, pid, NULL);
  RspIdx run = longest_run (m, main_task);
  const RspRun *r = rsp_model_run (m, run);
  RspTimelineOptions options;
  rsp_timeline_options_init (&options);
  options.pid = pid;
  options.from = r->start + 1;
  options.to = r->end - 1;
  g_autoptr (RspTimelineLayout) layout = rsp_timeline_layout_new (m, &options);
  g_assert_cmpuint (rsp_timeline_layout_start (layout), ==, r->start + 1);
  g_assert_cmpuint (rsp_timeline_layout_end (layout), ==, r->end - 1);
  gint row = rsp_timeline_layout_task_row (layout, main_task);
  g_assert_cmpint (row, ==, 0);
  /* within the run, the task ran all the time */
  g_assert_cmpuint (rsp_timeline_layout_row (layout, row)->cpu_ns, ==, r->end - r->start - 2);
  g_assert_cmpuint (rsp_timeline_layout_row (layout, row)->n_items, ==, 1);
}

/* ------------------------------------------------------------------ pixels */

static void
test_draw_ruler_names_runs (void)
{
  const RspModel *m = pingpong;
  RspTheme theme;
  test_theme (&theme);
  g_autoptr (RspTimelineLayout) layout = make_layout (m, FALSE, FALSE, FALSE);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  cairo_surface_t *s = render (layout, &vp, &theme);
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, &vp, &theme, &g);
  RspTimeAxis axis;
  viewport_axis (layout, &vp, &theme, &axis);

  /* the ruler: a tick line in the muted colour at each labelled tick, and
   * label text beside it */
  guint ticks = 0;
  guint64 origin = rsp_model_start_time (m);
  for (guint64 t = origin; t <= vp.t1; t += axis.step)
    {
      if (t < vp.t0)
        continue;
      double x = rsp_time_axis_x (&axis, t);
      if (x >= g.plot_x + g.plot_width)
        break;
      g_assert_true (is_color (pixel_at (s, x, g.ruler_height - 2), theme.muted, 3));
      guint dark = 0;
      for (double lx = x + 3; lx < x + 40; lx++)
        for (double ly = 2; ly < g.ruler_height - 4; ly++)
          dark += pixel_at (s, lx, ly).g < 128;
      g_assert_cmpuint (dark, >, 5);
      ticks++;
    }
  g_assert_cmpuint (ticks, >=, 4);
  g_assert_cmpuint (ticks, <=, 20);

  /* names: the name column at a task's row is that task, and has text */
  guint visible = visible_task_rows (layout, &vp, &theme);
  for (guint r = 0; r < visible; r++)
    {
      RspTimelineHit hit;
      double y = row_center (layout, &vp, &theme, r);
      g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, g.name_width / 3, y, &hit));
      g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_NAME);
      g_assert_cmpint (hit.row, ==, (gint) r);
      g_assert_cmpuint (hit.task, ==, rsp_timeline_layout_row (layout, r)->task);
      guint dark = 0;
      for (double x = 4; x < g.name_width - 4; x++)
        for (double dy = -6; dy <= 6; dy++)
          dark += pixel_at (s, x, y + dy).g < 128;
      g_assert_cmpuint (dark, >, 10);
    }

  /* the workload's tasks show runs in their rows */
  gint32 pid = target_pid (m);
  guint target_rows = 0;
  for (guint r = 0; r < visible; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      if (row->pid != pid || row->cpu_ns == 0)
        continue;
      double y = row_center (layout, &vp, &theme, r);
      guint red = 0;
      for (double x = g.plot_x; x < g.plot_x + g.plot_width; x++)
        red += is_run_pixel (pixel_at (s, x, y));
      g_assert_cmpuint (red, >, 0);
      target_rows++;
    }
  g_assert_cmpuint (target_rows, >=, 1);

  /* a long run of the process of interest, exactly where the model has it */
  RspIdx main_task = rsp_model_find_process (m, pid, NULL);
  RspIdx run = longest_run (m, main_task);
  const RspRun *rr = rsp_model_run (m, run);
  double x0 = rsp_time_axis_x (&axis, rr->start), x1 = rsp_time_axis_x (&axis, rr->end);
  g_assert_cmpfloat (x1 - x0, >=, 3);
  gint row = rsp_timeline_layout_task_row (layout, main_task);
  double y = row_center (layout, &vp, &theme, (guint) row);
  double xm = (x0 + x1) / 2;
  g_assert_true (is_color (pixel_at (s, xm, y), theme.run, 2));
  /* nothing but background just above the bar (rows have a margin) */
  RspTimelineHit hit;
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, xm, y, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_RUN);
  g_assert_cmpuint (hit.item, ==, run);
  g_assert_cmpuint (hit.task, ==, main_task);
  g_assert_cmpuint (hit.time, >=, rr->start);
  g_assert_cmpuint (hit.time, <=, rr->end);
  cairo_surface_destroy (s);
}

/* Every run of every visible row is drawn, however narrow: at its pixel
 * column (give or take one for rounding) the row is run-coloured.  Checked
 * at the whole range (runs far below a pixel merge into columns) and at a
 * zoom where most are a few pixels wide. */
static void
check_every_run_drawn (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTheme *theme,
                       guint min_runs)
{
  const RspModel *m = rsp_timeline_layout_model (layout);
  cairo_surface_t *s = render (layout, vp, theme);
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, vp, theme, &g);
  RspTimeAxis axis;
  viewport_axis (layout, vp, theme, &axis);
  guint checked = 0;
  guint visible = visible_task_rows (layout, vp, theme);
  for (guint r = 0; r < visible; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      double y = row_center (layout, vp, theme, r);
      for (RspIdx i = rsp_model_task (m, row->task)->first_run; i != RSP_NONE; i = rsp_model_run (m, i)->next_run)
        {
          const RspRun *run = rsp_model_run (m, i);
          if (run->end <= vp->t0 || run->start >= vp->t1)
            continue;
          double a = MAX (rsp_time_axis_x (&axis, run->start), g.plot_x);
          double b = MIN (rsp_time_axis_x (&axis, run->end), g.plot_x + g.plot_width - 1);
          gboolean found = FALSE;
          for (double x = floor (a) - 1; x <= floor (b) + 1 && !found; x++)
            if (x >= g.plot_x && x < g.plot_x + g.plot_width)
              found = is_run_pixel (pixel_at (s, x, y));
          if (!found)
            g_error ("run %u of row %u (%.2f..%.2f px) is not drawn", i, r, a, b);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >=, min_runs);
  cairo_surface_destroy (s);
}

static void
test_every_run_drawn (void)
{
  RspTheme theme;
  test_theme (&theme);
  g_autoptr (RspTimelineLayout) layout = make_layout (pingpong, FALSE, FALSE, FALSE);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  check_every_run_drawn (layout, &vp, &theme, 100);

  /* a tenth of the workload's span, in its middle */
  RspIdx main_task = rsp_model_find_process (pingpong, target_pid (pingpong), NULL);
  const RspTask *t = rsp_model_task (pingpong, main_task);
  guint64 mid = t->start + (t->end - t->start) / 2, span = (t->end - t->start) / 10;
  vp.t0 = mid - span / 2;
  vp.t1 = mid + span / 2;
  check_every_run_drawn (layout, &vp, &theme, 10);

  /* and scrolled: the second visible row is then the first */
  vp.scroll_y = theme.row_height;
  RspTimelineHit hit;
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, &vp, &theme, &g);
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, 5, g.rows_top + 2, &hit));
  g_assert_cmpint (hit.row, ==, 1);
}

/* A sleep of the process of interest, at a zoom where it is wide: drawn in
 * the sleep colour, labelled with its frame, found by hit testing; a run
 * narrower than a pixel (zoomed out) is still found within reach. */
static void
test_sleeps_and_hits (void)
{
  const RspModel *m = pingpong;
  RspTheme theme;
  test_theme (&theme);
  g_autoptr (RspTimelineLayout) layout = make_layout (m, TRUE, FALSE, FALSE);
  RspIdx main_task = rsp_model_find_process (m, target_pid (m), NULL);
  gint row = rsp_timeline_layout_task_row (layout, main_task);
  g_assert_cmpint (row, >=, 0);

  /* the longest blocked stretch (start to wake-up) with a describing frame */
  RspIdx best = RSP_NONE;
  guint64 best_len = 0;
  for (RspIdx i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      if (sl->task != main_task || sl->reason == RSP_WAKE_PREEMPTION || rsp_model_sleep_frame (m, i) == NULL)
        continue;
      guint64 blocked = MIN (sl->runnable_at, sl->end) - sl->start;
      if (sl->runnable_at >= sl->start && blocked > best_len)
        {
          best = i;
          best_len = blocked;
        }
    }
  g_assert_cmpuint (best, !=, RSP_NONE);
  const RspSleep *sl = rsp_model_sleep (m, best);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  guint64 len = sl->end - sl->start;
  vp.t0 = sl->start - len / 4;
  vp.t1 = sl->end + len / 4;
  cairo_surface_t *s = render (layout, &vp, &theme);
  RspTimeAxis axis;
  viewport_axis (layout, &vp, &theme, &axis);
  double y = row_center (layout, &vp, &theme, (guint) row);
  double xs = rsp_time_axis_x (&axis, sl->start), xw = rsp_time_axis_x (&axis, MIN (sl->runnable_at, sl->end));
  g_assert_cmpfloat (xw - xs, >, 100);

  /* past the label, inside the blocked part: the sleep colour */
  double xb = xs + (xw - xs) * 0.8;
  g_assert_true (is_color (pixel_at (s, xb, y), theme.sleep, 2));
  RspTimelineHit hit;
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, xb, y, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_SLEEP);
  g_assert_cmpuint (hit.item, ==, best);
  /* the label: white text at the box's start */
  guint white = 0;
  for (double x = xs + 2; x < xs + 60; x++)
    for (double dy = -5; dy <= 5; dy++)
      {
        Pixel p = pixel_at (s, x, y + dy);
        white += p.r > 220 && p.g > 220 && p.b > 220;
      }
  g_assert_cmpuint (white, >, 10);
  /* the run after the sleep, right of its start */
  if (sl->next_run != RSP_NONE)
    {
      const RspRun *next = rsp_model_run (m, sl->next_run);
      double xr = rsp_time_axis_x (&axis, next->start) + 2;
      if (xr < WIDTH - 20 && rsp_time_axis_x (&axis, next->end) > xr + 1)
        {
          g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, xr, y, &hit));
          g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_RUN);
          g_assert_cmpuint (hit.item, ==, sl->next_run);
        }
    }
  cairo_surface_destroy (s);

  /* zoomed out so far that a short run is below a pixel: still found */
  RspIdx shortest = RSP_NONE;
  for (RspIdx r = rsp_model_task (m, main_task)->first_run; r != RSP_NONE; r = rsp_model_run (m, r)->next_run)
    if (shortest == RSP_NONE
        || rsp_model_run (m, r)->end - rsp_model_run (m, r)->start
               < rsp_model_run (m, shortest)->end - rsp_model_run (m, shortest)->start)
      shortest = r;
  const RspRun *sr = rsp_model_run (m, shortest);
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  vp.t0 = sr->start - 2000000;
  vp.t1 = sr->start + 2000000; /* 4 ms over ~1400 px: ~3 µs a pixel */
  viewport_axis (layout, &vp, &theme, &axis);
  double x = rsp_time_axis_x (&axis, sr->start);
  if (rsp_time_axis_x (&axis, sr->end) - x < 1)
    {
      g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, x + 0.5, y, &hit));
      g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_RUN);
      g_assert_cmpuint (hit.item, ==, shortest);
    }

  /* the ruler and outside everything */
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, WIDTH / 2.0, 3, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_RULER);
  g_assert_cmpuint (hit.time, ==, rsp_time_axis_time (&axis, WIDTH / 2.0));
  g_assert_false (rsp_timeline_view_hit_test (layout, &vp, &theme, -1, 100, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_NONE);
}

/* A wake-up between two visible rows: a line at its time, found by hit
 * testing between the rows. */
static void
test_links (void)
{
  const RspModel *m = pingpong;
  RspTheme theme;
  test_theme (&theme);
  g_autoptr (RspTimelineLayout) layout = make_layout (m, FALSE, TRUE, FALSE);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  guint visible = visible_task_rows (layout, &vp, &theme);
  gint32 pid = target_pid (m);

  /* a wake-up from one task of the workload to another, in a visible row,
   * the woken run starting well after it (a visible scheduler delay) */
  RspIdx link = RSP_NONE;
  gint from_row = -1, to_row = -1;
  for (RspIdx i = 0; i < rsp_model_n_links (m) && link == RSP_NONE; i++)
    {
      const RspLink *l = rsp_model_link (m, i);
      if (l->kind != RSP_LINK_WAKEUP || l->from_run == RSP_NONE || l->to_run == RSP_NONE)
        continue;
      RspIdx ta = rsp_model_run (m, l->from_run)->task, tb = rsp_model_run (m, l->to_run)->task;
      gint ra = rsp_timeline_layout_task_row (layout, ta), rb = rsp_timeline_layout_task_row (layout, tb);
      if (ra < 0 || rb < 0 || ra == rb || (guint) MAX (ra, rb) >= visible)
        continue;
      if (rsp_model_task (m, tb)->pid != pid && rsp_model_task (m, ta)->pid != pid)
        continue;
      if (rsp_model_run (m, l->to_run)->start < l->time + 2000)
        continue;
      link = i;
      from_row = ra;
      to_row = rb;
    }
  g_assert_cmpuint (link, !=, RSP_NONE);
  const RspLink *l = rsp_model_link (m, link);
  /* 100 µs around it: the delay of 2 µs or more is 28 px or more */
  vp.t0 = l->time - 50000;
  vp.t1 = l->time + 50000;
  cairo_surface_t *s = render (layout, &vp, &theme);
  RspTimeAxis axis;
  viewport_axis (layout, &vp, &theme, &axis);
  double x = floor (rsp_time_axis_x (&axis, l->time)) + 0.5;
  double ya = row_center (layout, &vp, &theme, (guint) from_row);
  double yb = row_center (layout, &vp, &theme, (guint) to_row);
  /* in the woken row, between its centre and the waker's */
  double y = yb + (ya > yb ? 4 : -4);
  RspTimelineHit hit;
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, x, y, &hit));
  g_assert_cmpint (hit.kind, ==, RSP_TIMELINE_HIT_LINK);
  g_assert_cmpuint (hit.item, ==, link);
  g_assert_cmpint (hit.row, ==, to_row);
  /* the line is there: darker than the background */
  Pixel p = pixel_at (s, x, y);
  g_assert_cmpint (p.g, <, 200);
  /* and away from it, in the same row before the wake-up, nothing */
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, x - 12, y, &hit));
  g_assert_cmpint (hit.kind, !=, RSP_TIMELINE_HIT_LINK);
  cairo_surface_destroy (s);
}

/* Disk and network operations on their own rows at the bottom. */
static void
check_operation_row (const char *file, RspTimelineRowKind kind)
{
  g_autoptr (RspModel) m = load (file);
  RspTheme theme;
  test_theme (&theme);
  g_autoptr (RspTimelineLayout) layout = make_layout (m, FALSE, TRUE, FALSE);
  gint op_row = -1;
  for (guint r = rsp_timeline_layout_n_task_rows (layout); r < rsp_timeline_layout_n_rows (layout); r++)
    if (rsp_timeline_layout_row (layout, r)->kind == kind)
      op_row = (gint) r;
  guint n_ops = kind == RSP_TIMELINE_ROW_DISK ? rsp_model_n_disk_ops (m) : rsp_model_n_net_ops (m);
  if (n_ops == 0)
    {
      g_test_skip ("no operations of this kind in the recording");
      return;
    }
  g_assert_cmpint (op_row, >=, 0);
  const RspTimelineRow *row = rsp_timeline_layout_row (layout, (guint) op_row);
  g_assert_cmpuint (row->task, ==, RSP_NONE);
  g_assert_cmpuint (row->n_items, >, 0);

  /* the longest operation, zoomed to it */
  RspIdx best = RSP_NONE;
  guint64 best_len = 0, start = 0, service = 0, end = 0;
  for (RspIdx i = 0; i < n_ops; i++)
    {
      guint64 a, b, mid;
      if (kind == RSP_TIMELINE_ROW_DISK)
        {
          const RspDiskOp *op = rsp_model_disk_op (m, i);
          if (op->dev != row->dev || op->issue == 0 || op->complete == 0)
            continue;
          a = op->insert != 0 ? op->insert : op->issue;
          mid = op->issue;
          b = op->complete;
        }
      else
        {
          const RspNetOp *op = rsp_model_net_op (m, i);
          if (op->send == 0 || op->ready <= op->send)
            continue;
          a = mid = op->send;
          b = op->ready;
        }
      if (b - mid > best_len)
        {
          best = i;
          best_len = b - mid;
          start = a;
          service = mid;
          end = b;
        }
    }
  g_assert_cmpuint (best, !=, RSP_NONE);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, WIDTH, HEIGHT);
  vp.t0 = start - (end - start) / 4;
  vp.t1 = end + (end - start) / 4;
  cairo_surface_t *s = render (layout, &vp, &theme);
  RspTimeAxis axis;
  viewport_axis (layout, &vp, &theme, &axis);
  double y = row_center (layout, &vp, &theme, (guint) op_row);
  double x = (rsp_time_axis_x (&axis, service) + rsp_time_axis_x (&axis, end)) / 2;
  RspColor color = kind == RSP_TIMELINE_ROW_DISK ? theme.disk : theme.network;
  g_assert_true (is_color (pixel_at (s, x, y), color, 2));
  RspTimelineHit hit;
  g_assert_true (rsp_timeline_view_hit_test (layout, &vp, &theme, x, y, &hit));
  g_assert_cmpint (hit.kind, ==, kind == RSP_TIMELINE_ROW_DISK ? RSP_TIMELINE_HIT_DISK_OP : RSP_TIMELINE_HIT_NET_OP);
  g_assert_cmpint (hit.row, ==, op_row);
  /* another operation may overlap this one: the hit is one containing x */
  if (hit.item != best && kind == RSP_TIMELINE_ROW_DISK)
    {
      const RspDiskOp *op = rsp_model_disk_op (m, hit.item);
      /* drawn from its insert (else its issue) to its completion */
      g_assert_cmpuint (op->insert != 0 ? op->insert : op->issue, <=, hit.time);
      g_assert_cmpuint (op->complete, >=, hit.time);
    }
  /* the rows stay at the bottom whatever the scroll */
  double y0 = rsp_timeline_view_row_y (layout, &vp, &theme, (guint) op_row);
  vp.scroll_y = 1000;
  g_assert_cmpfloat (rsp_timeline_view_row_y (layout, &vp, &theme, (guint) op_row), ==, y0);
  cairo_surface_destroy (s);
}

static void
test_disk_row (void)
{
  check_operation_row ("dio_read.rsp", RSP_TIMELINE_ROW_DISK);
}

static void
test_network_row (void)
{
  check_operation_row ("tcp_loop.rsp", RSP_TIMELINE_ROW_NETWORK);
}

/* Dark theme, tiny and huge viewports, empty ranges: no crash, no cairo
 * error, and the background is the theme's. */
static void
test_odd_viewports (void)
{
  RspTheme theme;
  rsp_theme_init (&theme, TRUE, 1.0);
  g_autoptr (RspTimelineLayout) layout = make_layout (pingpong, TRUE, TRUE, TRUE);
  RspTimelineViewport vp;
  rsp_timeline_viewport_init (&vp, layout, 200, 100);
  cairo_surface_destroy (render (layout, &vp, &theme));
  rsp_timeline_viewport_init (&vp, layout, 640, 480);
  vp.t0 = vp.t1 = rsp_timeline_layout_start (layout); /* empty range */
  cairo_surface_destroy (render (layout, &vp, &theme));
  vp.t0 = 0;
  vp.t1 = G_MAXUINT64 / 2; /* absurdly wide */
  cairo_surface_destroy (render (layout, &vp, &theme));
  rsp_timeline_viewport_init (&vp, layout, 640, 480);
  vp.t1 = vp.t0 + 1; /* one nanosecond over 640 px */
  vp.scroll_y = 1e6;  /* scrolled past the end */
  cairo_surface_t *s = render (layout, &vp, &theme);
  g_assert_true (is_color (pixel_at (s, 320, 470), theme.background, 1));
  cairo_surface_destroy (s);

  /* a selected range tints the time area; a highlighted row its band */
  rsp_timeline_viewport_init (&vp, layout, 640, 480);
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, &vp, &theme, &g);
  s = render (layout, &vp, &theme);
  Pixel before = pixel_at (s, g.plot_x + g.plot_width / 2, 470);
  cairo_surface_destroy (s);
  vp.select_t0 = vp.t0 + (vp.t1 - vp.t0) / 4;
  vp.select_t1 = vp.t1 - (vp.t1 - vp.t0) / 4;
  vp.highlight_row = 0;
  s = render (layout, &vp, &theme);
  Pixel after = pixel_at (s, g.plot_x + g.plot_width / 2, 470);
  g_assert_true (before.r != after.r || before.g != after.g || before.b != after.b);
  Pixel name_bg = pixel_at (s, 2, rsp_timeline_view_row_y (layout, &vp, &theme, 0) + 1);
  g_assert_false (is_color (name_bg, theme.background, 1));
  cairo_surface_destroy (s);
}

/* The processes of the first rows, in row order, each once. */
static GArray *
row_processes (const RspTimelineLayout *layout)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint r = 0; r < rsp_timeline_layout_n_task_rows (layout); r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (layout, r);
      if (row->first_in_group)
        g_array_append_val (pids, row->pid);
    }
  return pids;
}

/* The process of interest, then the processes on its control paths (most
 * time first, as the analysis lists them), then the others. */
static void
test_layout_path_order (void)
{
  const char *names[] = { "pingpong.rsp", "forkexec.rsp", "tcp_loop.rsp" };
  guint with_others = 0;
  for (guint f = 0; f < G_N_ELEMENTS (names); f++)
    {
      g_autoptr (RspModel) m = load (names[f]);
      gint32 pid = target_pid (m);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, pid, 0, G_MAXUINT64, NULL);
      g_assert_nonnull (a);
      g_autoptr (GArray) pids = rsp_analysis_processes (a);
      g_assert_cmpuint (pids->len, >=, 1);
      g_assert_cmpint (g_array_index (pids, gint32, 0), ==, pid);
      /* exactly the processes with a segment, each once, by the time of
       * their own layers (a segment inside one of its own process's not
       * counted again) */
      g_autoptr (GHashTable) ns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
      for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
        {
          const RspSegment *s = rsp_analysis_segment (a, i);
          gint32 p = rsp_model_task (m, s->task)->pid;
          guint64 *sum = g_hash_table_lookup (ns, GINT_TO_POINTER (p));
          if (sum == NULL)
            g_hash_table_insert (ns, GINT_TO_POINTER (p), sum = g_new0 (guint64, 1));
          if (s->parent == RSP_NONE || rsp_model_task (m, rsp_analysis_segment (a, s->parent)->task)->pid != p)
            *sum += s->end - s->start;
        }
      g_assert_cmpuint (pids->len, ==, g_hash_table_size (ns) + (g_hash_table_contains (ns, GINT_TO_POINTER (pid)) ? 0 : 1));
      for (guint k = 1; k < pids->len; k++)
        {
          gint32 p = g_array_index (pids, gint32, k);
          g_assert_cmpint (p, !=, pid);
          g_assert_true (g_hash_table_contains (ns, GINT_TO_POINTER (p)));
          if (k > 1)
            g_assert_cmpuint (*(guint64 *) g_hash_table_lookup (ns, GINT_TO_POINTER (g_array_index (pids, gint32, k - 1))),
                              >=, *(guint64 *) g_hash_table_lookup (ns, GINT_TO_POINTER (p)));
        }
      with_others += pids->len > 1;
      g_test_message ("%s: the process of interest and %u others on its control paths", names[f], pids->len - 1);

      /* the layout follows the list given, whatever its order: as listed,
       * then with the others reversed */
      for (guint reversed = 0; reversed < 2; reversed++)
        {
          g_autoptr (GArray) given = g_array_copy (pids);
          for (guint k = 1; reversed && k < (given->len + 1) / 2; k++)
            {
              gint32 tmp = g_array_index (given, gint32, k);
              g_array_index (given, gint32, k) = g_array_index (given, gint32, given->len - k);
              g_array_index (given, gint32, given->len - k) = tmp;
            }
          RspTimelineOptions options;
          rsp_timeline_options_init (&options);
          options.pid = pid;
          options.path_pids = (const gint32 *) given->data;
          options.n_path_pids = given->len;
          g_autoptr (RspTimelineLayout) layout = rsp_timeline_layout_new (m, &options);
          g_autoptr (RspTimelineLayout) plain = make_layout (m, FALSE, TRUE, FALSE);
          g_autoptr (GArray) rows = row_processes (layout);
          g_autoptr (GArray) plain_rows = row_processes (plain);
          g_assert_cmpuint (rows->len, ==, plain_rows->len);
          /* the listed processes that have rows, in the list's order ... */
          guint r = 0;
          for (guint k = 0; k < given->len; k++)
            {
              gint32 p = g_array_index (given, gint32, k);
              gboolean has_row = FALSE;
              for (guint q = 0; q < plain_rows->len; q++)
                has_row |= g_array_index (plain_rows, gint32, q) == p;
              if (has_row)
                g_assert_cmpint (g_array_index (rows, gint32, r++), ==, p);
            }
          /* ... then the others in the order they have without the list */
          guint q = 0;
          for (; r < rows->len; r++)
            {
              gint32 p = g_array_index (rows, gint32, r);
              gboolean listed = FALSE;
              for (guint k = 0; k < given->len; k++)
                listed |= g_array_index (given, gint32, k) == p;
              g_assert_false (listed);
              while (q < plain_rows->len)
                {
                  gint32 pq = g_array_index (plain_rows, gint32, q++);
                  gboolean pq_listed = FALSE;
                  for (guint k = 0; k < given->len; k++)
                    pq_listed |= g_array_index (given, gint32, k) == pq;
                  if (!pq_listed)
                    {
                      g_assert_cmpint (pq, ==, p);
                      break;
                    }
                }
            }
        }
    }
  /* at least one recording crosses another process */
  g_assert_cmpuint (with_others, >=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  pingpong = load ("pingpong.rsp");
  g_test_add_func ("/timeline/layout/rows", test_layout_rows);
  g_test_add_func ("/timeline/layout/range", test_layout_range);
  g_test_add_func ("/timeline/layout/fold", test_layout_fold);
  g_test_add_func ("/timeline/layout/path-order", test_layout_path_order);
  g_test_add_func ("/timeline/draw/ruler-names-runs", test_draw_ruler_names_runs);
  g_test_add_func ("/timeline/draw/every-run", test_every_run_drawn);
  g_test_add_func ("/timeline/draw/sleeps-and-hits", test_sleeps_and_hits);
  g_test_add_func ("/timeline/draw/links", test_links);
  g_test_add_func ("/timeline/draw/disk-row", test_disk_row);
  g_test_add_func ("/timeline/draw/network-row", test_network_row);
  g_test_add_func ("/timeline/draw/odd-viewports", test_odd_viewports);
  int status = g_test_run ();
  rsp_model_unref (pingpong);
  return status;
}
