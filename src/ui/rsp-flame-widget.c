/* rsp-flame-widget.c — input and layout caching for the flame views. */
#include "rsp-flame-widget.h"

#include <glib/gi18n.h>
#include <math.h>

#include "rsp-consolidated-view.h"
#include "rsp-flame-view.h"
#include "rsp-widget-util.h"

#define ZOOM_STEP 1.25

struct _RspFlameWidget {
  GtkWidget parent_instance;

  const RspAnalysis *analysis;
  RspFlameWidgetMode mode;
  RspFlameLayout *layout; /* rebuilt when the zoom, the stacks or the scale change */
  RspTimeNav nav;
  double scroll_y;
  char *search;
  GArray *matches;        /* the search's matches, made on first use: chronological (start, end) pairs, consolidated node ids */
  gint match;             /* the one shown, -1 for none */
  gint highlight_category;
  char **zoom_path;       /* consolidated */
  gboolean inverted;      /* consolidated, bottom-up */
  double pointer_x;
  guint64 drag_t0;
  double drag_scroll;
  double pinch_scale;
  guint relayout_source; /* a new zoom's layout, made once zooming pauses */
  GtkWidget *scrollbar;   /* deep stacks: shown when the content is taller than the widget */
  GtkAdjustment *vadjustment; /* its value is from the top; scroll_y is from the bottom */
  gboolean syncing;
  /* a group of analyses (requests) in one consolidated tree, and the
   * group it is compared with (a differential flame), or NULL */
  GPtrArray *group, *base;
  float *delta;           /* per box of the layout, when BASE */
  gboolean group_inverted; /* what the group's layout was made for */
  /* the selected box (a click, the arrow keys), kept across layouts: its
   * row and span (chronological) or its tree node (consolidated) */
  gboolean has_sel;
  guint sel_row;
  guint64 sel_start, sel_end;
  guint32 sel_node;
};

G_DEFINE_FINAL_TYPE (RspFlameWidget, rsp_flame_widget, GTK_TYPE_WIDGET)

enum {
  SIGNAL_FRAME_SELECTED,
  SIGNAL_MOMENT_SELECTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static gint
compare_spans (gconstpointer pa, gconstpointer pb)
{
  const guint64 *a = pa, *b = pb;
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

static void
chrono_options (RspFlameWidget *self, RspFlameOptions *o)
{
  rsp_flame_options_init (o);
  o->t0 = self->nav.t0;
  o->t1 = self->nav.t1;
  o->search = self->search;
  o->highlight_category = self->highlight_category;
  o->scroll_y = self->scroll_y;
}

static void
consolidated_options (RspFlameWidget *self, RspConsolidatedOptions *o)
{
  rsp_consolidated_options_init (o);
  o->search = self->search;
  o->highlight_category = self->highlight_category;
  o->zoom_path = (const char *const *) self->zoom_path;
  o->scroll_y = self->scroll_y;
  o->inverted = self->inverted;
}

#define RELAYOUT_DELAY_MS 120

static gboolean
relayout (gpointer data)
{
  RspFlameWidget *self = data;
  self->relayout_source = 0;
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  RspFlameOptions o;
  chrono_options (self, &o);
  if (self->layout != NULL && !rsp_flame_view_layout_fits (self->layout, self->analysis, &o, &theme, width))
    {
      /* re-merged from the old layout's boxes: about twice as fast */
      RspFlameLayout *rezoomed = rsp_flame_view_layout_rezoom (self->layout, self->analysis, &o, &theme, width);
      rsp_flame_layout_free (self->layout);
      self->layout = rezoomed;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  return G_SOURCE_REMOVE;
}

/* The group's tree (and its colours against the base) for options O. */
static void
group_layout (RspFlameWidget *self, const RspConsolidatedOptions *o, const RspTheme *theme)
{
  g_clear_pointer (&self->layout, rsp_flame_layout_free);
  g_clear_pointer (&self->delta, g_free);
  self->layout = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) self->group->pdata,
                                                     self->group->len, o, theme);
  self->group_inverted = self->inverted;
  if (self->base != NULL && self->base->len > 0)
    {
      g_autoptr (RspFlameLayout) base = rsp_consolidated_view_layout_group (
          (const RspAnalysis *const *) self->base->pdata, self->base->len, o, theme);
      /* the mean request of each group */
      self->delta = rsp_consolidated_view_diff_scaled (base, 1.0 / self->base->len, self->layout,
                                                       1.0 / self->group->len);
    }
  /* for the GUI tests: the box whose own time (less what stands on it)
   * gained most */
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, "rsp-ui"))
    return;
  guint32 n_boxes = self->layout->boxes->len, reddest = RSP_FLAME_NO_BOX;
  g_autofree float *own = self->delta != NULL ? g_memdup2 (self->delta, MAX (n_boxes, 1) * sizeof (float)) : NULL;
  for (guint32 i = 0; own != NULL && i < n_boxes; i++)
    {
      guint32 parent = rsp_flame_layout_box (self->layout, i)->parent;
      if (parent != RSP_FLAME_NO_BOX && parent < n_boxes)
        own[parent] -= self->delta[i];
    }
  for (guint32 i = 0; own != NULL && i < n_boxes; i++)
    if (reddest == RSP_FLAME_NO_BOX || own[i] > own[reddest])
      reddest = i;
  /* ... and the frames it stands on */
  g_autoptr (GString) path = g_string_new (reddest == RSP_FLAME_NO_BOX ? "-" : NULL);
  for (guint32 i = reddest; i != RSP_FLAME_NO_BOX && i < n_boxes; i = rsp_flame_layout_box (self->layout, i)->parent)
    g_string_append_printf (path, "%s%s", path->len > 0 ? " < " : "", rsp_flame_layout_box (self->layout, i)->name);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "group flame: %u analyses against %u, %.3f ms in all; gained most: %s",
         self->group->len, self->base != NULL ? self->base->len : 0,
         rsp_consolidated_view_total_ns (self->layout) / 1e6, path->str);
}

/* The layout for the current zoom and size (a new zoom is laid out once
 * zooming pauses, see relayout). */
static RspFlameLayout *
current_layout (RspFlameWidget *self, const RspTheme *theme, double width)
{
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    {
      RspFlameOptions o;
      chrono_options (self, &o);
      if (self->layout == NULL)
        self->layout = rsp_flame_view_layout (self->analysis, &o, theme, width);
      else if (!rsp_flame_view_layout_fits (self->layout, self->analysis, &o, theme, width)
               && self->relayout_source == 0)
        /* a new zoom: keep drawing the old layout (right geometry, merged
         * for the old zoom) while the wheel or the pinch goes on, and
         * re-merge once it pauses, so zooming stays smooth */
        self->relayout_source = g_timeout_add (RELAYOUT_DELAY_MS, relayout, self);
    }
  else
    {
      RspConsolidatedOptions o;
      consolidated_options (self, &o);
      if (self->group != NULL)
        {
          if (self->layout == NULL || self->layout->scale != theme->scale
              || self->group_inverted != self->inverted)
            group_layout (self, &o, theme);
        }
      else if (self->layout == NULL
               || !rsp_consolidated_view_layout_fits (self->layout, self->analysis, &o, theme))
        {
          g_clear_pointer (&self->layout, rsp_flame_layout_free);
          self->layout = rsp_consolidated_view_layout (self->analysis, &o, theme);
          /* for the GUI tests: the widest box at the bottom (the first) */
          guint n;
          const RspFlameBox *row = rsp_flame_layout_n_rows (self->layout) > 0
                                       ? rsp_flame_layout_row (self->layout, 0, &n) : NULL;
          if (row != NULL && n > 0)
            g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "consolidated view (%s): widest at the bottom: %s, %.3f ms",
                   self->inverted ? "bottom-up" : "top-down", row[0].name, (row[0].end - row[0].start) / 1e6);
        }
    }
  return self->layout;
}

static void
draw (RspFlameWidget *self, cairo_t *cr, const RspTheme *theme, double w, double h)
{
  RspFlameLayout *layout = current_layout (self, theme, w);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    {
      RspFlameOptions o;
      chrono_options (self, &o);
      rsp_flame_view_draw_layout (layout, &o, theme, cr, w, h);
    }
  else
    {
      RspConsolidatedOptions o;
      consolidated_options (self, &o);
      rsp_consolidated_view_draw_layout_delta (layout, self->delta, &o, theme, cr, w, h);
    }
}

static void draw_selection (RspFlameWidget *self, cairo_t *cr, const RspTheme *theme, double w, double h);

static void
rsp_flame_widget_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  RspFlameWidget *self = RSP_FLAME_WIDGET (widget);
  double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  if (w < 1 || h < 1)
    return;
  RspTheme theme;
  rsp_widget_theme (widget, &theme);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  draw (self, cr, &theme, w, h);
  draw_selection (self, cr, &theme, w, h);
  cairo_destroy (cr);
  gtk_widget_snapshot_child (widget, self->scrollbar, snapshot);
}

/* ------------------------------------------------------------------ selection */

/* The selected box in LAYOUT, RSP_FLAME_NO_BOX if none is drawn. */
static guint32
selected_box (RspFlameWidget *self, const RspFlameLayout *layout)
{
  if (!self->has_sel || layout == NULL)
    return RSP_FLAME_NO_BOX;
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    /* boxes merge differently at another zoom: the one at its middle */
    return rsp_flame_layout_find (layout, self->sel_row, self->sel_start + (self->sel_end - self->sel_start) / 2, 0);
  for (guint32 i = 0; i < layout->boxes->len; i++)
    if (g_array_index (layout->boxes, RspFlameBox, i).ref == self->sel_node)
      return i;
  return RSP_FLAME_NO_BOX;
}

static void
viewport (RspFlameWidget *self, const RspFlameLayout *layout, double w, double h, RspFlameViewport *vp)
{
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    {
      RspFlameOptions o;
      chrono_options (self, &o);
      rsp_flame_view_viewport (layout, &o, w, h, vp);
    }
  else
    {
      RspConsolidatedOptions o;
      consolidated_options (self, &o);
      rsp_consolidated_view_viewport (layout, &o, w, h, vp);
    }
}

/* An outline around the selected box. */
static void
draw_selection (RspFlameWidget *self, cairo_t *cr, const RspTheme *theme, double w, double h)
{
  guint32 i = selected_box (self, self->layout);
  if (i == RSP_FLAME_NO_BOX)
    return;
  RspFlameViewport vp;
  viewport (self, self->layout, w, h, &vp);
  double x, y, bw, bh;
  rsp_flame_layout_box_rect (self->layout, &vp, rsp_flame_layout_box (self->layout, i), &x, &y, &bw, &bh);
  if (bw <= 0 || y + bh < vp.top || y > vp.bottom)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, x + 1, y + 1, MAX (bw - 2, 1), MAX (bh - 2, 1));
  rsp_flame_set_color (cr, theme->foreground, 1.0);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* For the GUI tests: the box selected, by a click or a key, and where. */
static void
log_selection (RspFlameWidget *self, const RspFlameBox *box, const char *how, double x, double y)
{
  guint64 origin = self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL ? rsp_analysis_start (self->analysis) : 0;
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "flame selection (%s, %s): %s, row %u, %.3f-%.3f ms, at %.0f,%.0f",
         self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL ? "chronological" : "consolidated", how, box->name, box->row,
         (box->start - origin) / 1e6, (box->end - origin) / 1e6, x, y);
}

static void
set_selection (RspFlameWidget *self, const RspFlameBox *box)
{
  self->has_sel = TRUE;
  self->sel_row = box->row;
  self->sel_start = box->start;
  self->sel_end = box->end;
  self->sel_node = box->ref;
}

static gboolean
hit_test (RspFlameWidget *self, double x, double y, RspFlameHit *hit)
{
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  RspFlameLayout *layout = current_layout (self, &theme, w);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    {
      RspFlameOptions o;
      chrono_options (self, &o);
      return rsp_flame_view_hit_test (layout, &o, w, h, x, y, hit);
    }
  RspConsolidatedOptions o;
  consolidated_options (self, &o);
  return rsp_consolidated_view_hit_test (layout, &o, w, h, x, y, hit);
}

static double
content_height (RspFlameWidget *self)
{
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  RspFlameLayout *layout = current_layout (self, &theme, gtk_widget_get_width (GTK_WIDGET (self)));
  return self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL ? rsp_flame_view_content_height (layout)
                                                      : rsp_consolidated_view_content_height (layout);
}

/* The scrollbar follows scroll_y: the content's height, the widget's as
 * the page, the value counted from the top. */
static void
sync_scrollbar (RspFlameWidget *self)
{
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  if (height < 1 || self->vadjustment == NULL)
    return;
  double content = MAX (content_height (self), height);
  self->syncing = TRUE;
  gtk_adjustment_configure (self->vadjustment, content - height - self->scroll_y, 0, content, 40, height * 0.9,
                            height);
  self->syncing = FALSE;
  /* child-visible, not visible: this runs inside size_allocate too */
  gboolean show = content > height + 0.5;
  if (show != gtk_widget_get_child_visible (self->scrollbar))
    {
      /* for the GUI tests: where it is in the window */
      graphene_point_t at = GRAPHENE_POINT_INIT (0, 0);
      GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));
      if (root == NULL || !gtk_widget_compute_point (GTK_WIDGET (self), root, &GRAPHENE_POINT_INIT (0, 0), &at))
        at = GRAPHENE_POINT_INIT (-1, -1);
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG,
             "flame view scrollbar: %s, content %.0f px in %.0f px, at x %.0f-%d y %.0f in the window",
             show ? "shown" : "hidden", content, height, at.x, (int) at.x + gtk_widget_get_width (GTK_WIDGET (self)),
             at.y);
    }
  gtk_widget_set_child_visible (self->scrollbar, show);
}

static void
clamp_scroll (RspFlameWidget *self)
{
  double max = content_height (self) - gtk_widget_get_height (GTK_WIDGET (self));
  self->scroll_y = CLAMP (self->scroll_y, 0.0, MAX (0.0, max));
  sync_scrollbar (self);
}

static void
on_scrollbar_moved (GtkAdjustment *adjustment, RspFlameWidget *self)
{
  if (self->syncing)
    return;
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  self->scroll_y = gtk_adjustment_get_upper (adjustment) - height - gtk_adjustment_get_value (adjustment);
  clamp_scroll (self);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "flame view scrolled by its scrollbar: %.0f px up from the bottom", self->scroll_y);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
rsp_flame_widget_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  RspFlameWidget *self = RSP_FLAME_WIDGET (widget);
  /* over the right edge, as overlay scrollbars are */
  int min, nat;
  gtk_widget_measure (self->scrollbar, GTK_ORIENTATION_HORIZONTAL, height, &min, &nat, NULL, NULL);
  gtk_widget_size_allocate (self->scrollbar, &(GtkAllocation) { MAX (width - nat, 0), 0, MIN (nat, width), height },
                            -1);
  clamp_scroll (self);
}

static double
fraction_at (RspFlameWidget *self, double x)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  return w > 0 ? x / w : 0.5;
}

/* ------------------------------------------------------------------ input */

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, RspFlameWidget *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gboolean chrono = self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL;
  if (chrono && (state & GDK_CONTROL_MASK))
    rsp_time_nav_zoom (&self->nav, dy < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, fraction_at (self, self->pointer_x));
  else if (chrono && ((state & GDK_SHIFT_MASK) || dx != 0))
    rsp_time_nav_pan (&self->nav, 0.05 * (dx != 0 ? dx : dy));
  else
    {
      /* flames grow upwards: the wheel moves the content like a page */
      self->scroll_y -= dy * 40;
      clamp_scroll (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, RspFlameWidget *self)
{
  self->pointer_x = x;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, RspFlameWidget *self)
{
  self->drag_t0 = self->nav.t0;
  self->drag_scroll = self->scroll_y;
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, RspFlameWidget *self)
{
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    {
      double w = gtk_widget_get_width (GTK_WIDGET (self));
      double ns_per_px = w > 0 ? (double) (self->nav.t1 - self->nav.t0) / w : 0;
      double t0 = MAX ((double) self->drag_t0 - dx * ns_per_px, (double) self->nav.min);
      rsp_time_nav_show (&self->nav, (guint64) t0, (guint64) t0 + (self->nav.t1 - self->nav.t0));
    }
  self->scroll_y = self->drag_scroll + dy;
  clamp_scroll (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
zoom_to_node (RspFlameWidget *self, guint32 node)
{
  g_strfreev (self->zoom_path);
  self->zoom_path = rsp_consolidated_view_node_path (self->layout, node);
  self->scroll_y = 0;
  sync_scrollbar (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Says what HIT is (the accessible description) and tells the panes: the
 * frame's name for the callers table, the moment at X for the details. */
static void
announce_hit (RspFlameWidget *self, const RspFlameHit *hit, double x)
{
  if (hit->what == RSP_FLAME_HIT_BOX && hit->name != NULL)
    {
      g_autofree char *dur = rsp_format_duration (hit->ns);
      g_autofree char *what = NULL;
      if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && hit->task != RSP_NONE)
        {
          const RspTask *t = rsp_model_task (rsp_analysis_model (self->analysis), hit->task);
          /* TRANSLATORS: a frame, its time, the category under the pointer, the task */
          what = g_strdup_printf (_("%s, %s, %s, in %s (pid %d)"), hit->name, dur, _(rsp_category_label (hit->category)),
                                  t->comm != NULL ? t->comm : "?", t->pid);
        }
      else
        /* TRANSLATORS: a frame, its time, its percent of the total */
        what = g_strdup_printf (_("%s, %s, %.1f%% of the time"), hit->name, dur, hit->percent);
      rsp_widget_announce_selection (GTK_WIDGET (self), what);
      g_signal_emit (self, signals[SIGNAL_FRAME_SELECTED], 0, hit->name);
    }
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && hit->what == RSP_FLAME_HIT_BOX && hit->segment != RSP_NONE)
    {
      /* the moment under the pointer, before a click zooms */
      guint64 t = self->nav.t0 + (guint64) (fraction_at (self, x) * (double) (self->nav.t1 - self->nav.t0));
      g_signal_emit (self, signals[SIGNAL_MOMENT_SELECTED], 0, (guint) hit->segment, (guint64) t, hit->name);
    }
}

static void
on_click (GtkGestureClick *gesture, int n_press, double x, double y, RspFlameWidget *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  RspFlameHit hit;
  if (!hit_test (self, x, y, &hit))
    return;
  if (hit.what == RSP_FLAME_HIT_BOX && hit.box != RSP_FLAME_NO_BOX)
    {
      set_selection (self, rsp_flame_layout_box (self->layout, hit.box));
      log_selection (self, rsp_flame_layout_box (self->layout, hit.box), "click", x, y);
    }
  announce_hit (self, &hit, x);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && hit.what == RSP_FLAME_HIT_BOX)
    rsp_flame_widget_show_range (self, hit.start, hit.end);
  else if (self->mode == RSP_FLAME_WIDGET_CONSOLIDATED
           && (hit.what == RSP_FLAME_HIT_BOX || hit.what == RSP_FLAME_HIT_BREADCRUMB))
    zoom_to_node (self, hit.node);
}

/* Brings box I of the layout into view: the time axis (chronological)
 * pans to it, keeping the zoom unless the box is wider than the view;
 * the rows scroll to it. */
static void
reveal_box (RspFlameWidget *self, guint32 i)
{
  const RspFlameBox *b = rsp_flame_layout_box (self->layout, i);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && (b->start < self->nav.t0 || b->end > self->nav.t1))
    {
      guint64 span = self->nav.t1 - self->nav.t0;
      if (b->end - b->start > span)
        rsp_flame_widget_show_range (self, b->start, b->end);
      else
        {
          guint64 mid = b->start + (b->end - b->start) / 2;
          rsp_time_nav_show (&self->nav, mid > span / 2 ? mid - span / 2 : 0, (mid > span / 2 ? mid - span / 2 : 0) + span);
        }
    }
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  RspFlameViewport vp;
  viewport (self, self->layout, w, h, &vp);
  double x, y, bw, bh;
  rsp_flame_layout_box_rect (self->layout, &vp, b, &x, &y, &bw, &bh);
  /* a row's screen y grows with scroll_y (the content moves down) */
  if (y < vp.top)
    self->scroll_y += vp.top - y + bh;
  else if (y + bh > vp.bottom)
    self->scroll_y -= y + bh - vp.bottom + bh;
  clamp_scroll (self);
}

/* The arrow keys move the selection: Left and Right to the box before or
 * after it in its row, Up to the widest box standing on it, Down to the
 * box it stands on.  In the consolidated view an arrow with nothing
 * selected selects the widest box at the base. */
static gboolean
move_selection (RspFlameWidget *self, guint keyval)
{
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  RspFlameLayout *l = current_layout (self, &theme, MAX (w, 1));
  if (l == NULL || rsp_flame_layout_n_rows (l) == 0)
    return FALSE;
  guint32 i = selected_box (self, l), target = RSP_FLAME_NO_BOX;
  if (i == RSP_FLAME_NO_BOX)
    {
      if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
        return FALSE; /* the arrows pan and scroll */
      guint n;
      const RspFlameBox *base = rsp_flame_layout_row (l, 0, &n);
      for (guint k = 0; k < n; k++)
        if (target == RSP_FLAME_NO_BOX || base[k].end - base[k].start > base[target].end - base[target].start)
          target = k;
    }
  else
    {
      const RspFlameBox *b = rsp_flame_layout_box (l, i);
      guint n, n_above = 0;
      const RspFlameBox *row = rsp_flame_layout_row (l, b->row, &n);
      guint32 first = (guint32) (row - (const RspFlameBox *) l->boxes->data);
      const RspFlameBox *above = b->row + 1 < rsp_flame_layout_n_rows (l) ? rsp_flame_layout_row (l, b->row + 1, &n_above)
                                                                         : NULL;
      guint32 first_above = above != NULL ? (guint32) (above - (const RspFlameBox *) l->boxes->data) : 0;
      switch (keyval)
        {
        case GDK_KEY_Left:
        case GDK_KEY_KP_Left:
          target = i > first ? i - 1 : RSP_FLAME_NO_BOX;
          break;
        case GDK_KEY_Right:
        case GDK_KEY_KP_Right:
          target = i + 1 < first + n ? i + 1 : RSP_FLAME_NO_BOX;
          break;
        case GDK_KEY_Down:
        case GDK_KEY_KP_Down:
          target = b->parent;
          break;
        default:
          for (guint k = 0; k < n_above; k++)
            if (above[k].parent == i
                && (target == RSP_FLAME_NO_BOX
                    || above[k].end - above[k].start > above[target - first_above].end - above[target - first_above].start))
              target = first_above + k;
          break;
        }
    }
  if (target == RSP_FLAME_NO_BOX)
    return TRUE; /* at an edge: the selection stays */
  const RspFlameBox *t = rsp_flame_layout_box (l, target);
  set_selection (self, t);
  reveal_box (self, target);
  /* what a click at the middle of its visible part would say */
  RspFlameViewport vp;
  viewport (self, l, w, h, &vp);
  double x, y, bw, bh;
  rsp_flame_layout_box_rect (l, &vp, t, &x, &y, &bw, &bh);
  RspFlameHit hit;
  if (hit_test (self, x + bw / 2, y + bh / 2, &hit) && hit.what == RSP_FLAME_HIT_BOX && hit.box == target)
    announce_hit (self, &hit, x + bw / 2);
  else
    {
      rsp_flame_hit_init (&hit);
      hit.what = RSP_FLAME_HIT_BOX;
      hit.name = t->name;
      hit.ns = t->end - t->start;
      announce_hit (self, &hit, x + bw / 2);
    }
  log_selection (self, t, "key", x + bw / 2, y + bh / 2);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

/* Z or Enter: the selected box fills the view. */
static gboolean
zoom_to_selection (RspFlameWidget *self)
{
  if (!self->has_sel)
    return FALSE;
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    rsp_flame_widget_show_range (self, self->sel_start, self->sel_end);
  else
    zoom_to_node (self, self->sel_node);
  return TRUE;
}

/* For the GUI tests (G_MESSAGES_DEBUG=rsp-ui): the range shown. */
static void
log_range (RspFlameWidget *self, const char *why)
{
  guint64 origin = rsp_analysis_start (self->analysis);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "flame view (%s): %.3f-%.3f ms, %u back", why,
         (self->nav.t0 - origin) / 1e6, (self->nav.t1 - origin) / 1e6, rsp_time_nav_history_length (&self->nav));
}

static gboolean
on_key (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, RspFlameWidget *self)
{
  gboolean plain = !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK | GDK_SHIFT_MASK));
  if (plain && (keyval == GDK_KEY_Left || keyval == GDK_KEY_Right || keyval == GDK_KEY_Up || keyval == GDK_KEY_Down
                || keyval == GDK_KEY_KP_Left || keyval == GDK_KEY_KP_Right || keyval == GDK_KEY_KP_Up
                || keyval == GDK_KEY_KP_Down)
      && move_selection (self, keyval))
    return TRUE;
  if (plain && (keyval == GDK_KEY_z || keyval == GDK_KEY_Z || keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter)
      && zoom_to_selection (self))
    return TRUE;
  if (self->mode == RSP_FLAME_WIDGET_CONSOLIDATED)
    {
      if (keyval == GDK_KEY_Escape || keyval == GDK_KEY_0)
        {
          g_clear_pointer (&self->zoom_path, g_strfreev);
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return TRUE;
        }
      return FALSE;
    }
  int lines;
  if (!rsp_time_nav_key (&self->nav, keyval, state, &lines))
    return FALSE;
  log_range (self, "key");
  self->scroll_y -= lines * 40;
  clamp_scroll (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

gboolean
rsp_flame_widget_handle_key (RspFlameWidget *self, guint keyval, GdkModifierType state)
{
  return on_key (NULL, keyval, 0, state, self);
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, RspFlameWidget *self)
{
  self->pinch_scale = 1.0;
}

static void
on_pinch (GtkGestureZoom *gesture, double scale, RspFlameWidget *self)
{
  double bx, by;
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &bx, &by);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && self->pinch_scale > 0)
    rsp_time_nav_zoom (&self->nav, scale / self->pinch_scale, fraction_at (self, bx));
  self->pinch_scale = scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  RspFlameWidget *self = RSP_FLAME_WIDGET (widget);
  RspFlameHit hit;
  if (!hit_test (self, x, y, &hit) || hit.what == RSP_FLAME_HIT_NONE)
    return FALSE;
  g_autofree char *dur = rsp_format_duration (hit.ns);
  g_autofree char *name = g_markup_escape_text (hit.name != NULL ? hit.name : "?", -1);
  g_autoptr (GString) text = g_string_new (NULL);
  g_string_append_printf (text, "<b>%s</b>\n%s (%.1f%%)", name, dur, hit.percent);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL && hit.what == RSP_FLAME_HIT_BOX)
    {
      const RspModel *m = rsp_analysis_model (self->analysis);
      if (hit.task != RSP_NONE)
        {
          const RspTask *t = rsp_model_task (m, hit.task);
          g_autofree char *comm = g_markup_escape_text (t->comm != NULL ? t->comm : "?", -1);
          g_string_append_printf (text, _("\nin %s (pid %d, tid %d), control path #%u"), comm, t->pid, t->tid,
                                  hit.path);
        }
      g_string_append_printf (text, "\n%s", _(rsp_category_label (hit.category)));
    }
  if (self->mode == RSP_FLAME_WIDGET_CONSOLIDATED && hit.what == RSP_FLAME_HIT_BOX)
    g_string_append (text, _("\nClick to zoom into it"));
  gtk_tooltip_set_markup (tooltip, text->str);
  return TRUE;
}

/* ------------------------------------------------------------------ API */

void
rsp_flame_widget_set_search (RspFlameWidget *self, const char *text)
{
  g_free (self->search);
  self->search = text != NULL && *text != '\0' ? g_strdup (text) : NULL;
  g_clear_pointer (&self->matches, g_array_unref);
  self->match = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The boxes the search highlights, in time order (chronological, at the
 * zoom shown when the search was typed) or in the tree's order
 * (consolidated): what Enter and Shift+Enter step through. */
static GArray *
matches (RspFlameWidget *self)
{
  if (self->matches != NULL || self->search == NULL)
    return self->matches;
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (self), &theme);
  RspFlameLayout *l = current_layout (self, &theme, MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1));
  self->matches = g_array_new (FALSE, FALSE, sizeof (guint64) * 2);
  for (guint i = 0; l != NULL && i < l->boxes->len; i++)
    {
      const RspFlameBox *b = &g_array_index (l->boxes, RspFlameBox, i);
      if (!rsp_flame_name_matches (b->name, self->search))
        continue;
      guint64 m[2] = { b->start, b->end };
      if (self->mode == RSP_FLAME_WIDGET_CONSOLIDATED)
        m[0] = m[1] = b->ref;
      g_array_append_val (self->matches, m);
    }
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    g_array_sort (self->matches, compare_spans);
  return self->matches;
}

guint
rsp_flame_widget_search_matches (RspFlameWidget *self, guint *current)
{
  GArray *m = matches (self);
  if (current != NULL)
    *current = self->match >= 0 ? (guint) self->match : 0;
  return m != NULL ? m->len : 0;
}

void
rsp_flame_widget_search_step (RspFlameWidget *self, gint delta)
{
  GArray *m = matches (self);
  if (m == NULL || m->len == 0)
    return;
  gint n = (gint) m->len;
  self->match = self->match < 0 ? (delta > 0 ? 0 : n - 1) : ((self->match + delta) % n + n) % n;
  const guint64 *span = &g_array_index (m, guint64, 2 * (guint) self->match);
  if (self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL)
    rsp_flame_widget_show_range (self, span[0], span[1]);
  else
    zoom_to_node (self, (guint32) span[0]);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "flame search (%s): %d of %d",
         self->mode == RSP_FLAME_WIDGET_CHRONOLOGICAL ? "chronological" : "consolidated", self->match + 1, n);
}

void
rsp_flame_widget_set_highlight_category (RspFlameWidget *self, gint category)
{
  self->highlight_category = category;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
rsp_flame_widget_show_range (RspFlameWidget *self, guint64 t0, guint64 t1)
{
  guint64 pad = MAX ((t1 - MIN (t0, t1)) / 20, (guint64) 1000);
  rsp_time_nav_jump (&self->nav, t0 > pad ? t0 - pad : 0, t1 + pad);
  log_range (self, "show");
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
rsp_flame_widget_set_inverted (RspFlameWidget *self, gboolean inverted)
{
  g_return_if_fail (self->mode == RSP_FLAME_WIDGET_CONSOLIDATED);
  if (self->inverted == !!inverted)
    return;
  self->inverted = !!inverted;
  /* a zoom path names callees top-down and callers bottom-up, and the
   * trees' nodes differ: start over */
  g_clear_pointer (&self->zoom_path, g_strfreev);
  self->has_sel = FALSE;
  self->scroll_y = 0;
  sync_scrollbar (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
rsp_flame_widget_get_inverted (RspFlameWidget *self)
{
  return self->inverted;
}

static void
export_draw (cairo_t *cr, double width, double height, const RspTheme *theme, gpointer data)
{
  RspFlameWidget *self = data;
  /* laid out for the export's scale, then dropped */
  g_clear_pointer (&self->layout, rsp_flame_layout_free);
  draw (self, cr, theme, width, height);
  g_clear_pointer (&self->layout, rsp_flame_layout_free);
}

gboolean
rsp_flame_widget_export (RspFlameWidget *self, const char *path, GError **error)
{
  return rsp_widget_export (GTK_WIDGET (self), path, export_draw, self, error);
}

static void
rsp_flame_widget_dispose (GObject *object)
{
  RspFlameWidget *self = RSP_FLAME_WIDGET (object);
  g_clear_handle_id (&self->relayout_source, g_source_remove);
  g_clear_pointer (&self->scrollbar, gtk_widget_unparent);
  self->vadjustment = NULL; /* the scrollbar's */
  G_OBJECT_CLASS (rsp_flame_widget_parent_class)->dispose (object);
}

static void
rsp_flame_widget_finalize (GObject *object)
{
  RspFlameWidget *self = RSP_FLAME_WIDGET (object);
  g_clear_pointer (&self->layout, rsp_flame_layout_free);
  g_clear_pointer (&self->delta, g_free);
  g_clear_pointer (&self->group, g_ptr_array_unref);
  g_clear_pointer (&self->base, g_ptr_array_unref);
  g_clear_pointer (&self->zoom_path, g_strfreev);
  g_clear_pointer (&self->matches, g_array_unref);
  g_free (self->search);
  G_OBJECT_CLASS (rsp_flame_widget_parent_class)->finalize (object);
}

static void
rsp_flame_widget_class_init (RspFlameWidgetClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rsp_flame_widget_dispose;
  G_OBJECT_CLASS (klass)->finalize = rsp_flame_widget_finalize;
  GTK_WIDGET_CLASS (klass)->snapshot = rsp_flame_widget_snapshot;
  GTK_WIDGET_CLASS (klass)->size_allocate = rsp_flame_widget_size_allocate;
  signals[SIGNAL_FRAME_SELECTED] = g_signal_new ("frame-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_MOMENT_SELECTED] = g_signal_new ("moment-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT64,
                                                  G_TYPE_STRING);
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rsp_flame_widget_init (RspFlameWidget *self)
{
  self->highlight_category = -1;
  self->match = -1;
  self->vadjustment = gtk_adjustment_new (0, 0, 1, 40, 100, 1);
  g_signal_connect (self->vadjustment, "value-changed", G_CALLBACK (on_scrollbar_moved), self);
  self->scrollbar = gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL, self->vadjustment);
  gtk_widget_set_parent (self->scrollbar, GTK_WIDGET (self));
  gtk_widget_set_child_visible (self->scrollbar, FALSE);
  static const RspViewInput input = {
    .scroll = G_CALLBACK (on_scroll),
    .motion = G_CALLBACK (on_motion),
    .leave = NULL,
    .drag_begin = G_CALLBACK (on_drag_begin),
    .drag_update = G_CALLBACK (on_drag_update),
    .drag_end = NULL,
    .click_released = G_CALLBACK (on_click),
    .key_pressed = G_CALLBACK (on_key),
    .pinch_begin = G_CALLBACK (on_pinch_begin),
    .pinch_scale_changed = G_CALLBACK (on_pinch),
    .query_tooltip = G_CALLBACK (on_query_tooltip),
  };
  rsp_widget_add_view_input (GTK_WIDGET (self), &input, self);
}

GtkWidget *
rsp_flame_widget_new (const RspAnalysis *analysis, RspFlameWidgetMode mode)
{
  RspFlameWidget *self = g_object_new (RSP_TYPE_FLAME_WIDGET, NULL);
  self->analysis = analysis;
  self->mode = mode;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  mode == RSP_FLAME_WIDGET_CHRONOLOGICAL ? _("Chronological flame view")
                                                                         : _("Consolidated flame view"),
                                  -1);
  rsp_time_nav_init (&self->nav, rsp_analysis_start (analysis), rsp_analysis_end (analysis));
  return GTK_WIDGET (self);
}

static GPtrArray *
pointers (const RspAnalysis *const *analyses, guint n)
{
  GPtrArray *a = g_ptr_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (a, (gpointer) analyses[i]);
  return a;
}

GtkWidget *
rsp_flame_widget_new_group (const RspAnalysis *const *group, guint n, const RspAnalysis *const *base, guint n_base)
{
  g_return_val_if_fail (group != NULL && n > 0, NULL);
  RspFlameWidget *self = RSP_FLAME_WIDGET (rsp_flame_widget_new (group[0], RSP_FLAME_WIDGET_CONSOLIDATED));
  self->group = pointers (group, n);
  if (base != NULL && n_base > 0)
    self->base = pointers (base, n_base);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->base != NULL ? _("Differential consolidated flame view")
                                                     : _("Consolidated flame view of the selected requests"),
                                  -1);
  return GTK_WIDGET (self);
}
