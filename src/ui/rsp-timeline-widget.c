/* rsp-timeline-widget.c — input and layout for the process running view. */
#include "rsp-timeline-widget.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "rsp-details.h"
#include "rsp-timeline-view.h"
#include "rsp-widget-util.h"

#define ZOOM_STEP 1.25
#define CLICK_SLOP 4.0 /* px a click may move and still be a click */

struct _RspTimelineWidget {
  GtkWidget parent_instance;

  const RspModel *model;
  RspTimelineOptions options;
  RspTimelineLayout *layout;
  RspTimeNav nav;
  double scroll_y;
  gint hover_row;
  double pointer_x, pointer_y;
  guint64 select_t0, select_t1;

  /* a drag in progress */
  gboolean selecting;
  guint64 drag_t0;
  double drag_scroll;
  double drag_x, drag_y;
  double pinch_scale;

  /* the search: its text, the rows that match, the current one */
  char *search;
  GArray *matches; /* guint32 row */
  guint match;
  gboolean filter; /* the search also hides the rows that do not match */
  GArray *toggled; /* gint32 pids folded the other way than by default */
  GArray *path_pids; /* gint32: the processes on the control paths, first */
  gboolean marks_logged; /* the fold marks' places, logged once per layout (GUI tests) */
  gboolean first_logged; /* the first frame with rows, logged once (bench/first-picture.py) */

  /* the item clicked (a run, a sleep, an operation, a link), for the
   * details pane and the arrow keys; sel_item RSP_NONE for none */
  RspDetailsItem sel_kind;
  RspIdx sel_item;
  gint sel_row;
};

enum {
  SIGNAL_TASK_ACTIVATED,
  SIGNAL_RANGE_SELECTED,
  SIGNAL_ITEM_SELECTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RspTimelineWidget, rsp_timeline_widget, GTK_TYPE_WIDGET)

static void
viewport_for (RspTimelineWidget *self, RspTimelineViewport *vp, const RspTheme *theme)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  rsp_timeline_viewport_init (vp, self->layout, w, h);
  vp->t0 = self->nav.t0;
  vp->t1 = self->nav.t1;
  vp->scroll_y = self->scroll_y;
  vp->highlight_row = self->hover_row >= 0 ? self->hover_row : self->sel_item != RSP_NONE ? self->sel_row : -1;
  vp->marked_rows = (const guint32 *) self->matches->data;
  vp->n_marked_rows = self->matches->len;
  vp->select_t0 = self->select_t0;
  vp->select_t1 = self->select_t1;
  vp->row_height = rsp_timeline_view_fit_row_height (self->layout, theme, h);
}

static void
geometry_for (RspTimelineWidget *self, RspTimelineViewport *vp, RspTheme *theme, RspTimelineGeometry *geo)
{
  rsp_widget_theme (GTK_WIDGET (self), theme);
  viewport_for (self, vp, theme);
  rsp_timeline_view_geometry (self->layout, vp, theme, geo);
}

/* The fraction of the time area under x (for zooming around the pointer). */
static double
time_fraction (RspTimelineWidget *self, double x)
{
  RspTheme theme;
  RspTimelineViewport vp;
  RspTimelineGeometry geo;
  geometry_for (self, &vp, &theme, &geo);
  return geo.plot_width > 0 ? (x - geo.plot_x) / geo.plot_width : 0.5;
}

static guint64
time_at (RspTimelineWidget *self, double x)
{
  double f = CLAMP (time_fraction (self, x), 0.0, 1.0);
  return self->nav.t0 + (guint64) (f * (double) (self->nav.t1 - self->nav.t0));
}

static void
clamp_scroll (RspTimelineWidget *self)
{
  RspTheme theme;
  RspTimelineViewport vp;
  RspTimelineGeometry geo;
  geometry_for (self, &vp, &theme, &geo);
  double content = rsp_timeline_layout_n_task_rows (self->layout) * geo.row_height;
  double visible = geo.rows_bottom - geo.rows_top;
  self->scroll_y = CLAMP (self->scroll_y, 0.0, MAX (0.0, content - visible));
}

static const char *task_label (const RspModel *m, RspIdx task);

/* The task rows whose name holds the search text (case-folded). */
static void
find_matches (RspTimelineWidget *self)
{
  g_array_set_size (self->matches, 0);
  if (self->search == NULL || self->layout == NULL)
    return;
  for (guint r = 0; r < rsp_timeline_layout_n_task_rows (self->layout); r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (self->layout, r);
      g_autofree char *name = g_utf8_casefold (task_label (self->model, row->task), -1);
      if (strstr (name, self->search) != NULL)
        {
          guint32 row_index = r;
          g_array_append_val (self->matches, row_index);
        }
    }
  if (self->match >= self->matches->len)
    self->match = 0;
}

/* Scrolls to the current match and highlights it. */
static void
show_match (RspTimelineWidget *self)
{
  self->hover_row = -1;
  if (self->matches->len > 0)
    {
      RspTheme theme;
      RspTimelineViewport vp;
      RspTimelineGeometry geo;
      geometry_for (self, &vp, &theme, &geo);
      guint32 r = g_array_index (self->matches, guint32, self->match);
      self->hover_row = (gint) r;
      /* the match a few rows below the top, with context above it */
      self->scroll_y = (r > 2 ? r - 2 : 0) * geo.row_height;
      clamp_scroll (self);
    }
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline search: %u of %u", self->matches->len > 0 ? self->match + 1 : 0,
         self->matches->len);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
rebuild_layout (RspTimelineWidget *self)
{
  g_clear_pointer (&self->layout, rsp_timeline_layout_free);
  self->layout = rsp_timeline_layout_new (self->model, &self->options);
  self->hover_row = -1;
  self->marks_logged = FALSE;
  find_matches (self);
  clamp_scroll (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Where the fold marks of the visible rows are, in the window's
 * coordinates (found by hit testing): the GUI tests click them. */
static void
log_fold_marks (RspTimelineWidget *self, const RspTimelineViewport *vp, const RspTheme *theme)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));
  if (native == NULL)
    return;
  self->marks_logged = TRUE;
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, "rsp-ui"))
    return;
  RspTimelineGeometry geo;
  rsp_timeline_view_geometry (self->layout, vp, theme, &geo);
  double sx, sy;
  gtk_native_get_surface_transform (native, &sx, &sy);
  for (double y = geo.rows_top + geo.row_height / 2; y < geo.rows_bottom; y += geo.row_height)
    for (double x = 0; x < geo.plot_x; x += 2)
      {
        RspTimelineHit hit;
        if (!rsp_timeline_view_hit_test (self->layout, vp, theme, x, y, &hit) || hit.kind != RSP_TIMELINE_HIT_FOLD)
          continue;
        const RspTimelineRow *row = rsp_timeline_layout_row (self->layout, (guint) hit.row);
        double wx, wy;
        if (gtk_widget_translate_coordinates (GTK_WIDGET (self), GTK_WIDGET (native), x + 4, y, &wx, &wy))
          g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline fold mark: process %d, %u threads, %s, at %.0f,%.0f in the window",
                 row->pid, row->threads, row->folded ? "folded" : "unfolded", wx + sx, wy + sy);
        break;
      }
}

static void
rsp_timeline_widget_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  RspTimelineWidget *self = RSP_TIMELINE_WIDGET (widget);
  double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  if (self->layout == NULL || w < 1 || h < 1)
    return;
  RspTheme theme;
  rsp_widget_theme (widget, &theme);
  RspTimelineViewport vp;
  viewport_for (self, &vp, &theme);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  rsp_timeline_view_draw (self->layout, &vp, &theme, cr);
  cairo_destroy (cr);
  if (!self->first_logged && rsp_timeline_layout_n_rows (self->layout) > 0)
    {
      /* CLOCK_MONOTONIC, as time.monotonic() of the process that started us */
      self->first_logged = TRUE;
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline: first frame with content, %u rows, at monotonic %" G_GINT64_FORMAT " us",
             rsp_timeline_layout_n_rows (self->layout), g_get_monotonic_time ());
    }
  if (!self->marks_logged)
    log_fold_marks (self, &vp, &theme);
}

/* ------------------------------------------------------------------ input */

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, RspTimelineWidget *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  if (state & GDK_CONTROL_MASK)
    rsp_time_nav_zoom (&self->nav, dy < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, time_fraction (self, self->pointer_x));
  else if ((state & GDK_SHIFT_MASK) || dx != 0)
    rsp_time_nav_pan (&self->nav, 0.05 * (dx != 0 ? dx : dy));
  else
    {
      RspTheme theme;
      rsp_widget_theme (GTK_WIDGET (self), &theme);
      self->scroll_y += dy * 3 * theme.row_height;
      clamp_scroll (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, RspTimelineWidget *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
  RspTheme theme;
  RspTimelineViewport vp;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  viewport_for (self, &vp, &theme);
  RspTimelineHit hit;
  gint row = rsp_timeline_view_hit_test (self->layout, &vp, &theme, x, y, &hit) ? hit.row : -1;
  if (row != self->hover_row)
    {
      self->hover_row = row;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
on_leave (GtkEventControllerMotion *controller, RspTimelineWidget *self)
{
  self->hover_row = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, RspTimelineWidget *self)
{
  RspTheme theme;
  RspTimelineViewport vp;
  RspTimelineGeometry geo;
  geometry_for (self, &vp, &theme, &geo);
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  /* a drag on the ruler, or with Shift, selects a range; else it pans */
  self->selecting = (state & GDK_SHIFT_MASK) || y < geo.ruler_height;
  self->drag_t0 = self->nav.t0;
  self->drag_scroll = self->scroll_y;
  self->drag_x = x;
  self->drag_y = y;
  if (self->selecting)
    self->select_t0 = self->select_t1 = time_at (self, x);
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, RspTimelineWidget *self)
{
  if (self->selecting)
    {
      guint64 a = time_at (self, self->drag_x), b = time_at (self, self->drag_x + dx);
      self->select_t0 = MIN (a, b);
      self->select_t1 = MAX (a, b);
    }
  else
    {
      RspTheme theme;
      RspTimelineViewport vp;
      RspTimelineGeometry geo;
      geometry_for (self, &vp, &theme, &geo);
      double ns_per_px = geo.plot_width > 0 ? (double) (self->nav.t1 - self->nav.t0) / geo.plot_width : 0;
      double t0 = (double) self->drag_t0 - dx * ns_per_px;
      t0 = MAX (t0, (double) self->nav.min);
      rsp_time_nav_show (&self->nav, (guint64) t0, (guint64) t0 + (self->nav.t1 - self->nav.t0));
      self->scroll_y = self->drag_scroll - dy;
      clamp_scroll (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, RspTimelineWidget *self)
{
  if (self->selecting && self->select_t1 > self->select_t0 && fabs (dx) > CLICK_SLOP)
    g_signal_emit (self, signals[SIGNAL_RANGE_SELECTED], 0, self->select_t0, self->select_t1);
  else if (self->selecting)
    self->select_t0 = self->select_t1 = 0;
  self->selecting = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
select_item (RspTimelineWidget *self, RspDetailsItem kind, RspIdx item, gint row)
{
  self->sel_kind = kind;
  self->sel_item = item;
  self->sel_row = row;
  g_signal_emit (self, signals[SIGNAL_ITEM_SELECTED], 0, (guint) kind, (guint) item);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Shows [T0, T1] with a margin, keeping the zoom when it fits. */
void
rsp_timeline_widget_show_range (RspTimelineWidget *self, guint64 t0, guint64 t1)
{
  g_return_if_fail (RSP_IS_TIMELINE_WIDGET (self));
  guint64 width = self->nav.t1 - self->nav.t0;
  if (t1 - t0 > width * 9 / 10 || width == 0)
    {
      guint64 pad = MAX ((t1 - t0) / 10, (guint64) 1000);
      rsp_time_nav_jump (&self->nav, t0 > pad ? t0 - pad : 0, t1 + pad);
    }
  else if (t0 < self->nav.t0 || t1 > self->nav.t1)
    {
      guint64 mid = t0 + (t1 - t0) / 2, left = mid > width / 2 ? mid - width / 2 : 0;
      rsp_time_nav_jump (&self->nav, left, left + width);
    }
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline (show): %.3f-%.3f ms",
         (self->nav.t0 - rsp_model_start_time (self->model)) / 1e6,
         (self->nav.t1 - rsp_model_start_time (self->model)) / 1e6);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Left/Right with a run or a sleep selected: the task's previous or next
 * one, shown.  TRUE if the key was taken. */
static gboolean
step_item (RspTimelineWidget *self, gint delta)
{
  const RspModel *m = self->model;
  RspIdx next = RSP_NONE;
  if (self->sel_kind == RSP_DETAILS_RUN)
    {
      const RspRun *r = rsp_model_run (m, self->sel_item);
      if (delta > 0)
        next = r->next_run;
      else if (r->prev_sleep != RSP_NONE)
        next = rsp_model_sleep (m, r->prev_sleep)->prev_run;
      if (next != RSP_NONE)
        {
          const RspRun *n = rsp_model_run (m, next);
          rsp_timeline_widget_show_range (self, n->start, n->end);
        }
    }
  else if (self->sel_kind == RSP_DETAILS_SLEEP)
    {
      const RspSleep *sl = rsp_model_sleep (m, self->sel_item);
      RspIdx run = delta > 0 ? sl->next_run : sl->prev_run;
      if (run != RSP_NONE)
        next = delta > 0 ? rsp_model_run (m, run)->next_sleep : rsp_model_run (m, run)->prev_sleep;
      if (next != RSP_NONE)
        {
          const RspSleep *n = rsp_model_sleep (m, next);
          rsp_timeline_widget_show_range (self, n->start, n->end);
        }
    }
  else
    return FALSE;
  if (next != RSP_NONE)
    select_item (self, self->sel_kind, next, self->sel_row);
  return TRUE;
}

static void
on_click (GtkGestureClick *gesture, int n_press, double x, double y, RspTimelineWidget *self)
{
  RspTheme theme;
  RspTimelineViewport vp;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  viewport_for (self, &vp, &theme);
  RspTimelineHit hit;
  if (!rsp_timeline_view_hit_test (self->layout, &vp, &theme, x, y, &hit))
    return;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (hit.task != RSP_NONE)
    {
      const RspTask *t = rsp_model_task (self->model, hit.task);
      g_autofree char *what = NULL;
      if (hit.kind == RSP_TIMELINE_HIT_RUN && hit.item != RSP_NONE)
        {
          const RspRun *run = rsp_model_run (self->model, hit.item);
          g_autofree char *dur = rsp_format_duration (run->end - run->start);
          /* TRANSLATORS: a task, its pid and tid, when its run started, how long it ran, on which CPU */
          what = g_strdup_printf (_("%s (pid %d, tid %d), a run at %.3f ms for %s on CPU %d"),
                                  t->comm != NULL ? t->comm : "?", t->pid, t->tid,
                                  (run->start - rsp_model_start_time (self->model)) / 1e6, dur, run->cpu);
        }
      else
        what = g_strdup_printf (_("%s (pid %d, tid %d)"), t->comm != NULL ? t->comm : "?", t->pid, t->tid);
      rsp_widget_announce_selection (GTK_WIDGET (self), what);
    }
  static const gint item_of_hit[] = {
    [RSP_TIMELINE_HIT_RUN] = RSP_DETAILS_RUN,         [RSP_TIMELINE_HIT_SLEEP] = RSP_DETAILS_SLEEP,
    [RSP_TIMELINE_HIT_DISK_OP] = RSP_DETAILS_DISK_OP, [RSP_TIMELINE_HIT_NET_OP] = RSP_DETAILS_NET_OP,
    [RSP_TIMELINE_HIT_LINK] = RSP_DETAILS_LINK,
  };
  if (hit.item != RSP_NONE && (hit.kind == RSP_TIMELINE_HIT_RUN || hit.kind == RSP_TIMELINE_HIT_SLEEP
                               || hit.kind == RSP_TIMELINE_HIT_DISK_OP || hit.kind == RSP_TIMELINE_HIT_NET_OP
                               || hit.kind == RSP_TIMELINE_HIT_LINK))
    select_item (self, (RspDetailsItem) item_of_hit[hit.kind], hit.item, hit.row);
  if (hit.kind == RSP_TIMELINE_HIT_FOLD && hit.task != RSP_NONE)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (self->layout, (guint) hit.row);
      gint32 pid = row->pid;
      gboolean fold = !row->folded, was_toggled = FALSE;
      for (guint i = 0; i < self->toggled->len; i++)
        if (g_array_index (self->toggled, gint32, i) == pid)
          {
            g_array_remove_index_fast (self->toggled, i--);
            was_toggled = TRUE;
          }
      if (!was_toggled)
        g_array_append_val (self->toggled, pid);
      self->options.toggled = (const gint32 *) self->toggled->data;
      self->options.n_toggled = self->toggled->len;
      rebuild_layout (self);
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline: process %d %s, %u task rows", pid, fold ? "folded" : "unfolded",
             rsp_timeline_layout_n_task_rows (self->layout));
      return;
    }
  if (hit.kind == RSP_TIMELINE_HIT_NAME && hit.task != RSP_NONE)
    g_signal_emit (self, signals[SIGNAL_TASK_ACTIVATED], 0, hit.task);
  else if (n_press == 2 && hit.kind == RSP_TIMELINE_HIT_RUN)
    {
      const RspRun *run = rsp_model_run (self->model, hit.item);
      guint64 pad = MAX ((run->end - run->start) / 4, (guint64) 1000);
      rsp_time_nav_jump (&self->nav, run->start > pad ? run->start - pad : 0, run->end + pad);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static gboolean
on_key (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
        RspTimelineWidget *self)
{
  int lines;
  /* Left/Right step through the selected task's runs or sleeps */
  if ((keyval == GDK_KEY_Left || keyval == GDK_KEY_Right) && self->sel_item != RSP_NONE
      && !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) && step_item (self, keyval == GDK_KEY_Right ? 1 : -1))
    return TRUE;
  /* Z or Enter: zoom to the selected range, else to the selected run or sleep */
  gboolean zoom_key = keyval == GDK_KEY_z || keyval == GDK_KEY_Z || keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter;
  if (zoom_key && !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) && self->select_t1 > self->select_t0)
    {
      rsp_time_nav_jump (&self->nav, self->select_t0, self->select_t1);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return TRUE;
    }
  if (zoom_key && !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) && self->sel_item != RSP_NONE
      && (self->sel_kind == RSP_DETAILS_RUN || self->sel_kind == RSP_DETAILS_SLEEP))
    {
      guint64 t0, t1;
      if (self->sel_kind == RSP_DETAILS_RUN)
        t0 = rsp_model_run (self->model, self->sel_item)->start, t1 = rsp_model_run (self->model, self->sel_item)->end;
      else
        t0 = rsp_model_sleep (self->model, self->sel_item)->start,
        t1 = rsp_model_sleep (self->model, self->sel_item)->end;
      guint64 pad = MAX ((t1 - t0) / 20, (guint64) 1000);
      rsp_time_nav_jump (&self->nav, t0 > pad ? t0 - pad : 0, t1 + pad);
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline (zoom to the selection): %.3f-%.3f ms",
             (self->nav.t0 - rsp_model_start_time (self->model)) / 1e6,
             (self->nav.t1 - rsp_model_start_time (self->model)) / 1e6);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return TRUE;
    }
  if (!rsp_time_nav_key (&self->nav, keyval, state, &lines))
    return FALSE;
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline (key): %.3f-%.3f ms",
         (self->nav.t0 - rsp_model_start_time (self->model)) / 1e6,
         (self->nav.t1 - rsp_model_start_time (self->model)) / 1e6);
  if (lines != 0)
    {
      RspTheme theme;
      rsp_widget_theme (GTK_WIDGET (self), &theme);
      self->scroll_y += lines * theme.row_height;
      clamp_scroll (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

gboolean
rsp_timeline_widget_handle_key (RspTimelineWidget *self, guint keyval, GdkModifierType state)
{
  return on_key (NULL, keyval, 0, state, self);
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, RspTimelineWidget *self)
{
  self->pinch_scale = 1.0;
}

static void
on_pinch (GtkGestureZoom *gesture, double scale, RspTimelineWidget *self)
{
  double bx, by;
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &bx, &by);
  if (self->pinch_scale > 0)
    rsp_time_nav_zoom (&self->nav, scale / self->pinch_scale, time_fraction (self, bx));
  self->pinch_scale = scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static const char *
task_label (const RspModel *m, RspIdx task)
{
  const RspTask *t = rsp_model_task (m, task);
  return t->comm != NULL ? t->comm : "?";
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  RspTimelineWidget *self = RSP_TIMELINE_WIDGET (widget);
  RspTheme theme;
  RspTimelineViewport vp;
  rsp_widget_theme (widget, &theme);
  viewport_for (self, &vp, &theme);
  RspTimelineHit hit;
  if (!rsp_timeline_view_hit_test (self->layout, &vp, &theme, x, y, &hit))
    return FALSE;
  const RspModel *m = self->model;
  g_autoptr (GString) text = g_string_new (NULL);
  guint64 origin = rsp_model_start_time (m);
  switch (hit.kind)
    {
    case RSP_TIMELINE_HIT_NAME:
      if (hit.task == RSP_NONE)
        return FALSE;
      {
        const RspTask *t = rsp_model_task (m, hit.task);
        g_autofree char *cpu = rsp_format_duration (rsp_timeline_layout_row (self->layout, hit.row)->cpu_ns);
        g_string_append_printf (text, _("<b>%s</b> pid %d, tid %d\nCPU time: %s\nClick to open its flame view"),
                                task_label (m, hit.task), t->pid, t->tid, cpu);
      }
      break;
    case RSP_TIMELINE_HIT_FOLD:
      {
        const RspTimelineRow *row = rsp_timeline_layout_row (self->layout, hit.row);
        g_string_append_printf (text, row->folded ? ngettext ("Click to show its %u thread in rows of their own",
                                                             "Click to show its %u threads in rows of their own",
                                                             row->threads)
                                                  : ngettext ("Click to fold its %u thread into one row",
                                                             "Click to fold its %u threads into one row", row->threads),
                                row->threads);
      }
      break;
    case RSP_TIMELINE_HIT_RUN:
      {
        const RspRun *run = rsp_model_run (m, hit.item);
        g_autofree char *dur = rsp_format_duration (run->end - run->start);
        g_string_append_printf (text, _("<b>%s</b> ran %s on CPU %d\nfrom %.3f ms to %.3f ms"),
                                task_label (m, run->task), dur, run->cpu, (run->start - origin) / 1e6,
                                (run->end - origin) / 1e6);
        for (guint k = 0; k < run->n_samples && k < 3; k++)
          {
            const char *frame = rsp_model_sample_frame (m, run->first_sample + k);
            if (frame != NULL)
              g_string_append_printf (text, "\n  %s", frame);
          }
        if (run->wake_link != RSP_NONE)
          {
            const RspLink *link = rsp_model_link (m, run->wake_link);
            if (link->from_run != RSP_NONE)
              g_string_append_printf (text, _("\nwoken by %s"), task_label (m, rsp_model_run (m, link->from_run)->task));
          }
      }
      break;
    case RSP_TIMELINE_HIT_SLEEP:
      {
        const RspSleep *s = rsp_model_sleep (m, hit.item);
        g_autofree char *dur = rsp_format_duration (s->end - s->start);
        const char *frame = rsp_model_sleep_frame (m, hit.item);
        g_string_append_printf (text, _("<b>%s</b> slept %s in %s"), task_label (m, s->task), dur,
                                frame != NULL ? frame : "?");
        if (s->waker_run != RSP_NONE)
          g_string_append_printf (text, _("\nwoken by %s"), task_label (m, rsp_model_run (m, s->waker_run)->task));
      }
      break;
    case RSP_TIMELINE_HIT_DISK_OP:
      {
        const RspDiskOp *op = rsp_model_disk_op (m, hit.item);
        RspDiskOpSpans sp = rsp_disk_op_spans (op, 0);
        g_autofree char *queue = rsp_format_duration (sp.served > sp.queued ? sp.served - sp.queued : 0);
        g_autofree char *service = rsp_format_duration (sp.end > sp.served ? sp.end - sp.served : 0);
        g_string_append_printf (text, _("<b>disk %s</b> sector %llu + %u\nqueued %s, served %s"), op->rwbs,
                                (unsigned long long) op->sector, op->nr_sector, queue, service);
        if (op->merged)
          g_string_append (text, _("\nmerged into the request ahead of it"));
        if (op->task != RSP_NONE)
          g_string_append_printf (text, _("\nfor %s"), task_label (m, op->task));
      }
      break;
    case RSP_TIMELINE_HIT_NET_OP:
      {
        const RspNetOp *op = rsp_model_net_op (m, hit.item);
        g_string_append_printf (text, _("<b>network</b> %s\nfor %s"), op->endpoint != NULL ? op->endpoint : "?",
                                task_label (m, op->task));
      }
      break;
    case RSP_TIMELINE_HIT_LINK:
      {
        const RspLink *link = rsp_model_link (m, hit.item);
        g_string_append_printf (text, _("wake-up of %s at %.3f ms"), task_label (m, rsp_model_run (m, link->to_run)->task),
                                (link->time - origin) / 1e6);
      }
      break;
    default:
      return FALSE;
    }
  gtk_tooltip_set_markup (tooltip, text->str);
  return TRUE;
}

/* ------------------------------------------------------------------ API */

void
rsp_timeline_widget_set_show_sleeps (RspTimelineWidget *self, gboolean show)
{
  self->options.show_sleeps = show;
  rebuild_layout (self);
}

void
rsp_timeline_widget_set_summary (RspTimelineWidget *self, gboolean summary)
{
  self->options.summary = summary;
  rebuild_layout (self);
}

void
rsp_timeline_widget_set_path_pids (RspTimelineWidget *self, const gint32 *pids, guint n)
{
  g_return_if_fail (RSP_IS_TIMELINE_WIDGET (self));
  g_array_set_size (self->path_pids, 0);
  g_array_append_vals (self->path_pids, pids, n);
  self->options.path_pids = (const gint32 *) self->path_pids->data;
  self->options.n_path_pids = self->path_pids->len;
  rebuild_layout (self);
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, "rsp-ui"))
    return;
  /* for the GUI tests: the processes of the first rows */
  g_autoptr (GString) first = g_string_new (NULL);
  gint32 last = 0;
  guint shown = 0;
  for (guint r = 0; r < rsp_timeline_layout_n_task_rows (self->layout) && shown < 12; r++)
    {
      const RspTimelineRow *row = rsp_timeline_layout_row (self->layout, r);
      if (r > 0 && row->pid == last)
        continue;
      g_string_append_printf (first, "%s%d", first->len > 0 ? " " : "", row->pid);
      last = row->pid;
      shown++;
    }
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline: control paths first: %u processes; rows of %s", n, first->str);
}

void
rsp_timeline_widget_set_filter (RspTimelineWidget *self, gboolean filter)
{
  self->filter = filter;
  self->options.filter = filter ? self->search : NULL;
  rebuild_layout (self);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline filter %s: %u task rows, %u hidden", filter ? "on" : "off",
         rsp_timeline_layout_n_task_rows (self->layout), rsp_timeline_layout_n_hidden (self->layout));
}

void
rsp_timeline_widget_set_search (RspTimelineWidget *self, const char *text)
{
  g_free (self->search);
  self->search = text != NULL && *text != '\0' ? g_utf8_casefold (text, -1) : NULL;
  if (self->filter)
    {
      self->options.filter = self->search;
      rebuild_layout (self);
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline filter on: %u task rows, %u hidden",
             rsp_timeline_layout_n_task_rows (self->layout), rsp_timeline_layout_n_hidden (self->layout));
    }
  find_matches (self);
  self->match = 0;
  show_match (self);
}

void
rsp_timeline_widget_search_step (RspTimelineWidget *self, gint delta)
{
  guint n = self->matches->len;
  if (n == 0)
    return;
  self->match = (guint) (((gint64) self->match + delta % (gint) n + n) % n);
  show_match (self);
}

guint
rsp_timeline_widget_search_matches (RspTimelineWidget *self, guint *current)
{
  if (current != NULL)
    *current = self->match;
  return self->matches->len;
}

void
rsp_timeline_widget_zoom_fit (RspTimelineWidget *self)
{
  rsp_time_nav_fit_jump (&self->nav);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
export_draw (cairo_t *cr, double width, double height, const RspTheme *theme, gpointer data)
{
  RspTimelineWidget *self = data;
  RspTimelineViewport vp;
  viewport_for (self, &vp, theme);
  vp.width = width;
  vp.height = height;
  rsp_timeline_view_draw (self->layout, &vp, theme, cr);
}

gboolean
rsp_timeline_widget_export (RspTimelineWidget *self, const char *path, GError **error)
{
  return rsp_widget_export (GTK_WIDGET (self), path, export_draw, self, error);
}

static void
rsp_timeline_widget_finalize (GObject *object)
{
  RspTimelineWidget *self = RSP_TIMELINE_WIDGET (object);
  g_clear_pointer (&self->layout, rsp_timeline_layout_free);
  g_array_unref (self->matches);
  g_array_unref (self->toggled);
  g_array_unref (self->path_pids);
  g_free (self->search);
  G_OBJECT_CLASS (rsp_timeline_widget_parent_class)->finalize (object);
}

static void
rsp_timeline_widget_class_init (RspTimelineWidgetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->finalize = rsp_timeline_widget_finalize;
  widget_class->snapshot = rsp_timeline_widget_snapshot;
  signals[SIGNAL_TASK_ACTIVATED] = g_signal_new ("task-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_RANGE_SELECTED] = g_signal_new ("range-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
  signals[SIGNAL_ITEM_SELECTED] = g_signal_new ("item-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rsp_timeline_widget_init (RspTimelineWidget *self)
{
  self->hover_row = -1;
  self->sel_item = RSP_NONE;
  self->matches = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->toggled = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->path_pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  static const RspViewInput input = {
    .scroll = G_CALLBACK (on_scroll),
    .motion = G_CALLBACK (on_motion),
    .leave = G_CALLBACK (on_leave),
    .drag_begin = G_CALLBACK (on_drag_begin),
    .drag_update = G_CALLBACK (on_drag_update),
    .drag_end = G_CALLBACK (on_drag_end),
    .click_released = G_CALLBACK (on_click),
    .key_pressed = G_CALLBACK (on_key),
    .pinch_begin = G_CALLBACK (on_pinch_begin),
    .pinch_scale_changed = G_CALLBACK (on_pinch),
    .query_tooltip = G_CALLBACK (on_query_tooltip),
  };
  rsp_widget_add_view_input (GTK_WIDGET (self), &input, self);
}

GtkWidget *
rsp_timeline_widget_new (const RspModel *model, gint32 pid)
{
  RspTimelineWidget *self = g_object_new (RSP_TYPE_TIMELINE_WIDGET, NULL);
  self->model = model;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Process running view"), -1);
  rsp_timeline_options_init (&self->options);
  self->options.pid = pid;
  self->options.show_links = TRUE;
  self->options.fold_threads = TRUE; /* a click on the mark unfolds a process */
  self->layout = rsp_timeline_layout_new (model, &self->options);
  rsp_time_nav_init (&self->nav, rsp_timeline_layout_start (self->layout), rsp_timeline_layout_end (self->layout));
  return GTK_WIDGET (self);
}
