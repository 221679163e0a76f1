/* rsp-widget-util.c — shared by the view widgets. */
#include "rsp-widget-util.h"

#include <cairo-svg.h>
#include <glib/gi18n.h>

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
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      rsp_time_nav_zoom (nav, 1.5, 0.5);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      rsp_time_nav_zoom (nav, 1 / 1.5, 0.5);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      rsp_time_nav_fit (nav);
      return TRUE;
    case GDK_KEY_Left:
      rsp_time_nav_pan (nav, -0.1);
      return TRUE;
    case GDK_KEY_Right:
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

gboolean
rsp_export_image (const char *path, double width, double height, RspDrawFunc draw, gpointer data, GError **error)
{
  gboolean svg = g_str_has_suffix (path, ".svg");
  cairo_surface_t *surface = svg ? cairo_svg_surface_create (path, width, height)
                                 : cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) width, (int) height);
  cairo_t *cr = cairo_create (surface);
  draw (cr, width, height, data);
  cairo_destroy (cr);
  cairo_status_t status = svg ? CAIRO_STATUS_SUCCESS : cairo_surface_write_to_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write %s: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
