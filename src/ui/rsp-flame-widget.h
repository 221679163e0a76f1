/* rsp-flame-widget.h — the chronological and consolidated flame views of
 * one analysis as GTK widgets: input and layout caching only; drawing is
 * rsp-flame-view.c and rsp-consolidated-view.c.
 *
 * Chronological: Ctrl+wheel / + / − / 0 / pinch zoom, drag / wheel / arrows
 * pan, a click on a box zooms to it.  Consolidated: a click zooms into a
 * subtree, the breadcrumb (or Escape) back out; top-down or bottom-up.
 * A click on a box emits "frame-selected" (const char *name) in both, and
 * in the chronological view "moment-selected" (guint segment, guint64 time
 * under the pointer, const char *name) for the details pane. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-analysis.h"

G_BEGIN_DECLS

typedef enum {
  RSP_FLAME_WIDGET_CHRONOLOGICAL,
  RSP_FLAME_WIDGET_CONSOLIDATED,
} RspFlameWidgetMode;

#define RSP_TYPE_FLAME_WIDGET (rsp_flame_widget_get_type ())
G_DECLARE_FINAL_TYPE (RspFlameWidget, rsp_flame_widget, RSP, FLAME_WIDGET, GtkWidget)

/* ANALYSIS must outlive the widget. */
GtkWidget *rsp_flame_widget_new (const RspAnalysis *analysis, RspFlameWidgetMode mode);
/* The consolidated view of a group of analyses of one model (requests)
 * merged into one tree; with BASE (N_BASE > 0) a differential flame: the
 * group's tree coloured by how its mean request differs from BASE's mean
 * (red: more time, blue: less).  The analyses must outlive the widget. */
GtkWidget *rsp_flame_widget_new_group (const RspAnalysis *const *group, guint n, const RspAnalysis *const *base,
                                       guint n_base);
void rsp_flame_widget_set_search (RspFlameWidget *self, const char *text);
/* The search's matches (*CURRENT: the one shown, from 0) and a step to the
 * next (DELTA 1) or previous (-1) one, shown: its time range
 * (chronological) or its subtree (consolidated). */
guint rsp_flame_widget_search_matches (RspFlameWidget *self, guint *current);
void rsp_flame_widget_search_step (RspFlameWidget *self, gint delta);
/* Highlights the boxes of CATEGORY (-1: none) and shows the first of them. */
void rsp_flame_widget_set_highlight_category (RspFlameWidget *self, gint category);
/* Consolidated: bottom-up (each frame's own time at the bottom, its
 * callers above) or top-down; switching goes back to the whole tree. */
void rsp_flame_widget_set_inverted (RspFlameWidget *self, gboolean inverted);
gboolean rsp_flame_widget_get_inverted (RspFlameWidget *self);
/* Shows the time range [T0, T1] (chronological). */
void rsp_flame_widget_show_range (RspFlameWidget *self, guint64 t0, guint64 t1);
/* Draws what is shown to a PNG, SVG or PDF file (by its suffix), at the widget's size. */
/* A key for the view (rsp_time_nav_key's, Escape in the consolidated
 * view); TRUE if it was one.  The views' container passes on the keys no
 * focused widget took, so that they work wherever the focus is. */
gboolean rsp_flame_widget_handle_key (RspFlameWidget *self, guint keyval, GdkModifierType state);
gboolean rsp_flame_widget_export (RspFlameWidget *self, const char *path, GError **error);

G_END_DECLS
