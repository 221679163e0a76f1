/* rsp-time-axis.c — the time ruler: tick steps, labels, drawing. */
#include "rsp-time-axis.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>

/* Digits of the default font are about this many font sizes wide; the step
 * is chosen before any cairo_t exists (hit testing needs no surface), so the
 * label width is estimated rather than measured. */
#define CHAR_WIDTH_EM 0.62
/* Space between a label's end and the next tick, in font sizes. */
#define LABEL_GAP_EM 2.5
/* Minor ticks closer than this are not drawn. */
#define MIN_MINOR_SPACING_PX 6.0
#define LABEL_PAD_PX 4.0 /* between a tick and its label */

static const struct {
  guint64 ns;
  const char *name;
} units[] = {
  { 1, "ns" },
  { 1000, "µs" },
  { 1000000, "ms" },
  { 1000000000, "s" },
};

/* The unit in which the largest visible time reads naturally: a 500 ms
 * recording is labelled in ms throughout, an 8 s one in s. */
static guint
pick_unit (guint64 magnitude)
{
  guint u = 0;
  while (u + 1 < G_N_ELEMENTS (units) && magnitude >= units[u + 1].ns)
    u++;
  return u;
}

/* Digits after the point needed to print multiples of STEP in UNIT. */
static int
decimals_for (guint64 step, guint64 unit)
{
  int d = 0;
  guint64 scaled = step;
  while (scaled % unit != 0 && d < 9)
    {
      scaled *= 10;
      d++;
    }
  return d;
}

static void
format_in_unit (gint64 rel, guint64 unit, const char *unit_name, int decimals, char *buf, gsize size)
{
  const char *sign = rel < 0 ? "-" : "";
  guint64 mag = rel < 0 ? (guint64) (-(rel + 1)) + 1 : (guint64) rel;
  guint64 whole = mag / unit;
  guint64 frac = mag % unit;
  if (decimals <= 0)
    {
      snprintf (buf, size, "%s%" G_GUINT64_FORMAT " %s", sign, whole, unit_name);
      return;
    }
  /* frac / unit with DECIMALS digits, in integers: at 1/1000 zoom of a long
   * recording the last digits matter and a double would round them.  No
   * overflow: frac < unit <= 10^9 and decimals <= 9 (decimals_for). */
  guint64 pow = 1;
  for (int i = 0; i < decimals; i++)
    pow *= 10;
  guint64 digits = frac * pow / unit;
  snprintf (buf, size, "%s%" G_GUINT64_FORMAT ".%0*" G_GUINT64_FORMAT " %s", sign, whole, decimals, digits, unit_name);
}

void
rsp_time_axis_init (RspTimeAxis *axis, guint64 origin, guint64 t0, guint64 t1, double x, double width,
                    const RspTheme *theme)
{
  g_return_if_fail (axis != NULL && theme != NULL);
  if (t1 <= t0)
    t1 = t0 + 1;
  if (width < 1)
    width = 1;
  axis->origin = origin;
  axis->t0 = t0;
  axis->t1 = t1;
  axis->x = x;
  axis->width = width;

  guint64 lo = t0 > origin ? t0 - origin : origin - t0;
  guint64 hi = t1 > origin ? t1 - origin : origin - t1;
  guint u = pick_unit (MAX (lo, hi));
  axis->unit = units[u].ns;
  axis->unit_name = units[u].name;

  double span = (double) (t1 - t0);
  double char_px = CHAR_WIDTH_EM * theme->font_size;
  /* The smallest 1-2-5 step whose widest label (and a gap) fits between
   * two ticks.  The label's length depends on the step (its decimals), so
   * each candidate is measured with its own precision. */
  static const guint64 mantissas[] = { 1, 2, 5 };
  guint64 step = 1, minor = 0;
  for (guint64 pow = 1;; pow *= 10)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (mantissas); i++)
        {
          step = mantissas[i] * pow;
          int dec = decimals_for (step, axis->unit);
          char label[64];
          format_in_unit ((gint64) MAX (lo, hi), axis->unit, axis->unit_name, dec, label, sizeof label);
          double need = (double) g_utf8_strlen (label, -1) * char_px + LABEL_GAP_EM * theme->font_size;
          if ((double) step * width / span >= need)
            {
              axis->decimals = dec;
              minor = mantissas[i] == 2 ? step / 4 : step / 5;
              found = TRUE;
              break;
            }
        }
      if (found || pow > G_MAXUINT64 / 100)
        break;
    }
  axis->step = step;
  axis->minor_step = minor > 0 && (double) minor * width / span >= MIN_MINOR_SPACING_PX ? minor : 0;
}

double
rsp_time_axis_x (const RspTimeAxis *axis, guint64 t)
{
  /* Subtract in integers first: doubles lose nanoseconds at 10^18. */
  double dt = t >= axis->t0 ? (double) (t - axis->t0) : -(double) (axis->t0 - t);
  return axis->x + dt * axis->width / (double) (axis->t1 - axis->t0);
}

guint64
rsp_time_axis_time (const RspTimeAxis *axis, double x)
{
  double dt = (x - axis->x) * (double) (axis->t1 - axis->t0) / axis->width;
  if (dt < 0)
    return -dt >= (double) axis->t0 ? 0 : axis->t0 - (guint64) (-dt);
  return axis->t0 + (guint64) dt;
}

double
rsp_time_axis_ns_per_px (const RspTimeAxis *axis)
{
  return (double) (axis->t1 - axis->t0) / axis->width;
}

void
rsp_time_axis_format (const RspTimeAxis *axis, guint64 t, char *buf, gsize size)
{
  gint64 rel = t >= axis->origin ? (gint64) (t - axis->origin) : -(gint64) (axis->origin - t);
  format_in_unit (rel, axis->unit, axis->unit_name, axis->decimals, buf, size);
}

char *
rsp_format_duration (guint64 ns)
{
  guint u = pick_unit (ns);
  double v = (double) ns / (double) units[u].ns;
  int dec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  if (u == 0)
    dec = 0;
  return g_strdup_printf ("%.*f %s", dec, v, units[u].name);
}

double
rsp_time_axis_height (const RspTheme *theme)
{
  return ceil (theme->font_size * 2.2);
}

/* The first multiple of STEP (counted from the origin) at or after T0. */
static guint64
first_tick (const RspTimeAxis *axis, guint64 step)
{
  if (axis->t0 <= axis->origin)
    {
      guint64 back = (axis->origin - axis->t0) / step * step;
      return axis->origin - back;
    }
  guint64 rel = axis->t0 - axis->origin;
  guint64 k = (rel + step - 1) / step;
  return axis->origin + k * step;
}

static double
snap (double v)
{
  /* Centre of a logical pixel: crisp 1 px lines at scale 1. */
  return floor (v) + 0.5;
}

/* The ruler in [Y, Y + HEIGHT]; its base line and ticks face the content,
 * which lies below it (a ruler on top) or above it (UNDER). */
static void
draw_axis (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y, double height, gboolean under)
{
  cairo_save (cr);
  cairo_rectangle (cr, axis->x, y, axis->width, height);
  cairo_clip (cr);

  /* the edge next to the content, and the direction away from it */
  double base = under ? y : y + height;
  double away = under ? 1.0 : -1.0;
  cairo_set_line_width (cr, 1.0);
  cairo_set_source_rgb (cr, theme->grid.r, theme->grid.g, theme->grid.b);
  cairo_move_to (cr, axis->x, snap (base + away));
  cairo_line_to (cr, axis->x + axis->width, snap (base + away));
  cairo_stroke (cr);

  cairo_set_source_rgb (cr, theme->muted.r, theme->muted.g, theme->muted.b);
  if (axis->minor_step > 0)
    {
      for (guint64 t = first_tick (axis, axis->minor_step); t <= axis->t1; t += axis->minor_step)
        {
          double tx = snap (rsp_time_axis_x (axis, t));
          cairo_move_to (cr, tx, base + 4 * away);
          cairo_line_to (cr, tx, base);
        }
      cairo_stroke (cr);
    }

  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (font, (theme->font_size - 1) * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);

  /* Start one step to the left so that a label whose tick scrolled just
   * out of view stays readable while it still fits. */
  guint64 start = first_tick (axis, axis->step);
  if (start >= axis->step)
    start -= axis->step;
  for (guint64 t = start; t <= axis->t1; t += axis->step)
    {
      double tx = snap (rsp_time_axis_x (axis, t));
      cairo_set_source_rgb (cr, theme->muted.r, theme->muted.g, theme->muted.b);
      cairo_move_to (cr, tx, base + height * 0.65 * away);
      cairo_line_to (cr, tx, base);
      cairo_stroke (cr);
      char label[64];
      rsp_time_axis_format (axis, t, label, sizeof label);
      pango_layout_set_text (layout, label, -1);
      int lw, lh;
      pango_layout_get_pixel_size (layout, &lw, &lh);
      double lx = rsp_time_axis_label_x (axis, t, lw);
      if (lx < 0)
        continue;
      cairo_set_source_rgb (cr, theme->foreground.r, theme->foreground.g, theme->foreground.b);
      cairo_move_to (cr, lx, y + (height - lh) / 2.0 - 1);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
  cairo_restore (cr);
}

void
rsp_time_axis_draw (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y, double height)
{
  draw_axis (axis, theme, cr, y, height, FALSE);
}

void
rsp_time_axis_draw_under (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y, double height)
{
  draw_axis (axis, theme, cr, y, height, TRUE);
}

double
rsp_time_axis_label_x (const RspTimeAxis *axis, guint64 t, double label_width)
{
  double x = rsp_time_axis_x (axis, t) + LABEL_PAD_PX;
  double left = axis->x + LABEL_PAD_PX;
  if (x >= left)
    return x + label_width <= axis->x + axis->width ? x : -1;
  /* the tick scrolled out on the left: its label stays readable, pinned to
   * the edge, while it ends before the next tick's (with a gap) */
  double next = rsp_time_axis_x (axis, t + axis->step);
  return left + label_width + LABEL_PAD_PX < next ? left : -1;
}

void
rsp_time_axis_draw_grid (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y0, double y1)
{
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  cairo_set_source_rgb (cr, theme->grid.r, theme->grid.g, theme->grid.b);
  for (guint64 t = first_tick (axis, axis->step); t <= axis->t1; t += axis->step)
    {
      double tx = snap (rsp_time_axis_x (axis, t));
      if (tx < axis->x || tx > axis->x + axis->width)
        continue;
      cairo_move_to (cr, tx, y0);
      cairo_line_to (cr, tx, y1);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}
