/* rsp-timeline-view.h — the process running view (paper §4.2): x = time, y = tasks.  One row per task (thread within one exec
 * generation), grouped by process, with its name in a column on the left;
 * runs are bars, wake-up / fork / exec links are lines from the waker's row
 * to the woken row at the link's time; optionally sleeps (labelled with their
 * describing frame); disk and network operations on rows pinned at the
 * bottom; a time ruler on top.
 *
 * A layout is built once per (model, options): the rows, their order, and
 * per row the time-sorted spans drawing needs.  Drawing takes a viewport
 * (time range, vertical scroll, size) and touches only the visible rows, and
 * per row only the spans in range (binary search), merging everything that
 * falls into one pixel column.  Hit testing uses the same geometry, so the
 * GTK widget can do tooltips and "click a task name opens its flame view".
 * Cairo and Pango only. */
#pragma once

#include <cairo.h>

#include "rsp-model.h"
#include "rsp-theme.h"

G_BEGIN_DECLS

/* Rows are grouped by process; the process of interest comes first. */
typedef enum {
  RSP_TIMELINE_SORT_TREE,           /* process trees: each process followed by those it forked,
                                     * siblings and threads by when they first ran; the trees
                                     * by how many wake-ups link them to those above (default) */
  RSP_TIMELINE_SORT_FIRST_ACTIVITY, /* processes, then threads, by when they first ran */
  RSP_TIMELINE_SORT_PID,            /* processes by pid, threads by tid */
} RspTimelineSort;

typedef struct {
  gint32 pid;              /* the process of interest: its rows come first, names in bold; 0 = none */
  guint64 from, to;        /* the layout's range (recording clock); 0, 0 = the whole recording */
  gboolean show_sleeps;    /* draw sleeps, labelled with their describing frame */
  gboolean show_links;     /* draw wake-up, fork, exec, disk and network links */
  gboolean summary;        /* hide tasks with negligible CPU time (below) or no runs in range,
                            * except the process of interest's */
  double summary_fraction; /* of the busiest task's CPU time; default 0.005 */
  RspTimelineSort sort;
  gboolean fold_threads;   /* one row for all the threads of a process (the GUI's default),
                            * but the process of interest's; TOGGLED reverses it per process */
  const gint32 *toggled;   /* pids folded the other way (the layout keeps a copy) */
  guint n_toggled;
  const char *filter;      /* keep only the tasks whose command holds this (case-folded, see
                            * g_utf8_casefold) or whose pid or tid it is, and the process of
                            * interest; NULL or "" for all (the layout keeps a copy) */
  const gint32 *path_pids;  /* the processes on the process of interest's control paths
                             * (rsp_analysis_processes): their rows come right after
                             * its own, in this order (the layout keeps a copy) */
  guint n_path_pids;
} RspTimelineOptions;

void rsp_timeline_options_init (RspTimelineOptions *options);

typedef enum {
  RSP_TIMELINE_ROW_TASK,
  RSP_TIMELINE_ROW_DISK,    /* one per device */
  RSP_TIMELINE_ROW_NETWORK, /* all network operations */
} RspTimelineRowKind;

typedef struct {
  RspTimelineRowKind kind;
  RspIdx task;            /* task rows; RSP_NONE otherwise */
  gint32 pid;             /* task rows: the process */
  guint32 dev;            /* disk rows: the device (kernel dev_t) */
  guint32 group;          /* process group, counted from 0 in row order */
  gboolean first_in_group;/* the first row of its process */
  guint64 cpu_ns;         /* task rows: CPU time within the layout's range */
  guint32 threads;        /* task rows: threads of its process with a row or in this one */
  gboolean folded;        /* task rows: it stands for all THREADS threads of its process */
  guint32 n_items;        /* runs, or operations, within the layout's range */
} RspTimelineRow;

typedef struct _RspTimelineLayout RspTimelineLayout;

RspTimelineLayout *rsp_timeline_layout_new (const RspModel *model, const RspTimelineOptions *options);
void rsp_timeline_layout_free (RspTimelineLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspTimelineLayout, rsp_timeline_layout_free)

const RspModel *rsp_timeline_layout_model (const RspTimelineLayout *layout);
const RspTimelineOptions *rsp_timeline_layout_options (const RspTimelineLayout *layout);
/* The range the layout covers (options' from/to, else the recording). */
guint64 rsp_timeline_layout_start (const RspTimelineLayout *layout);
guint64 rsp_timeline_layout_end (const RspTimelineLayout *layout);
/* Rows: task rows first (they scroll), then the operation rows (pinned at
 * the bottom of the view). */
guint rsp_timeline_layout_n_rows (const RspTimelineLayout *layout);
guint rsp_timeline_layout_n_task_rows (const RspTimelineLayout *layout);
const RspTimelineRow *rsp_timeline_layout_row (const RspTimelineLayout *layout, guint row);
/* The row of task TASK (a model index), or -1 when the layout hides it. */
gint rsp_timeline_layout_task_row (const RspTimelineLayout *layout, RspIdx task);
/* Tasks with activity in range that the summary option or the filter hid. */
guint rsp_timeline_layout_n_hidden (const RspTimelineLayout *layout);

/* ------------------------------------------------------------------ geometry and drawing */

typedef struct {
  guint64 t0, t1;        /* visible time range, recording clock */
  double scroll_y;       /* logical px the task rows are scrolled up by */
  double width, height;  /* the whole view, logical px */
  double row_height;     /* logical px per row; 0 = the theme's */
  gint highlight_row;    /* a row to highlight (hover, the current match), -1 for none */
  const guint32 *marked_rows; /* rows marked lighter (every search match), ascending */
  guint n_marked_rows;
  guint64 select_t0, select_t1; /* a selected time range; equal for none */
} RspTimelineViewport;

/* The whole layout range, no scroll, no highlight. */
void rsp_timeline_viewport_init (RspTimelineViewport *viewport, const RspTimelineLayout *layout, double width,
                                 double height);

/* A row height between the theme's and 1.6 times it such that the task
 * rows fill HEIGHT if they can: a picture of a recording with a handful of
 * tasks should not be mostly empty. */
double rsp_timeline_view_fit_row_height (const RspTimelineLayout *layout, const RspTheme *theme, double height);

/* Where things are, for a viewport: all in logical px. */
typedef struct {
  double ruler_height;   /* the ruler spans [name_width, width] × [0, ruler_height] */
  double name_width;     /* the task-name column */
  double row_height;
  double rows_top;       /* first task row's top before scrolling (= ruler_height) */
  double rows_bottom;    /* task rows are clipped to [rows_top, rows_bottom] */
  double ops_top;        /* the pinned operation rows start here */
  double plot_x, plot_width; /* the time area */
} RspTimelineGeometry;

void rsp_timeline_view_geometry (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                                 const RspTheme *theme, RspTimelineGeometry *geometry);
/* Height of all task rows, for a scrollbar. */
double rsp_timeline_view_content_height (const RspTimelineLayout *layout, const RspTheme *theme);
/* Top of ROW's box in the view for VIEWPORT (outside the task area when
 * scrolled away). */
double rsp_timeline_view_row_y (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                                const RspTheme *theme, guint row);

/* Draws the whole view into [0, width] × [0, height] of CR.  The layout's
 * options say whether sleeps and links are drawn. */
void rsp_timeline_view_draw (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                             const RspTheme *theme, cairo_t *cr);

/* ------------------------------------------------------------------ hit testing */

typedef enum {
  RSP_TIMELINE_HIT_NONE,
  RSP_TIMELINE_HIT_RULER,     /* time is set */
  RSP_TIMELINE_HIT_NAME,      /* the name column of a row: task (task rows) or the row */
  RSP_TIMELINE_HIT_FOLD,      /* the fold mark of a multi-threaded process's row: task is that row's */
  RSP_TIMELINE_HIT_ROW,       /* a row's time area with nothing under the point */
  RSP_TIMELINE_HIT_RUN,       /* item: run index */
  RSP_TIMELINE_HIT_SLEEP,     /* item: sleep index (only when sleeps are shown) */
  RSP_TIMELINE_HIT_LINK,      /* item: link index */
  RSP_TIMELINE_HIT_DISK_OP,   /* item: disk operation index */
  RSP_TIMELINE_HIT_NET_OP,    /* item: network operation index */
} RspTimelineHitKind;

typedef struct {
  RspTimelineHitKind kind;
  gint row;        /* -1 when the point is on no row */
  RspIdx task;     /* the row's task, RSP_NONE for operation rows */
  RspIdx item;     /* see the kinds; RSP_NONE otherwise */
  guint64 time;    /* the time under x (when x is in the time area) */
} RspTimelineHit;

/* What is under (X, Y) (logical px in the view) for VIEWPORT.  Something
 * narrower than a pixel is found within a couple of pixels, as drawn.
 * Returns FALSE (kind NONE) when nothing is. */
gboolean rsp_timeline_view_hit_test (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                                     const RspTheme *theme, double x, double y, RspTimelineHit *hit);

G_END_DECLS
