/* rsp-flame-layout.h — the layout both flame views share (paper §4.2).
 *
 * A flame view is laid out once into rows of small boxes, each row sorted
 * by start, the way Sysprof's flame graph is: drawing a viewport is one
 * binary search per visible row, hit testing is one more, and a redraw at
 * the same zoom (scrolling) touches only what is visible.  The
 * chronological view (rsp-flame-view.c) builds one layout per zoom level,
 * because merging adjacent identical frames depends on what one pixel is;
 * the consolidated view (rsp-consolidated-view.c) builds one per analysis,
 * since its x axis is a share of the total time, not time.
 *
 * Coordinates.  Renderers draw in logical pixels: CR comes from GTK's
 * snapshot, or from an image surface of (width x scale) x (height x scale)
 * device pixels with cairo_surface_set_device_scale (surface, scale, scale).
 * THEME->scale only says how many device pixels a logical pixel has, so
 * that edges snap to device pixels and "one visible pixel" means one device
 * pixel.  Rows grow upwards, like a flame graph: content y is measured in
 * logical px up from the bottom of the content, and a viewport's scroll_y
 * is how far the content is scrolled up (0 = its bottom rows are visible).
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "rsp-analysis.h"
#include "rsp-stack-names.h"
#include "rsp-theme.h"

G_BEGIN_DECLS

typedef enum {
  RSP_FLAME_BOX_TASK,    /* a task-name layer (grey) */
  RSP_FLAME_BOX_RUN,     /* a frame of a run's samples (red) */
  RSP_FLAME_BOX_SLEEP,   /* a frame of a sleep's switch-out stack (blue) */
  RSP_FLAME_BOX_BOTH,    /* a frame that both runs and sleeps there (purple) */
  RSP_FLAME_BOX_DISK,    /* a sleep's stretch in disk I/O or the I/O queue (green) */
  RSP_FLAME_BOX_NETWORK, /* a sleep's stretch waiting for the network (teal) */
} RspFlameBoxKind;

/* One box.  START and END are on the layout's axis: recording-clock ns in
 * the chronological view, ns of total time from the left edge in the
 * consolidated one. */
typedef struct {
  guint64 start, end;
  const char *name;    /* frame, task comm, "disk I/O", "network 10.0.0.1:80" */
  guint32 parent;      /* the box it stands on, index in the layout; G_MAXUINT32 at the base */
  guint32 ref;         /* chronological: segment the box starts in; consolidated: tree node */
  guint32 row;
  guint16 categories;  /* bit (1 << RspCategory) per category of its own layer's time under it */
  guint8 kind : 4;     /* RspFlameBoxKind */
  guint8 flags : 4;    /* RspFlameBoxFlags (kind and flags share a byte: a box stays 40 bytes, no padding) */
  guint8 shade;        /* from the name's hash: neighbours with other names differ a little */
} RspFlameBox;

typedef enum {
  /* its time includes a sleep whose wake-up was not recorded, explained
   * from the sleeper's own stack (RspSleep.inferred): drawn hatched */
  RSP_FLAME_BOX_INFERRED = 1 << 0,
} RspFlameBoxFlags;

#define RSP_FLAME_NO_BOX G_MAXUINT32

/* What hit testing found under a point. */
typedef enum {
  RSP_FLAME_HIT_NONE,
  RSP_FLAME_HIT_BOX,
  RSP_FLAME_HIT_BAND,       /* chronological: a control path's label strip */
  RSP_FLAME_HIT_BREADCRUMB, /* consolidated: an element of the breadcrumb row */
} RspFlameHitWhat;

typedef struct {
  RspFlameHitWhat what;
  guint32 box;             /* index in the layout, RSP_FLAME_NO_BOX if none */
  RspFlameBoxKind kind;
  const char *name;        /* frame, task comm, "disk I/O"... */
  RspIdx task;             /* chronological: the task of the layer; RSP_NONE in the consolidated view */
  RspIdx segment;          /* chronological: the segment under the point; RSP_NONE otherwise */
  guint32 path;            /* chronological: the control path */
  guint depth;             /* level of the box above its layout's base */
  guint64 start, end;      /* chronological: the (merged) box, recording-clock ns */
  RspCategory category;    /* chronological: what the accounting says the time under the point was */
  guint16 categories;      /* the box's category bits */
  guint64 ns;              /* the box's time: end - start, or a consolidated node's total */
  double percent;          /* of the analysis' total time (consolidated), of the path's (chronological) */
  guint32 node;            /* consolidated: tree node; breadcrumb: the node that element names */
  double x, y, width, height; /* the box as drawn, logical px (for tooltips and hover outlines) */
} RspFlameHit;

/* An empty hit: no box, task, segment or node. */
void rsp_flame_hit_init (RspFlameHit *hit);

/* How the rows of a layout map to a viewport. */
typedef struct {
  guint64 t0;            /* axis value at x = LEFT */
  double ns_per_px;      /* axis units per logical px */
  double left, width;    /* the drawing area, logical px */
  double top, bottom;    /* screen y of the area's top and bottom edges */
  double scroll_y;       /* content scrolled up by this much (logical px) */
  const char *search;    /* highlight names containing this (case-insensitive), or NULL */
  gint highlight_category; /* an RspCategory, or -1 */
  /* a differential flame: per box (index from BOX_BASE), the change of its
   * time against the other recording, from -1 (all of the largest loss) to
   * 1 (the largest gain); boxes are then coloured by it, not by kind */
  const float *box_delta;
  const RspFlameBox *box_base;
} RspFlameViewport;

typedef struct _RspFlameLayout RspFlameLayout;

/* Plain arrays: rows of boxes, each sorted by start and not overlapping. */
struct _RspFlameLayout {
  GArray *boxes;        /* RspFlameBox, by row then start */
  GArray *row_first;    /* guint32 per row, plus one past the end */
  GArray *row_y;        /* double per row: its bottom edge, content px from the content's bottom */
  double row_height;    /* logical px */
  double content_height;
  double scale;         /* device px per logical px the layout was made for */
  GHashTable *label_widths; /* name -> text width in Pango units (+1), measured once */
  PangoFontDescription *font;
  PangoContext *measure;  /* for text geometry outside of drawing */
  gpointer view_data;   /* what the view that built it keeps (bands, lanes, the tree...) */
  GDestroyNotify view_data_free;
};

/* Building (for the views). */
RspFlameLayout *rsp_flame_layout_new (const RspTheme *theme);
/* Appends the next row up, its bottom edge at content y Y: BOXES in start
 * order, not overlapping, each box's parent an index into the row added
 * just before (or RSP_FLAME_NO_BOX); they become layout-wide indexes. */
void rsp_flame_layout_add_row (RspFlameLayout *layout, double y, const RspFlameBox *boxes, guint n_boxes);
void rsp_flame_layout_free (RspFlameLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspFlameLayout, rsp_flame_layout_free)

guint rsp_flame_layout_n_rows (const RspFlameLayout *layout);
const RspFlameBox *rsp_flame_layout_row (const RspFlameLayout *layout, guint row, guint *n_boxes);
const RspFlameBox *rsp_flame_layout_box (const RspFlameLayout *layout, guint32 box);
double rsp_flame_layout_content_height (const RspFlameLayout *layout);

/* The box of ROW whose span contains T, else the nearest one within SLOP
 * axis units; RSP_FLAME_NO_BOX if none. */
guint32 rsp_flame_layout_find (const RspFlameLayout *layout, guint row, guint64 t, guint64 slop);
/* The row whose band of content y contains Y (content px), or -1. */
gint rsp_flame_layout_row_at (const RspFlameLayout *layout, double content_y);
/* Screen geometry of a row and of a box in a viewport. */
double rsp_flame_layout_row_top (const RspFlameLayout *layout, const RspFlameViewport *vp, guint row);
void rsp_flame_layout_box_rect (const RspFlameLayout *layout, const RspFlameViewport *vp, const RspFlameBox *box,
                                double *x, double *y, double *width, double *height);

/* Draws the visible boxes of every row and their labels. */
void rsp_flame_layout_draw (RspFlameLayout *layout, const RspFlameViewport *vp, const RspTheme *theme, cairo_t *cr);
/* Finds the box under (X, Y), screen logical px; fills the box part of HIT. */
gboolean rsp_flame_layout_hit (const RspFlameLayout *layout, const RspFlameViewport *vp, double x, double y,
                               RspFlameHit *hit);

/* Shared pieces of drawing. */
RspColor rsp_flame_box_color (const RspTheme *theme, const RspFlameBox *box);
/* Draws TEXT at (X, Y) (top-left), ellipsized to MAX_WIDTH (none if <= 0);
 * returns the width drawn. */
double rsp_flame_layout_text (RspFlameLayout *layout, cairo_t *cr, const char *text, double x, double y,
                              double max_width, PangoEllipsizeMode mode);
/* Width of TEXT in the layout's font, measured without a cairo_t (hit
 * testing needs the same geometry as drawing). */
double rsp_flame_layout_text_width (const RspFlameLayout *layout, const char *text);
void rsp_flame_set_color (cairo_t *cr, RspColor c, double alpha);
/* Case-insensitive substring match of the search option. */
gboolean rsp_flame_name_matches (const char *name, const char *search);

/* The shade of a frame's colour: the same name, the same shade. */
guint8 rsp_flame_name_shade (const char *name);
/* The box a sleep's stretch ST gets on top of its frames ("disk I/O on
 * /var/lib/db", "I/O queue", "network 10.0.0.1:80"), or NULL if none.  A
 * label made for the stretch is kept in NAMES, which the caller frees when
 * its boxes go. */
const char *rsp_flame_stretch_box (const RspAnalysis *analysis, const RspSegment *segment, const RspStretch *st,
                                   GStringChunk *names, RspFlameBoxKind *kind);

G_END_DECLS
