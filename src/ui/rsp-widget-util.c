/* rsp-widget-util.c — shared by the view widgets. */
#include "rsp-widget-util.h"

#include <glib/gi18n.h>
#include <math.h>

void
rsp_widget_theme (GtkWidget *widget, RspTheme *theme)
{
  GdkRGBA fg;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* light text means a dark style */
  double luminance = 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue;
  rsp_theme_init (theme, luminance > 0.5, gtk_widget_get_scale_factor (widget));
}

gboolean
rsp_time_nav_key (RspTimeNav *nav, guint keyval, GdkModifierType state, int *scroll_lines)
{
  *scroll_lines = 0;
  if ((state & GDK_ALT_MASK) && keyval == GDK_KEY_Left)
    {
      rsp_time_nav_back (nav);
      return TRUE;
    }
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE; /* the application's shortcuts */
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
    case GDK_KEY_w:
    case GDK_KEY_W:
      rsp_time_nav_zoom (nav, 1.5, 0.5);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
    case GDK_KEY_s:
    case GDK_KEY_S:
      rsp_time_nav_zoom (nav, 1 / 1.5, 0.5);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
    case GDK_KEY_f:
    case GDK_KEY_F:
      rsp_time_nav_fit_jump (nav);
      return TRUE;
    case GDK_KEY_Escape:
      rsp_time_nav_back (nav);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_a:
    case GDK_KEY_A:
      rsp_time_nav_pan (nav, -0.1);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_d:
    case GDK_KEY_D:
      rsp_time_nav_pan (nav, 0.1);
      return TRUE;
    case GDK_KEY_Up:
      *scroll_lines = -1;
      return TRUE;
    case GDK_KEY_Down:
      *scroll_lines = 1;
      return TRUE;
    default:
      return FALSE;
    }
}

typedef struct {
  RspWidgetDrawFunc draw;
  gpointer data;
  RspTheme theme;
} WidgetExport;

static void
widget_export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  WidgetExport *e = data;
  e->draw (cr, width, height, &e->theme, e->data);
}

gboolean
rsp_widget_export (GtkWidget *widget, const char *path, RspWidgetDrawFunc draw, gpointer data, GError **error)
{
  WidgetExport e = { draw, data };
  rsp_widget_theme (widget, &e.theme);
  e.theme.scale = 1;
  return rsp_export_image (path, MAX (gtk_widget_get_width (widget), 200), MAX (gtk_widget_get_height (widget), 150),
                           widget_export_draw, &e, error);
}

void
rsp_widget_add_view_input (GtkWidget *widget, const RspViewInput *in, gpointer data)
{
  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_widget_set_vexpand (widget, TRUE);
  if (in->query_tooltip != NULL)
    {
      gtk_widget_set_has_tooltip (widget, TRUE);
      g_signal_connect (widget, "query-tooltip", in->query_tooltip, NULL);
    }
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", in->scroll, data);
  gtk_widget_add_controller (widget, scroll);
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", in->motion, data);
  if (in->leave != NULL)
    g_signal_connect (motion, "leave", in->leave, data);
  gtk_widget_add_controller (widget, motion);
  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", in->drag_begin, data);
  g_signal_connect (drag, "drag-update", in->drag_update, data);
  if (in->drag_end != NULL)
    g_signal_connect (drag, "drag-end", in->drag_end, data);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));
  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "released", in->click_released, data);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));
  GtkEventController *key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", in->key_pressed, data);
  gtk_widget_add_controller (widget, key);
  GtkGesture *pinch = gtk_gesture_zoom_new ();
  g_signal_connect (pinch, "begin", in->pinch_begin, data);
  g_signal_connect (pinch, "scale-changed", in->pinch_scale_changed, data);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (pinch));
}

void
rsp_widget_announce_selection (GtkWidget *widget, const char *text)
{
  g_autofree char *description = g_strdup_printf (_("Selected: %s"), text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "a11y: %s: %s", G_OBJECT_TYPE_NAME (widget), description);
}

/* ------------------------------------------------------------------ legend */

static void
legend_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (area), &theme);
  rsp_legend_draw (GPOINTER_TO_INT (data), &theme, cr, width);
}

static void
legend_resize (GtkDrawingArea *area, int width, int height, gpointer data)
{
  RspTheme theme;
  rsp_widget_theme (GTK_WIDGET (area), &theme);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  int need = (int) ceil (rsp_legend_height (GPOINTER_TO_INT (data), &theme, cr, width));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  if (need != gtk_drawing_area_get_content_height (area))
    gtk_drawing_area_set_content_height (area, need);
}

GtkWidget *
rsp_legend_widget_new (RspLegendKind kind)
{
  GtkWidget *area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), 24);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), legend_draw, GINT_TO_POINTER (kind), NULL);
  g_signal_connect (area, "resize", G_CALLBACK (legend_resize), GINT_TO_POINTER (kind));
  g_autofree char *text = rsp_legend_text (kind);
  gtk_accessible_update_property (GTK_ACCESSIBLE (area), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Legend"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  return area;
}

void
rsp_widget_show_error (GtkWidget *widget, const char *primary, const char *secondary)
{
  GtkRoot *root = widget != NULL ? gtk_widget_get_root (widget) : NULL;
  GtkWidget *dialog = gtk_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_ERROR,
                                              GTK_BUTTONS_CLOSE, "%s", primary);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", secondary);
  gtk_window_set_title (GTK_WINDOW (dialog), primary);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}
