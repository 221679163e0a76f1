/* rsp-legend.c — see rsp-legend.h. */
#include "rsp-legend.h"

#include <glib/gi18n-lib.h>
#include <pango/pangocairo.h>
#include <stddef.h>

#define PAD 6.0
#define SWATCH 12.0
#define GAP 14.0 /* between entries */

typedef struct {
  size_t color;      /* offset of its RspColor in RspTheme */
  gboolean line;     /* drawn as a line (wake-up arrows), not a box */
  const char *label; /* N_() */
  const char *color_name; /* N_(), for screen readers */
} Entry;

static const Entry timeline_entries[] = {
  { offsetof (RspTheme, run), FALSE, N_ ("Running"), N_ ("red") },
  { offsetof (RspTheme, sleep), FALSE, N_ ("Sleeping"), N_ ("blue") },
  { offsetof (RspTheme, waiting), FALSE, N_ ("Waiting for a CPU"), N_ ("light blue") },
  { offsetof (RspTheme, disk_queue), FALSE, N_ ("Disk request queued"), N_ ("light green") },
  { offsetof (RspTheme, disk), FALSE, N_ ("Disk I/O"), N_ ("green") },
  { offsetof (RspTheme, network), FALSE, N_ ("Network"), N_ ("teal") },
  { offsetof (RspTheme, link), TRUE, N_ ("Wake-up"), N_ ("line") },
};

static const Entry flame_entries[] = {
  { offsetof (RspTheme, run), FALSE, N_ ("Running"), N_ ("red") },
  { offsetof (RspTheme, sleep), FALSE, N_ ("Sleeping"), N_ ("blue") },
  { offsetof (RspTheme, both), FALSE, N_ ("Running and sleeping"), N_ ("purple") },
  { offsetof (RspTheme, task), FALSE, N_ ("Task"), N_ ("grey") },
  { offsetof (RspTheme, disk), FALSE, N_ ("Disk I/O"), N_ ("green") },
  { offsetof (RspTheme, network), FALSE, N_ ("Network"), N_ ("teal") },
};

static const Entry diff_entries[] = {
  { offsetof (RspTheme, diff_more), FALSE, N_ ("More time than before"), N_ ("red") },
  { offsetof (RspTheme, diff_less), FALSE, N_ ("Less time than before"), N_ ("blue") },
  { offsetof (RspTheme, diff_same), FALSE, N_ ("Unchanged (widths: after)"), N_ ("grey") },
};

static const Entry diff_requests_entries[] = {
  { offsetof (RspTheme, diff_more), FALSE, N_ ("More time than in the other requests"), N_ ("red") },
  { offsetof (RspTheme, diff_less), FALSE, N_ ("Less time than in the other requests"), N_ ("blue") },
  { offsetof (RspTheme, diff_same), FALSE, N_ ("Unchanged (widths: the selected requests)"), N_ ("grey") },
};

static const Entry *
entries (RspLegendKind kind, guint *n)
{
  if (kind == RSP_LEGEND_DIFF_REQUESTS)
    {
      *n = G_N_ELEMENTS (diff_requests_entries);
      return diff_requests_entries;
    }
  if (kind == RSP_LEGEND_DIFF)
    {
      *n = G_N_ELEMENTS (diff_entries);
      return diff_entries;
    }
  if (kind == RSP_LEGEND_TIMELINE)
    {
      *n = G_N_ELEMENTS (timeline_entries);
      return timeline_entries;
    }
  *n = G_N_ELEMENTS (flame_entries);
  return flame_entries;
}

char *
rsp_legend_text (RspLegendKind kind)
{
  guint n;
  const Entry *e = entries (kind, &n);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    /* TRANSLATORS: a legend entry for screen readers, e.g. "Running: red" */
    g_string_append_printf (s, _("%s%s: %s"), i > 0 ? ", " : "", _(e[i].label), _(e[i].color_name));
  return g_string_free (s, FALSE);
}

static PangoLayout *
text_layout (const RspTheme *theme, cairo_t *cr)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (font, (theme->font_size - 1) * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  return layout;
}

/* Lays the entries out; draws them when DRAW.  Returns the height used. */
static double
flow (RspLegendKind kind, const RspTheme *theme, cairo_t *cr, double width, gboolean draw)
{
  guint n;
  const Entry *e = entries (kind, &n);
  PangoLayout *layout = text_layout (theme, cr);
  double x = PAD, y = PAD, line = SWATCH;
  for (guint i = 0; i < n; i++)
    {
      pango_layout_set_text (layout, _(e[i].label), -1);
      int tw, th;
      pango_layout_get_pixel_size (layout, &tw, &th);
      line = MAX (line, th);
      double w = SWATCH + 4 + tw;
      if (x > PAD && x + w > width - PAD)
        {
          x = PAD;
          y += line + 4;
        }
      if (draw)
        {
          const RspColor *c = (const RspColor *) ((const char *) theme + e[i].color);
          cairo_set_source_rgb (cr, c->r, c->g, c->b);
          double sy = y + (th - SWATCH) / 2;
          if (e[i].line)
            {
              cairo_set_line_width (cr, 2);
              cairo_move_to (cr, x, sy + SWATCH / 2);
              cairo_line_to (cr, x + SWATCH, sy + SWATCH / 2);
              cairo_stroke (cr);
            }
          else
            {
              cairo_rectangle (cr, x, sy, SWATCH, SWATCH);
              cairo_fill (cr);
            }
          cairo_set_source_rgb (cr, theme->foreground.r, theme->foreground.g, theme->foreground.b);
          cairo_move_to (cr, x + SWATCH + 4, y);
          pango_cairo_show_layout (cr, layout);
        }
      x += w + GAP;
    }
  g_object_unref (layout);
  return y + line + PAD;
}

double
rsp_legend_height (RspLegendKind kind, const RspTheme *theme, cairo_t *cr, double width)
{
  g_return_val_if_fail (theme != NULL && cr != NULL, 0);
  return flow (kind, theme, cr, width, FALSE);
}

void
rsp_legend_draw (RspLegendKind kind, const RspTheme *theme, cairo_t *cr, double width)
{
  g_return_if_fail (theme != NULL && cr != NULL);
  cairo_save (cr);
  flow (kind, theme, cr, width, TRUE);
  cairo_restore (cr);
}
