/* rsp-histogram-view.c — see rsp-histogram-view.h.
 *
 * The bars stand on a duration axis from the shortest request to the
 * longest (the bins of rsp_requests_histogram, equal in width); a bar's
 * height is its count on a linear scale from 0.  Bars wholly in the slow
 * tail (their bin starts at or above the slow threshold) take the run colour,
 * the others the sleep colour's muted shade; the selection is outlined in
 * the highlight colour and the hovered bar lightened. */
#include "rsp-histogram-view.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "rsp-time-axis.h"

#define LEFT 44.0   /* count labels */
#define RIGHT 12.0
#define TOP 22.0    /* the percentile labels */
#define BOTTOM 34.0 /* duration labels and the axis title */
#define GAP 1.0     /* between bars */

void
rsp_histogram_options_init (RspHistogramOptions *o)
{
  o->sel_first = o->sel_last = -1;
  o->hover = -1;
}

static void
set_color (cairo_t *cr, const RspColor *c, double alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, alpha);
}

static PangoLayout *
text_layout (const RspTheme *theme, cairo_t *cr, double size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  return layout;
}

/* TEXT with its left edge at X (or centred on X, or right-aligned to it). */
static void
show_text (cairo_t *cr, PangoLayout *layout, const char *text, double x, double y, double align)
{
  pango_layout_set_text (layout, text, -1);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - align * w, y);
  pango_cairo_show_layout (cr, layout);
}

void
rsp_histogram_view_bin_range (const RspRequests *r, guint bin, guint64 *low, guint64 *high)
{
  guint n_bins;
  guint64 lo, width;
  rsp_requests_histogram (r, &n_bins, &lo, &width);
  *low = lo + (guint64) bin * width;
  *high = *low + width;
}

guint
rsp_histogram_view_count (const RspRequests *r, guint first, guint last)
{
  guint n_bins;
  guint64 lo, width;
  const guint *counts = rsp_requests_histogram (r, &n_bins, &lo, &width);
  guint n = 0;
  for (guint b = first; b <= last && b < n_bins; b++)
    n += counts[b];
  return n;
}

gint
rsp_histogram_view_bin_at (const RspRequests *r, double width, double x)
{
  guint n_bins;
  guint64 lo, bw;
  rsp_requests_histogram (r, &n_bins, &lo, &bw);
  double plot = width - LEFT - RIGHT;
  if (n_bins == 0 || plot <= 0 || x < LEFT || x >= LEFT + plot)
    return -1;
  return MIN ((gint) ((x - LEFT) / (plot / n_bins)), (gint) n_bins - 1);
}

/* x of duration NS on the bars' axis. */
static double
x_of (guint64 ns, guint64 lo, guint64 span, double plot)
{
  return LEFT + (ns <= lo ? 0 : plot * (double) (ns - lo) / (double) span);
}

/* A round step (1, 2, 5, 10, 20, 50...) for at most about MAX_TICKS count
 * labels up to TOP_COUNT. */
static guint
count_step (guint top_count, guint max_ticks)
{
  static const guint nice[] = { 1, 2, 5 };
  for (guint mag = 1;; mag *= 10)
    for (gsize k = 0; k < G_N_ELEMENTS (nice); k++)
      if (top_count / (nice[k] * mag) <= max_ticks || mag >= G_MAXUINT / 100)
        return nice[k] * mag;
}

void
rsp_histogram_view_draw (const RspRequests *r, const RspHistogramOptions *o, const RspTheme *theme, cairo_t *cr,
                         double width, double height)
{
  g_return_if_fail (r != NULL && o != NULL && theme != NULL && cr != NULL);
  cairo_save (cr);
  set_color (cr, &theme->background, 1);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  guint n_bins;
  guint64 lo, bw;
  const guint *counts = rsp_requests_histogram (r, &n_bins, &lo, &bw);
  double plot_w = width - LEFT - RIGHT, plot_h = height - TOP - BOTTOM;
  if (n_bins == 0 || plot_w < 20 || plot_h < 20)
    {
      cairo_restore (cr);
      return;
    }
  guint top_count = 1;
  for (guint b = 0; b < n_bins; b++)
    top_count = MAX (top_count, counts[b]);
  guint64 span = (guint64) n_bins * bw;
  double base_y = TOP + plot_h;
  PangoLayout *small = text_layout (theme, cr, theme->font_size - 1);

  /* the count grid and labels */
  guint step = count_step (top_count, MAX ((guint) (plot_h / 28), 1));
  cairo_set_line_width (cr, 1);
  for (guint c = 0; c <= top_count; c += step)
    {
      double y = round (base_y - plot_h * c / top_count) + 0.5;
      set_color (cr, &theme->grid, 1);
      cairo_move_to (cr, LEFT, y);
      cairo_line_to (cr, LEFT + plot_w, y);
      cairo_stroke (cr);
      g_autofree char *label = g_strdup_printf ("%u", c);
      set_color (cr, &theme->muted, 1);
      show_text (cr, small, label, LEFT - 6, y - (theme->font_size - 1) * 0.7, 1.0);
    }

  /* the bars */
  guint64 threshold = rsp_requests_slow_threshold (r);
  gboolean has_slow = rsp_requests_slow_split (r) != RSP_SLOW_NONE;
  double bar_w = plot_w / n_bins;
  for (guint b = 0; b < n_bins; b++)
    {
      if (counts[b] == 0)
        continue;
      double x = LEFT + b * bar_w, h = plot_h * counts[b] / top_count;
      gboolean slow = has_slow && lo + (guint64) b * bw >= threshold; /* as the text report marks them */
      const RspColor *c = slow ? &theme->run : &theme->sleep;
      set_color (cr, c, (gint) b == o->hover ? 0.6 : 0.85);
      cairo_rectangle (cr, x + GAP, base_y - h, MAX (bar_w - 2 * GAP, 1), h);
      cairo_fill (cr);
    }
  /* the selection: its bins' columns tinted, the bars outlined */
  if (o->sel_first >= 0 && o->sel_last >= o->sel_first)
    {
      double x0 = LEFT + o->sel_first * bar_w, x1 = LEFT + (MIN (o->sel_last, (gint) n_bins - 1) + 1) * bar_w;
      set_color (cr, &theme->selection, 0.18);
      cairo_rectangle (cr, x0, TOP, x1 - x0, plot_h);
      cairo_fill (cr);
      set_color (cr, &theme->highlight, 1);
      cairo_set_line_width (cr, 2);
      for (gint b = o->sel_first; b <= o->sel_last && b < (gint) n_bins; b++)
        {
          if (counts[b] == 0)
            continue;
          double h = plot_h * counts[b] / top_count;
          cairo_rectangle (cr, LEFT + b * bar_w + GAP + 1, base_y - h + 1, MAX (bar_w - 2 * GAP - 2, 1), h - 1);
          cairo_stroke (cr);
        }
    }

  /* the axis: first and last duration, and a few between */
  set_color (cr, &theme->muted, 1);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, LEFT, base_y + 0.5);
  cairo_line_to (cr, LEFT + plot_w, base_y + 0.5);
  cairo_stroke (cr);
  guint n_labels = CLAMP ((guint) (plot_w / 110), 1, 8);
  for (guint k = 0; k <= n_labels; k++)
    {
      guint64 t = lo + span * k / n_labels;
      g_autofree char *label = rsp_format_duration (t);
      double x = x_of (t, lo, span, plot_w);
      cairo_move_to (cr, round (x) + 0.5, base_y);
      cairo_line_to (cr, round (x) + 0.5, base_y + 4);
      cairo_stroke (cr);
      show_text (cr, small, label, x, base_y + 5, k == 0 ? 0.0 : k == n_labels ? 1.0 : 0.5);
    }
  show_text (cr, small, _("duration of a request →"), LEFT + plot_w, base_y + 5 + theme->font_size + 1, 1.0);

  /* the percentiles and the slow threshold, as dashed lines */
  static const struct {
    double p;
    const char *label;
  } marks[] = { { 50, "p50" }, { 90, "p90" }, { 99, "p99" } };
  double dash[] = { 3, 3 };
  double last_label_end = -1e9;
  for (gsize k = 0; k < G_N_ELEMENTS (marks); k++)
    {
      guint64 t = rsp_requests_percentile (r, marks[k].p);
      double x = round (x_of (t, lo, span, plot_w)) + 0.5;
      set_color (cr, &theme->foreground, 0.7);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, x, TOP);
      cairo_line_to (cr, x, base_y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      g_autofree char *dur = rsp_format_duration (t);
      g_autofree char *label = g_strdup_printf ("%s %s", marks[k].label, dur);
      pango_layout_set_text (small, label, -1);
      int tw, th;
      pango_layout_get_pixel_size (small, &tw, &th);
      /* labels that would overlap the previous one are left out */
      double lx = CLAMP (x - tw / 2.0, LEFT, LEFT + plot_w - tw);
      if (lx < last_label_end + 6)
        continue;
      show_text (cr, small, label, lx, 3, 0.0);
      last_label_end = lx + tw;
    }
  if (has_slow)
    {
      double x = round (x_of (threshold, lo, span, plot_w)) + 0.5;
      set_color (cr, &theme->run, 1);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, x, TOP);
      cairo_line_to (cr, x, base_y);
      cairo_stroke (cr);
      show_text (cr, small, _("slow →"), x + 4, TOP + 2, 0.0);
    }
  g_object_unref (small);
  cairo_restore (cr);
}
