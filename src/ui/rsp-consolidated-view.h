/* rsp-consolidated-view.h — the consolidated flame view (paper §4.2): the
 * pseudo-stacks of an analysis merged where they match and sorted by
 * duration, widest first; zoomable into a subtree.  Cairo only.
 *
 * x is a share of the total time (every lane of every control path), not
 * time.  Drawing is in logical px (see rsp-flame-layout.h).  The layout
 * does not depend on the size or the zoom: make it once per analysis with
 * rsp_consolidated_view_layout and draw every frame from it. */
#pragma once

#include <cairo.h>

#include "rsp-analysis.h"
#include "rsp-flame-layout.h"
#include "rsp-theme.h"

G_BEGIN_DECLS

typedef struct {
  const char *search;      /* highlight frames whose name contains this, or NULL */
  gint highlight_category; /* an RspCategory to highlight, or -1 */
  const char *const *zoom_path; /* frames from the root to the zoomed subtree, NULL-terminated; NULL = root */
  double scroll_y;         /* logical px the stacks are scrolled up from the bottom */
  gboolean full_stacks;    /* also draw scheduler plumbing frames (see rsp_stack_names_new) */
  gboolean inverted;       /* bottom-up: each frame's own time, its callers above it */
} RspConsolidatedOptions;

void rsp_consolidated_options_init (RspConsolidatedOptions *options);

void rsp_consolidated_view_draw (const RspAnalysis *analysis, const RspConsolidatedOptions *options,
                                 const RspTheme *theme, cairo_t *cr, double width, double height);

/* The merged tree, laid out once (only OPTIONS->full_stacks and ->inverted matter). */
RspFlameLayout *rsp_consolidated_view_layout (const RspAnalysis *analysis, const RspConsolidatedOptions *options,
                                              const RspTheme *theme);
/* One tree of the control paths of N analyses of one model (a group of
 * requests): each node's time is the sum over them. */
RspFlameLayout *rsp_consolidated_view_layout_group (const RspAnalysis *const *analyses, guint n,
                                                    const RspConsolidatedOptions *options, const RspTheme *theme);
gboolean rsp_consolidated_view_layout_fits (const RspFlameLayout *layout, const RspAnalysis *analysis,
                                            const RspConsolidatedOptions *options, const RspTheme *theme);
void rsp_consolidated_view_draw_layout (RspFlameLayout *layout, const RspConsolidatedOptions *options,
                                        const RspTheme *theme, cairo_t *cr, double width, double height);

/* The differential consolidated flame graph of A (before) and B (after):
 * B's tree, its widths B's times, each box coloured by how much its node's
 * time changed against the node with the same path in A — red for more,
 * blue for less, grey for unchanged (rsp render --diff). */
void rsp_consolidated_view_draw_diff (const RspAnalysis *a, const RspAnalysis *b, const RspConsolidatedOptions *options,
                                      const RspTheme *theme, cairo_t *cr, double width, double height);
/* Per box of LB (in rsp_flame_layout_box order): (B - A) of its node, over
 * the largest change, in [-1, 1]; g_free it.  For the drawing and tests. */
float *rsp_consolidated_view_diff (const RspFlameLayout *la, const RspFlameLayout *lb);
/* The same with each side's times scaled first (1/n of a group of n
 * requests: the change of the mean request). */
float *rsp_consolidated_view_diff_scaled (const RspFlameLayout *la, double scale_a, const RspFlameLayout *lb,
                                          double scale_b);
/* LAYOUT drawn coloured by DELTA (from rsp_consolidated_view_diff*), or as
 * usual when DELTA is NULL. */
void rsp_consolidated_view_draw_layout_delta (RspFlameLayout *layout, const float *delta,
                                              const RspConsolidatedOptions *options, const RspTheme *theme,
                                              cairo_t *cr, double width, double height);

/* What is under (X, Y): a node (name, total ns, percent of the total time,
 * node id) or an element of the breadcrumb row (the node it names; the
 * root for "All").  FALSE if nothing. */
gboolean rsp_consolidated_view_hit_test (const RspFlameLayout *layout, const RspConsolidatedOptions *options,
                                         double width, double height, double x, double y, RspFlameHit *hit);

/* The zoom path that shows NODE's subtree (names from the root, NULL for
 * the root itself): set it as options->zoom_path on a click.  Free with
 * g_strfreev. */
char **rsp_consolidated_view_node_path (const RspFlameLayout *layout, guint32 node);
/* A node's total time and the total of everything (the root). */
guint64 rsp_consolidated_view_node_ns (const RspFlameLayout *layout, guint32 node);
guint64 rsp_consolidated_view_total_ns (const RspFlameLayout *layout);
/* The tree's shape, for tests: nodes are 0 (the root) to n - 1, each
 * with its parent (G_MAXUINT32 for the root). */
guint32 rsp_consolidated_view_n_nodes (const RspFlameLayout *layout);
guint32 rsp_consolidated_view_node_parent (const RspFlameLayout *layout, guint32 node);
/* The node ZOOM_PATH resolves to (as deep as it matches; 0 = the root). */
guint32 rsp_consolidated_view_find (const RspFlameLayout *layout, const char *const *zoom_path);
/* The mapping the view draws with, for tests and widgets. */
void rsp_consolidated_view_viewport (const RspFlameLayout *layout, const RspConsolidatedOptions *options,
                                     double width, double height, RspFlameViewport *viewport);
double rsp_consolidated_view_content_height (const RspFlameLayout *layout);

/* Who called NAME and what it called, summed over the whole (top-down)
 * tree, as Sysprof's and Hotspot's callers/callees tables show them.
 * A name is a frame, a task (comm) or a disk or network box. */
typedef struct {
  char *name;
  guint64 ns;
} RspCallTotal;

typedef struct {
  char *name;
  guint64 total_ns;  /* NAME's time with what it called, recursion counted once */
  guint64 self_ns;   /* of it, NAME's own: not in a frame above it or a task it waited for */
  guint64 all_ns;    /* the tree's total, for percentages */
  GArray *callers;   /* RspCallTotal, largest first: each caller's share of total_ns */
  GArray *callees;   /* RspCallTotal, largest first */
} RspCallers;

/* The top-down tree once, without a layout, for the callers and callees
 * of any name (rsp_call_graph_callers, one pass over the tree each). */
typedef struct _RspCallGraph RspCallGraph;
RspCallGraph *rsp_call_graph_new (const RspAnalysis *analysis, gboolean full_stacks);
void rsp_call_graph_free (RspCallGraph *graph);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspCallGraph, rsp_call_graph_free)
RspCallers *rsp_call_graph_callers (const RspCallGraph *graph, const char *name);
void rsp_callers_free (RspCallers *callers);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspCallers, rsp_callers_free)

G_END_DECLS
