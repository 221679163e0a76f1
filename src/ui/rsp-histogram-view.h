/* rsp-histogram-view.h — the latency histogram of a set of requests
 * (rsp-requests.h): one bar per bin, the slow tail in its own colour, the
 * p50, p90 and p99 marked, the selected bars outlined.  Cairo and Pango
 * only: `rsp render`, the tests and the requests view's widget share it. */
#pragma once

#include <cairo.h>

#include "rsp-requests.h"
#include "rsp-theme.h"

G_BEGIN_DECLS

typedef struct {
  gint sel_first, sel_last; /* the selected bins, inclusive; -1 for none */
  gint hover;               /* the bin under the pointer, -1 for none */
} RspHistogramOptions;

void rsp_histogram_options_init (RspHistogramOptions *options);

void rsp_histogram_view_draw (const RspRequests *requests, const RspHistogramOptions *options,
                              const RspTheme *theme, cairo_t *cr, double width, double height);

/* The bin whose bar column holds X (logical px) in a drawing of WIDTH, or
 * -1 left or right of the bars. */
gint rsp_histogram_view_bin_at (const RspRequests *requests, double width, double x);
/* The durations bin BIN covers: [*LOW, *HIGH) in ns. */
void rsp_histogram_view_bin_range (const RspRequests *requests, guint bin, guint64 *low, guint64 *high);
/* How many requests bins FIRST..LAST hold. */
guint rsp_histogram_view_count (const RspRequests *requests, guint first, guint last);

G_END_DECLS
