/* rsp-legend.h — the legend of a view's colours, drawn under it: what red,
 * blue, purple, grey, green and the others stand for.  Cairo and Pango
 * only, so that `rsp render`, the tests and the widgets share it. */
#pragma once

#include <cairo.h>

#include "rsp-theme.h"

G_BEGIN_DECLS

typedef enum {
  RSP_LEGEND_TIMELINE, /* task rows: runs, sleeps, waits for a CPU, disk, network, wake-ups */
  RSP_LEGEND_FLAME,    /* both flame views: runs, sleeps, both, tasks, disk, network */
  RSP_LEGEND_DIFF,     /* the differential flame: more time, less time, unchanged */
  RSP_LEGEND_DIFF_REQUESTS, /* the same for the selected requests against the others */
} RspLegendKind;

/* The entries of KIND, for an accessible description: their labels (translated)
 * joined by ", " with the colour each has. */
char *rsp_legend_text (RspLegendKind kind);
/* The height the legend needs at WIDTH (logical px): entries flow left to
 * right and wrap. */
double rsp_legend_height (RspLegendKind kind, const RspTheme *theme, cairo_t *cr, double width);
void rsp_legend_draw (RspLegendKind kind, const RspTheme *theme, cairo_t *cr, double width);

G_END_DECLS
