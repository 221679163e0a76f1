/* rsp-export.c — a drawing written to PNG, SVG or PDF. */
#include "rsp-export.h"

#include "rsp-user-file.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

RspImageFormat
rsp_image_format_for (const char *path)
{
  const char *dot = strrchr (path, '.');
  if (dot == NULL)
    return RSP_IMAGE_UNKNOWN;
  if (g_ascii_strcasecmp (dot, ".png") == 0)
    return RSP_IMAGE_PNG;
  if (g_ascii_strcasecmp (dot, ".svg") == 0)
    return RSP_IMAGE_SVG;
  if (g_ascii_strcasecmp (dot, ".pdf") == 0)
    return RSP_IMAGE_PDF;
  return RSP_IMAGE_UNKNOWN;
}

gboolean
rsp_export_image (const char *path, double width, double height, RspDrawFunc draw, gpointer data, GError **error)
{
  RspImageFormat format = rsp_image_format_for (path);
  if (format == RSP_IMAGE_UNKNOWN)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("cannot write %s: %s"), path,
                   _("the name must end in .png, .svg or .pdf"));
      return FALSE;
    }
  cairo_surface_t *surface;
  switch (format)
    {
    case RSP_IMAGE_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case RSP_IMAGE_PDF:
      /* one page the size of the view, in points: vectors, text as text */
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) width, (int) height);
      break;
    }
  cairo_status_t status = cairo_surface_status (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    {
      cairo_t *cr = cairo_create (surface);
      draw (cr, width, height, data);
      cairo_destroy (cr);
      if (format == RSP_IMAGE_PNG)
        status = cairo_surface_write_to_png (surface, path);
      cairo_surface_finish (surface);
      if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status (surface);
    }
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot write %s: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  rsp_give_to_invoking_user (path);
  return TRUE;
}
