/* rsp-flame-view.h — the chronological flame view (paper §4.2): for one
 * process of interest, control paths as bands, x = time, y = pseudo-stack
 * depth; each layer a task name (grey) topped by its frames: run red, sleep
 * blue, both purple, blocking disk I/O green, network its own colour.
 * Cairo only: used by the GTK widget, by `rsp render` and by tests.
 *
 * Drawing is in logical px (see rsp-flame-layout.h): the caller gives CR
 * its device scale (GTK does; for an image surface, make it WIDTH x scale
 * by HEIGHT x scale and call cairo_surface_set_device_scale).
 *
 * Two ways to draw:
 *   - rsp_flame_view_draw: lays out and draws in one call (`rsp render`);
 *   - rsp_flame_view_layout once per zoom level, then
 *     rsp_flame_view_draw_layout for every frame while only the visible
 *     range moves (scrolling), the search or the highlight change; make a
 *     new layout when rsp_flame_view_layout_fits says the zoom changed.
 */
#pragma once

#include <cairo.h>

#include "rsp-analysis.h"
#include "rsp-flame-layout.h"
#include "rsp-theme.h"

G_BEGIN_DECLS

typedef struct {
  guint64 t0, t1;          /* visible range, recording clock; 0, 0 = the whole analysis */
  const char *search;      /* highlight frames whose name contains this, or NULL */
  gint highlight_category; /* an RspCategory to highlight, or -1 */
  double scroll_y;         /* logical px the bands are scrolled up from the bottom (0 = path 0's base) */
  gboolean full_stacks;    /* also draw scheduler plumbing frames (see rsp_stack_names_new) */
} RspFlameOptions;

void rsp_flame_options_init (RspFlameOptions *options);

/* Draws the whole view into a WIDTH x HEIGHT (logical px) area of CR. */
void rsp_flame_view_draw (const RspAnalysis *analysis, const RspFlameOptions *options, const RspTheme *theme,
                          cairo_t *cr, double width, double height);

/* Lays the view out for the zoom of OPTIONS (t1 - t0 over WIDTH) over the
 * whole analysis, so that any range at that zoom draws from it. */
RspFlameLayout *rsp_flame_view_layout (const RspAnalysis *analysis, const RspFlameOptions *options,
                                       const RspTheme *theme, double width);
/* A layout for the zoom of OPTIONS that shares PREVIOUS's zoom-independent
 * half (levels, lanes, stretches, links: about half the work) when it was
 * made for the same analysis; PREVIOUS stays valid. */
RspFlameLayout *rsp_flame_view_layout_rezoom (const RspFlameLayout *previous, const RspAnalysis *analysis,
                                              const RspFlameOptions *options, const RspTheme *theme, double width);
/* Whether LAYOUT can draw OPTIONS at WIDTH: same analysis, zoom, stacks
 * and scale.  A layout made for another zoom still draws correctly, only
 * merged for its own zoom: a widget can keep drawing it during a zoom
 * gesture and lay out again when the gesture ends. */
gboolean rsp_flame_view_layout_fits (const RspFlameLayout *layout, const RspAnalysis *analysis,
                                     const RspFlameOptions *options, const RspTheme *theme, double width);
void rsp_flame_view_draw_layout (RspFlameLayout *layout, const RspFlameOptions *options, const RspTheme *theme,
                                 cairo_t *cr, double width, double height);

/* What is under (X, Y) (logical px in the drawn area): a box (with its
 * segment, task, time span and the accounting category of the time under
 * the point) or a control path's label strip.  FALSE if nothing. */
gboolean rsp_flame_view_hit_test (const RspFlameLayout *layout, const RspFlameOptions *options, double width,
                                  double height, double x, double y, RspFlameHit *hit);

/* The mapping the view draws with (time <-> x, rows <-> y), for tests and
 * for widgets that draw hover outlines or map clicks. */
void rsp_flame_view_viewport (const RspFlameLayout *layout, const RspFlameOptions *options, double width,
                              double height, RspFlameViewport *viewport);
/* Layout row of LEVEL above the task box of SEGMENT's layer (0 = the task
 * box itself), or -1 if the segment is not drawn. */
gint rsp_flame_view_segment_row (const RspFlameLayout *layout, RspIdx segment, guint level);
/* Height of everything the view can scroll through, logical px (the
 * ruler included). */
double rsp_flame_view_content_height (const RspFlameLayout *layout);

G_END_DECLS
