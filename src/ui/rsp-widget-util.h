/* rsp-widget-util.h — what the view widgets share: the theme for a widget
 * (light or dark, its scale), time formatting for tooltips, the keys that
 * zoom and pan. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-export.h"
#include "rsp-legend.h"
#include "rsp-theme.h"
#include "rsp-time-axis.h"
#include "rsp-time-nav.h"

G_BEGIN_DECLS

/* The palette matching the widget's style (dark when its text is light). */
void rsp_widget_theme (GtkWidget *widget, RspTheme *theme);
/* The keys of the time-based views, as in Perfetto: W and + zoom in, S and
 * - out, A D and the arrows pan, F and 0 fit, Escape and Alt+Left go back
 * through the zoom history (rsp_time_nav_back); TRUE if the key was one.
 * *SCROLL_LINES is set for Up/Down (rows to scroll), else 0. */
gboolean rsp_time_nav_key (RspTimeNav *nav, guint keyval, GdkModifierType state, int *scroll_lines);

/* Exports a view widget: DRAW paints it at the widget's size (at least
 * 200x150) with the widget's palette at scale 1. */
typedef void (*RspWidgetDrawFunc) (cairo_t *cr, double width, double height, const RspTheme *theme,
                                   gpointer data);
gboolean rsp_widget_export (GtkWidget *widget, const char *path, RspWidgetDrawFunc draw, gpointer data,
                            GError **error);

/* The input every view widget takes; NULL members are left out.  Also makes
 * the widget focusable, expanding, with tooltips. */
typedef struct {
  GCallback scroll, motion, leave;
  GCallback drag_begin, drag_update, drag_end;
  GCallback click_released;
  GCallback key_pressed;
  GCallback pinch_begin, pinch_scale_changed;
  GCallback query_tooltip;
} RspViewInput;
void rsp_widget_add_view_input (GtkWidget *widget, const RspViewInput *input, gpointer data);

/* Tells screen readers what is selected in a view drawn as one picture:
 * WIDGET's accessible description becomes TEXT (its name says which view
 * it is); logged for the GUI tests (G_MESSAGES_DEBUG=rsp-ui). */
void rsp_widget_announce_selection (GtkWidget *widget, const char *text);

/* An error dialog over WIDGET's window: PRIMARY, the problem; SECONDARY,
 * what to do.  It closes itself. */
void rsp_widget_show_error (GtkWidget *widget, const char *primary, const char *secondary);

/* The legend of KIND's colours as a widget, for under a view: drawn by
 * rsp_legend_draw in the widget's palette, as tall as its width needs, and
 * described to screen readers. */
GtkWidget *rsp_legend_widget_new (RspLegendKind kind);

G_END_DECLS
