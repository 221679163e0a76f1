/* rsp-time-axis.h — the time ruler shared by the views that have x = time:
 * maps recording-clock nanoseconds to x and back, picks a 1-2-5 tick step
 * whose labels fit, formats labels in the unit that suits the visible range
 * ("450 ms", "4.2155 s", "120 µs") and draws the ruler and its grid lines.
 * Cairo and Pango only. */
#pragma once

#include <cairo.h>

#include "rsp-theme.h"

G_BEGIN_DECLS

typedef struct {
  guint64 origin;    /* the time labelled 0: the recording's start */
  guint64 t0, t1;    /* visible range, recording clock, t1 > t0 */
  double x, width;   /* the range maps to [x, x + width] in logical px */
  guint64 step;      /* ns between labelled ticks: 1, 2 or 5 × 10^k */
  guint64 minor_step;/* ns between unlabelled ticks, 0 = none */
  guint64 unit;      /* ns per label unit: 1, 1000, 10^6 or 10^9 */
  const char *unit_name; /* "ns", "µs", "ms", "s" */
  int decimals;      /* digits after the point that STEP needs in UNIT */
} RspTimeAxis;

/* Sets AXIS up for [T0, T1] drawn over [X, X + WIDTH] with THEME's font
 * (the label width decides how dense the ticks may be). */
void rsp_time_axis_init (RspTimeAxis *axis, guint64 origin, guint64 t0, guint64 t1, double x, double width,
                         const RspTheme *theme);

/* x of T; may lie outside [x, x + width] for times outside the range. */
double rsp_time_axis_x (const RspTimeAxis *axis, guint64 t);
/* The time under X, clamped to 0 on the left. */
guint64 rsp_time_axis_time (const RspTimeAxis *axis, double x);
/* Nanoseconds per logical pixel. */
double rsp_time_axis_ns_per_px (const RspTimeAxis *axis);

/* The label of T (relative to the origin) in the axis' unit and precision:
 * "1.25 ms".  Writes at most SIZE bytes into BUF. */
void rsp_time_axis_format (const RspTimeAxis *axis, guint64 t, char *buf, gsize size);
/* A duration with three significant digits in the unit that suits it
 * ("840 ns", "12.5 µs", "1.25 s"), for tooltips and titles.  Free with g_free. */
char *rsp_format_duration (guint64 ns);

/* The ruler's height for THEME, logical px. */
double rsp_time_axis_height (const RspTheme *theme);
/* Draws the ruler in [axis->x, axis->x + width] × [Y, Y + HEIGHT]: ticks,
 * minor ticks and labels to the right of their tick. */
void rsp_time_axis_draw (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y, double height);
/* The same ruler for content above it (the flame view's bands): base line
 * and ticks along its top edge. */
void rsp_time_axis_draw_under (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y, double height);
/* Where the label of the tick at T, LABEL_WIDTH px wide, starts: right of
 * its tick; for a tick left of the visible area, pinned to the left edge
 * while it ends before the next tick.  A label is drawn whole or not at all:
 * returns a negative value for one that is not drawn. */
double rsp_time_axis_label_x (const RspTimeAxis *axis, guint64 t, double label_width);
/* Faint vertical lines at the labelled ticks over [Y0, Y1]. */
void rsp_time_axis_draw_grid (const RspTimeAxis *axis, const RspTheme *theme, cairo_t *cr, double y0, double y1);

G_END_DECLS
