/* rsp-requests-page.c — see rsp-requests-page.h.  Input and layout only:
 * the histogram is drawn by rsp-histogram-view.c, the flames by the flame
 * widget. */
#include "rsp-requests-page.h"

#include <glib/gi18n.h>

#include "rsp-flame-widget.h"
#include "rsp-histogram-view.h"
#include "rsp-report.h"
#include "rsp-widget-util.h"

/* the list shows the slowest this many of the selection */
#define LIST_MAX 500
#define N_CAUSES_SHOWN 3

struct _RspRequestsPage {
  GtkBox parent_instance;
  RspRequests *r;
  GtkWidget *histogram;
  GtkWidget *selection_label;
  GtkWidget *list;
  GtkWidget *list_note;
  GtkWidget *flames;    /* GtkStack: "selected" and "against" */
  gint sel_first, sel_last; /* bins; -1: the slow tail */
  gint shown_first, shown_last; /* the bins the selection covers, as drawn (selected_bins) */
  gint anchor;          /* the bin a drag or Shift+click extends from */
  gint hover;
  double logged_width;  /* the bars' positions are logged when it changes (GUI tests) */
  GPtrArray *selected, *rest; /* const RspAnalysis *, not owned */
};

G_DEFINE_FINAL_TYPE (RspRequestsPage, rsp_requests_page, GTK_TYPE_BOX)

enum {
  SIGNAL_REQUEST_ACTIVATED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static gboolean
is_selected (RspRequestsPage *self, guint i)
{
  const RspRequest *req = rsp_requests_get (self->r, i);
  if (self->sel_first < 0)
    return req->slow;
  guint b = rsp_requests_histogram_bin (self->r, rsp_requests_duration (req));
  return (gint) b >= self->sel_first && (gint) b <= self->sel_last;
}

/* The bins the selection covers, for the drawing: the slow tail's are
 * those its requests fall in.  Kept in shown_first/last on each change. */
static void
selected_bins (RspRequestsPage *self, gint *first, gint *last)
{
  *first = self->sel_first;
  *last = self->sel_last;
  if (self->sel_first >= 0)
    return;
  for (guint i = 0; i < rsp_requests_n (self->r); i++)
    {
      const RspRequest *req = rsp_requests_get (self->r, i);
      if (!req->slow)
        continue;
      gint b = (gint) rsp_requests_histogram_bin (self->r, rsp_requests_duration (req));
      *first = *first < 0 ? b : MIN (*first, b);
      *last = MAX (*last, b);
    }
}

static char *
ms_text (guint64 ns)
{
  return g_strdup_printf (_("%.2f ms"), ns / 1e6);
}

/* ------------------------------------------------------------------ the histogram */

/* The bars' centres in the window's coordinates, once per width: the GUI
 * tests click them. */
static void
log_bars (RspRequestsPage *self, double width, double height)
{
  GtkNative *native = gtk_widget_get_native (self->histogram);
  if (native == NULL || width == self->logged_width || g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, "rsp-ui"))
    return;
  self->logged_width = width;
  double sx, sy;
  gtk_native_get_surface_transform (native, &sx, &sy);
  guint n_bins;
  guint64 lo, bw;
  const guint *counts = rsp_requests_histogram (self->r, &n_bins, &lo, &bw);
  for (guint b = 0; b < n_bins; b++)
    {
      if (counts[b] == 0)
        continue;
      /* the bar's column: the first and last x that hit it */
      double x0 = -1, x1 = -1;
      for (double x = 0; x < width; x += 1)
        if (rsp_histogram_view_bin_at (self->r, width, x) == (gint) b)
          {
            x0 = x0 < 0 ? x : x0;
            x1 = x;
          }
      double wx, wy;
      if (x0 < 0 || !gtk_widget_translate_coordinates (self->histogram, GTK_WIDGET (native), (x0 + x1) / 2,
                                                       height - 40, &wx, &wy))
        continue;
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "histogram bar %u of %u: %u requests, at %.0f,%.0f in the window", b + 1,
             n_bins, counts[b], wx + sx, wy + sy);
    }
}

static void
draw_histogram (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  RspRequestsPage *self = data;
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (area), &theme);
  RspHistogramOptions o;
  rsp_histogram_options_init (&o);
  o.sel_first = self->shown_first;
  o.sel_last = self->shown_last;
  o.hover = self->hover;
  rsp_histogram_view_draw (self->r, &o, &theme, cr, width, height);
  log_bars (self, width, height);
}

static void
export_histogram (cairo_t *cr, double width, double height, const RspTheme *theme, gpointer data)
{
  RspRequestsPage *self = data;
  RspHistogramOptions o;
  rsp_histogram_options_init (&o);
  o.sel_first = self->shown_first;
  o.sel_last = self->shown_last;
  rsp_histogram_view_draw (self->r, &o, theme, cr, width, height);
}

gboolean
rsp_requests_page_export (RspRequestsPage *self, const char *path, GError **error)
{
  return rsp_widget_export (self->histogram, path, export_histogram, self, error);
}

/* ------------------------------------------------------------------ the selection */

static void
on_row_activated (GtkListBox *box, GtkListBoxRow *row, RspRequestsPage *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "request"));
  g_signal_emit (self, signals[SIGNAL_REQUEST_ACTIVATED], 0, index);
}

static const char *
request_noun (const RspRequests *r)
{
  switch (rsp_requests_kind (r))
    {
    case RSP_REQUESTS_TCP:
      return C_ ("request", "Exchange");
    case RSP_REQUESTS_PROBE:
      return C_ ("request", "Call");
    case RSP_REQUESTS_RUNS:
    default:
      return C_ ("request", "Run");
    }
}

static gint
compare_slowest (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const RspRequests *r = data;
  guint64 a = rsp_requests_duration (rsp_requests_get (r, *(const guint *) pa));
  guint64 b = rsp_requests_duration (rsp_requests_get (r, *(const guint *) pb));
  return a > b ? -1 : a < b;
}

static void
fill_list (RspRequestsPage *self, GArray *indexes)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  g_array_sort_with_data (indexes, compare_slowest, self->r);
  guint64 origin = rsp_model_start_time (rsp_requests_model (self->r));
  guint shown = MIN (indexes->len, LIST_MAX);
  for (guint k = 0; k < shown; k++)
    {
      guint i = g_array_index (indexes, guint, k);
      const RspRequest *req = rsp_requests_get (self->r, i);
      RspCategory top = rsp_request_top_category (req);
      guint64 d = rsp_requests_duration (req);
      g_autofree char *dur = ms_text (d);
      /* TRANSLATORS: a row of the requests list: "Run 3 · 50.27 ms · at 120.5 ms · Deliberate sleep 80%" */
      g_autofree char *text = g_strdup_printf (_("%s %u · %s · at %.1f ms · %s %.0f%%%s"), request_noun (self->r),
                                               i + 1, dur, (req->start - origin) / 1e6, _(rsp_category_label (top)),
                                               d > 0 ? 100.0 * req->category_ns[top] / d : 0.0,
                                               req->slow ? _(" · slow") : "");
      GtkWidget *label = gtk_label_new (text);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_margin_start (label, 6);
      gtk_widget_set_margin_top (label, 2);
      gtk_widget_set_margin_bottom (label, 2);
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
      gtk_widget_set_tooltip_text (row, _("Open this request's flame views"));
      g_object_set_data (G_OBJECT (row), "request", GUINT_TO_POINTER (i));
      gtk_list_box_append (GTK_LIST_BOX (self->list), row);
    }
  g_autofree char *note = indexes->len > shown ? g_strdup_printf (_("The slowest %u of %u shown."), shown, indexes->len)
                                               : g_strdup ("");
  gtk_label_set_text (GTK_LABEL (self->list_note), note);
  gtk_widget_set_visible (self->list_note, indexes->len > shown);
}

static void
fill_flames (RspRequestsPage *self)
{
  const char *shown = gtk_stack_get_visible_child_name (GTK_STACK (self->flames));
  /* at first the slow tail against the others, the view that says what
   * makes the slow ones slow */
  g_autofree char *keep = g_strdup (shown != NULL ? shown : "against");
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (self->flames)) != NULL)
    gtk_stack_remove (GTK_STACK (self->flames), child);

  GtkWidget *selected, *against;
  if (self->selected->len > 0)
    {
      selected = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *flame = rsp_flame_widget_new_group ((const RspAnalysis *const *) self->selected->pdata,
                                                     self->selected->len, NULL, 0);
      gtk_box_append (GTK_BOX (selected), flame);
      gtk_box_append (GTK_BOX (selected), rsp_legend_widget_new (RSP_LEGEND_FLAME));
    }
  else
    selected = gtk_label_new (_("No request in the selected bars."));
  if (self->selected->len > 0 && self->rest->len > 0)
    {
      against = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *flame = rsp_flame_widget_new_group ((const RspAnalysis *const *) self->selected->pdata,
                                                     self->selected->len,
                                                     (const RspAnalysis *const *) self->rest->pdata, self->rest->len);
      gtk_box_append (GTK_BOX (against), flame);
      gtk_box_append (GTK_BOX (against), rsp_legend_widget_new (RSP_LEGEND_DIFF_REQUESTS));
    }
  else
    against = gtk_label_new (_("Select some of the bars: the differential flame compares their requests with the "
                               "others."));
  gtk_stack_add_titled (GTK_STACK (self->flames), selected, "selected", _("Selected requests"));
  gtk_stack_add_titled (GTK_STACK (self->flames), against, "against", _("Against the others"));
  gtk_stack_set_visible_child_name (GTK_STACK (self->flames), keep);
}

static void
selection_changed (RspRequestsPage *self)
{
  g_ptr_array_set_size (self->selected, 0);
  g_ptr_array_set_size (self->rest, 0);
  g_autoptr (GArray) indexes = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_slow = 0;
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint i = 0; i < rsp_requests_n (self->r); i++)
    {
      const RspAnalysis *a = rsp_requests_analysis (self->r, i);
      if (!is_selected (self, i))
        {
          g_ptr_array_add (self->rest, (gpointer) a);
          continue;
        }
      g_ptr_array_add (self->selected, (gpointer) a);
      g_array_append_val (indexes, i);
      const RspRequest *req = rsp_requests_get (self->r, i);
      n_slow += req->slow;
      lo = MIN (lo, rsp_requests_duration (req));
      hi = MAX (hi, rsp_requests_duration (req));
    }
  g_autofree char *text = NULL;
  if (indexes->len == 0)
    text = g_strdup (_("No request selected."));
  else
    {
      g_autofree char *from = ms_text (lo), *to = ms_text (hi);
      text = self->sel_first < 0
                 ? g_strdup_printf (ngettext ("The slow tail: %u request, %s to %s.",
                                              "The slow tail: %u requests, %s to %s.", indexes->len),
                                    indexes->len, from, to)
                 : g_strdup_printf (ngettext ("Selected %u request, %s to %s.", "Selected %u requests, %s to %s.",
                                              indexes->len),
                                    indexes->len, from, to);
    }
  gtk_label_set_text (GTK_LABEL (self->selection_label), text);
  rsp_widget_announce_selection (self->histogram, text);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "requests selection: bins %d-%d, %u requests (%u slow), %.3f-%.3f ms, %u others",
         self->sel_first + 1, self->sel_last + 1, indexes->len, n_slow, indexes->len > 0 ? lo / 1e6 : 0.0,
         indexes->len > 0 ? hi / 1e6 : 0.0, self->rest->len);
  selected_bins (self, &self->shown_first, &self->shown_last);
  fill_list (self, indexes);
  fill_flames (self);
  gtk_widget_queue_draw (self->histogram);
}

void
rsp_requests_page_select_bins (RspRequestsPage *self, gint first, gint last)
{
  guint n_bins;
  guint64 lo, width;
  rsp_requests_histogram (self->r, &n_bins, &lo, &width);
  if (first < 0 || n_bins == 0)
    self->sel_first = self->sel_last = -1;
  else
    {
      self->sel_first = CLAMP (MIN (first, last), 0, (gint) n_bins - 1);
      self->sel_last = CLAMP (MAX (first, last), 0, (gint) n_bins - 1);
    }
  selection_changed (self);
}

const RspRequests *
rsp_requests_page_get_requests (RspRequestsPage *self)
{
  return self->r;
}

gboolean
rsp_requests_page_handle_key (RspRequestsPage *self, guint keyval, GdkModifierType state)
{
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  guint n_bins;
  guint64 lo, width;
  rsp_requests_histogram (self->r, &n_bins, &lo, &width);
  gint step = keyval == GDK_KEY_Left || keyval == GDK_KEY_KP_Left     ? -1
              : keyval == GDK_KEY_Right || keyval == GDK_KEY_KP_Right ? 1
                                                                      : 0;
  if (keyval == GDK_KEY_Escape)
    {
      rsp_requests_page_select_bins (self, -1, -1);
      return TRUE;
    }
  if (step == 0)
    return FALSE;
  gint first = self->shown_first, last = self->shown_last;
  if (first < 0)
    first = last = step > 0 ? -1 : (gint) n_bins;
  if (state & GDK_SHIFT_MASK)
    {
      /* widen (or narrow) the end the anchor is not on */
      if (self->anchor == first)
        last += step;
      else
        first += step;
      rsp_requests_page_select_bins (self, MAX (first, 0), MIN (last, (gint) n_bins - 1));
      return TRUE;
    }
  gint b = CLAMP ((step > 0 ? last : first) + step, 0, (gint) n_bins - 1);
  self->anchor = b;
  rsp_requests_page_select_bins (self, b, b);
  return TRUE;
}

/* ------------------------------------------------------------------ pointer */

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, RspRequestsPage *self)
{
  gtk_widget_grab_focus (self->histogram);
  gint b = rsp_histogram_view_bin_at (self->r, gtk_widget_get_width (self->histogram), x);
  if (b < 0)
    return;
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  if ((state & GDK_SHIFT_MASK) && self->sel_first >= 0)
    rsp_requests_page_select_bins (self, self->anchor, b);
  else
    {
      self->anchor = b;
      rsp_requests_page_select_bins (self, b, b);
    }
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, RspRequestsPage *self)
{
  double x0, y0;
  if (!gtk_gesture_drag_get_start_point (gesture, &x0, &y0) || self->sel_first < 0)
    return;
  gint b = rsp_histogram_view_bin_at (self->r, gtk_widget_get_width (self->histogram), x0 + dx);
  if (b < 0)
    return;
  gint first = MIN (self->anchor, b), last = MAX (self->anchor, b);
  if (first != self->sel_first || last != self->sel_last)
    rsp_requests_page_select_bins (self, first, last);
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, RspRequestsPage *self)
{
  gint b = rsp_histogram_view_bin_at (self->r, gtk_widget_get_width (self->histogram), x);
  if (b != self->hover)
    {
      self->hover = b;
      gtk_widget_queue_draw (self->histogram);
    }
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, RspRequestsPage *self)
{
  gint b = rsp_histogram_view_bin_at (self->r, gtk_widget_get_width (widget), x);
  if (b < 0)
    return FALSE;
  guint64 lo, hi;
  rsp_histogram_view_bin_range (self->r, (guint) b, &lo, &hi);
  g_autofree char *from = ms_text (lo), *to = ms_text (hi);
  guint n = rsp_histogram_view_count (self->r, (guint) b, (guint) b);
  g_autofree char *text = g_strdup_printf (ngettext ("%s to %s: %u request", "%s to %s: %u requests", n), from, to, n);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static gboolean
on_histogram_key (GtkEventControllerKey *keys, guint keyval, guint keycode, GdkModifierType state,
                  RspRequestsPage *self)
{
  return rsp_requests_page_handle_key (self, keyval, state);
}

/* ------------------------------------------------------------------ building */

static GtkWidget *
summary_label (const RspRequests *r)
{
  g_autofree char *p50 = ms_text (rsp_requests_percentile (r, 50));
  g_autofree char *p90 = ms_text (rsp_requests_percentile (r, 90));
  g_autofree char *p99 = ms_text (rsp_requests_percentile (r, 99));
  g_autofree char *max = ms_text (rsp_requests_max (r));
  guint n = rsp_requests_n (r);
  g_autofree char *count = g_strdup_printf (ngettext ("%u request", "%u requests", n), n);
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *head = g_markup_printf_escaped ("<b>%s</b> (%s) · p50 %s · p90 %s · p99 %s · max %s", count,
                                                   rsp_requests_kind_label (r), p50, p90, p99, max);
  g_string_append (s, head);
  if (rsp_requests_slow_split (r) != RSP_SLOW_NONE)
    {
      g_autofree char *threshold = ms_text (rsp_requests_slow_threshold (r));
      g_autofree char *slow = g_markup_printf_escaped (_(" · slow: %u over %s (%s)"), rsp_requests_n_slow (r),
                                                       threshold,
                                                       rsp_requests_split_label (rsp_requests_slow_split (r)));
      g_string_append (s, slow);
    }
  if (rsp_requests_n_skipped (r) > 0)
    {
      g_autofree char *skipped = g_strdup_printf (_(" · %u not analysed"), rsp_requests_n_skipped (r));
      g_string_append (s, skipped);
    }
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (label), s->str);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  return label;
}

/* What makes the slow ones slow: the first causes, in words. */
static GtkWidget *
causes_label (const RspRequests *r)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = MIN (rsp_requests_n_causes (r), N_CAUSES_SHOWN);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = rsp_requests_cause_describe (r, rsp_requests_cause (r, i), RSP_DESCRIBE_LOCAL);
      g_string_append_printf (s, "%s%u. %s", i > 0 ? "\n" : "", i + 1, text);
    }
  if (n == 0)
    g_string_append (s, rsp_requests_slow_split (r) == RSP_SLOW_NONE
                            ? _("No request is slower than the others.")
                            : _("Nothing the slow requests do takes longer than in the others."));
  GtkWidget *label = gtk_label_new (s->str);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "requests view: %u requests, %u slow, first cause: %s", rsp_requests_n (r),
         rsp_requests_n_slow (r), n > 0 ? s->str + 3 : "none");
  return label;
}

static void
rsp_requests_page_finalize (GObject *object)
{
  RspRequestsPage *self = RSP_REQUESTS_PAGE (object);
  g_clear_pointer (&self->selected, g_ptr_array_unref);
  g_clear_pointer (&self->rest, g_ptr_array_unref);
  g_clear_pointer (&self->r, rsp_requests_free);
  G_OBJECT_CLASS (rsp_requests_page_parent_class)->finalize (object);
}

static void
rsp_requests_page_dispose (GObject *object)
{
  RspRequestsPage *self = RSP_REQUESTS_PAGE (object);
  /* the flames read the requests' analyses: they go first */
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_box_remove (GTK_BOX (self), child);
  G_OBJECT_CLASS (rsp_requests_page_parent_class)->dispose (object);
}

static void
rsp_requests_page_class_init (RspRequestsPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rsp_requests_page_dispose;
  G_OBJECT_CLASS (klass)->finalize = rsp_requests_page_finalize;
  signals[SIGNAL_REQUEST_ACTIVATED] = g_signal_new ("request-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                    0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
rsp_requests_page_init (RspRequestsPage *self)
{
  self->sel_first = self->sel_last = -1;
  self->hover = -1;
  self->anchor = -1;
  self->selected = g_ptr_array_new ();
  self->rest = g_ptr_array_new ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
}

GtkWidget *
rsp_requests_page_new (RspRequests *requests)
{
  g_return_val_if_fail (requests != NULL && rsp_requests_n (requests) > 0, NULL);
  RspRequestsPage *self = g_object_new (RSP_TYPE_REQUESTS_PAGE, NULL);
  self->r = requests;

  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (top, 8);
  gtk_widget_set_margin_end (top, 8);
  gtk_widget_set_margin_top (top, 6);
  gtk_box_append (GTK_BOX (top), summary_label (requests));
  gtk_box_append (GTK_BOX (top), causes_label (requests));

  self->histogram = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->histogram), 190);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->histogram), draw_histogram, self, NULL);
  gtk_widget_set_focusable (self->histogram, TRUE);
  gtk_widget_set_has_tooltip (self->histogram, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->histogram), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Latency histogram of the requests"), -1);
  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (self->histogram, GTK_EVENT_CONTROLLER (drag));
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (self->histogram, motion);
  GtkEventController *keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_histogram_key), self);
  gtk_widget_add_controller (self->histogram, keys);
  g_signal_connect (self->histogram, "query-tooltip", G_CALLBACK (on_query_tooltip), self);
  gtk_widget_set_tooltip_text (self->histogram, NULL);
  gtk_box_append (GTK_BOX (top), self->histogram);

  self->selection_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->selection_label), 0);
  gtk_widget_add_css_class (self->selection_label, "dim-label");
  GtkWidget *hint = gtk_label_new (_("Click a bar, drag across bars or Shift+click to select; "
                                     "Escape: the slow tail. Click a request to open it."));
  gtk_label_set_xalign (GTK_LABEL (hint), 1);
  gtk_label_set_ellipsize (GTK_LABEL (hint), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (hint, TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_append (GTK_BOX (line), self->selection_label);
  gtk_box_append (GTK_BOX (line), hint);
  gtk_box_append (GTK_BOX (top), line);

  /* the selected requests, slowest first */
  self->list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->list), GTK_SELECTION_SINGLE);
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (self->list), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The selected requests, slowest first"), -1);
  g_signal_connect (self->list, "row-activated", G_CALLBACK (on_row_activated), self);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), self->list);
  gtk_widget_set_vexpand (scroll, TRUE);
  self->list_note = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->list_note, "dim-label");
  GtkWidget *left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (left), scroll);
  gtk_box_append (GTK_BOX (left), self->list_note);
  gtk_widget_set_size_request (left, 360, -1);

  /* their flames */
  self->flames = gtk_stack_new ();
  gtk_widget_set_vexpand (self->flames, TRUE);
  GtkWidget *switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->flames));
  gtk_widget_set_halign (switcher, GTK_ALIGN_START);
  gtk_widget_set_margin_top (switcher, 4);
  gtk_widget_set_margin_bottom (switcher, 4);
  GtkWidget *right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (right), switcher);
  gtk_box_append (GTK_BOX (right), self->flames);

  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (paned), left);
  gtk_paned_set_end_child (GTK_PANED (paned), right);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE); /* the flames take the room */
  gtk_widget_set_vexpand (paned, TRUE);

  gtk_box_append (GTK_BOX (self), top);
  gtk_box_append (GTK_BOX (self), paned);
  selection_changed (self);
  return GTK_WIDGET (self);
}
