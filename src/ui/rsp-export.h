/* rsp-export.h — writing a drawing to an image file, for `rsp render` and
 * the GUI's Export: PNG, SVG or PDF by the file's suffix.  Cairo only, no GTK. */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RSP_IMAGE_UNKNOWN,
  RSP_IMAGE_PNG,
  RSP_IMAGE_SVG,
  RSP_IMAGE_PDF,
} RspImageFormat;

/* The format PATH's suffix names (.png, .svg or .pdf, any case). */
RspImageFormat rsp_image_format_for (const char *path);

/* Paints the picture into CR, WIDTH x HEIGHT logical px. */
typedef void (*RspDrawFunc) (cairo_t *cr, double width, double height, gpointer data);

/* Draws through DRAW into a WIDTH x HEIGHT image at PATH, PNG, SVG or PDF by
 * its suffix.  Run as root under sudo, the file is given to the user who
 * asked for it.  FALSE with ERROR set ("cannot write PATH: why") when the
 * suffix is neither or the file cannot be written. */
gboolean rsp_export_image (const char *path, double width, double height, RspDrawFunc draw, gpointer data,
                           GError **error);

G_END_DECLS
