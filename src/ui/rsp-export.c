/* rsp-export.c — a drawing written to PNG, SVG or PDF. */
#include "rsp-export.h"

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

/* Under sudo the picture belongs to the user who asked for it: a root-owned
 * file in their directory is one they cannot replace.  A failure is only a
 * warning, the picture is written. */
static void
give_to_invoking_user (const char *path)
{
  const char *uid_text = g_getenv ("SUDO_UID"), *gid_text = g_getenv ("SUDO_GID");
  if (geteuid () != 0 || uid_text == NULL || gid_text == NULL)
    return;
  guint64 uid, gid;
  if (!g_ascii_string_to_unsigned (uid_text, 10, 0, G_MAXUINT32, &uid, NULL)
      || !g_ascii_string_to_unsigned (gid_text, 10, 0, G_MAXUINT32, &gid, NULL))
    return;
  if (chown (path, (uid_t) uid, (gid_t) gid) != 0)
    g_printerr (_("rsp: warning: cannot give %s to uid %s: %s\n"), path, uid_text, g_strerror (errno));
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
  give_to_invoking_user (path);
  return TRUE;
}
