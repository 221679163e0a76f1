/* rsp-timeline-widget.h — the process running view as a GTK widget: input
 * (zoom, pan, select, hover, click) and layout only; drawing is
 * rsp-timeline-view.c.
 *
 * Signals: "task-activated" (guint task index): a task name was clicked;
 * "range-selected" (guint64 t0, guint64 t1): a time range was selected
 * (shift-drag, or a drag on the ruler); "item-selected" (guint
 * RspDetailsItem, guint index): a run, sleep, disk or network operation or
 * link was clicked, or Left/Right stepped to the task's previous or next
 * run or sleep (rsp-details.h says what the details pane shows of it). */
#pragma once

#include <gtk/gtk.h>

#include "rsp-model.h"

G_BEGIN_DECLS

#define RSP_TYPE_TIMELINE_WIDGET (rsp_timeline_widget_get_type ())
G_DECLARE_FINAL_TYPE (RspTimelineWidget, rsp_timeline_widget, RSP, TIMELINE_WIDGET, GtkWidget)

/* MODEL must outlive the widget. */
GtkWidget *rsp_timeline_widget_new (const RspModel *model, gint32 pid);
void rsp_timeline_widget_set_show_sleeps (RspTimelineWidget *self, gboolean show);
void rsp_timeline_widget_set_summary (RspTimelineWidget *self, gboolean summary);
/* Highlights and scrolls to the first task whose name contains TEXT. */
void rsp_timeline_widget_set_search (RspTimelineWidget *self, const char *text);
/* With FILTER, the search also hides the task rows that do not match it
 * (their command, pid or tid), but the process of interest's. */
void rsp_timeline_widget_set_filter (RspTimelineWidget *self, gboolean filter);
/* The processes on the process of interest's control paths
 * (rsp_analysis_processes, the process of interest first): their rows come
 * right after its own, in this order. */
void rsp_timeline_widget_set_path_pids (RspTimelineWidget *self, const gint32 *pids, guint n);
/* Search: rsp_timeline_widget_set_search marks every task row whose name
 * holds TEXT (any case) and goes to the first; _search_step goes DELTA
 * matches on (wrapping); _search_matches gives their number and the
 * current one's index (0-based). */
void rsp_timeline_widget_search_step (RspTimelineWidget *self, gint delta);
guint rsp_timeline_widget_search_matches (RspTimelineWidget *self, guint *current);
void rsp_timeline_widget_zoom_fit (RspTimelineWidget *self);
/* Shows the time range [T0, T1] (keeping the zoom when it fits). */
void rsp_timeline_widget_show_range (RspTimelineWidget *self, guint64 t0, guint64 t1);
/* Draws what is shown to a PNG, SVG or PDF file (by its suffix), at the widget's size. */
/* A key for the view (rsp_time_nav_key's, Z for the selected range); TRUE
 * if it was one (see rsp_flame_widget_handle_key). */
gboolean rsp_timeline_widget_handle_key (RspTimelineWidget *self, guint keyval, GdkModifierType state);
gboolean rsp_timeline_widget_export (RspTimelineWidget *self, const char *path, GError **error);

G_END_DECLS
