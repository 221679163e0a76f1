/* flame-shot — renders the flame views of a recording to PNG and times
 * their drawing (a developer tool; `rsp render` is the user's way).
 *
 *   flame-shot FILE [--comm NAME | --pid P] [--view flame|consolidated]
 *              [-o OUT.png] [--size 1600x900] [--scale S] [--dark]
 *              [--from MS --to MS] [--search TEXT] [--category ID]
 *              [--zoom FRAME,FRAME...] [--scroll PX] [--time]
 *
 * --time lays the view out at the whole range, 1/10, 1/100 and 1/1000 of
 * it, and reports the layout time and the draw time of a scroll across
 * each zoom (a redraw from the same layout), as the GTK widget will do. */
#include <math.h>
#include <stdio.h>

#include "rsp-consolidated-view.h"
#include "rsp-flame-view.h"

static gint
category_by_id (const char *id)
{
  for (gint c = 0; c < RSP_CAT_N; c++)
    if (g_strcmp0 (rsp_category_id (c), id) == 0)
      return c;
  return -1;
}

static void
time_flame (const RspAnalysis *a, const RspTheme *theme, int width, int height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  guint64 start = rsp_analysis_start (a), span = rsp_analysis_end (a) - start;
  g_autoptr (RspFlameLayout) previous = NULL;
  for (guint z = 1; z <= 1000; z *= 10)
    {
      RspFlameOptions o;
      rsp_flame_options_init (&o);
      guint64 w = span / z;
      o.t0 = start;
      o.t1 = start + w;
      gint64 t = g_get_monotonic_time ();
      /* the first layout from scratch, the others for a new zoom */
      RspFlameLayout *l = rsp_flame_view_layout_rezoom (previous, a, &o, theme, width);
      double layout_ms = (g_get_monotonic_time () - t) / 1e3;
      g_clear_pointer (&previous, rsp_flame_layout_free);
      previous = l;
      /* scroll across the range in 20 steps, and up through the bands */
      double worst = 0, sum = 0;
      guint n = 0;
      double content = rsp_flame_view_content_height (l);
      /* one warm-up frame: fonts, glyph caches */
      rsp_flame_view_draw_layout (l, &o, theme, cr, width, height);
      for (guint k = 0; k < 40; k++)
        {
          guint64 off = (span - w) / 20 * (k % 20);
          o.t0 = start + off;
          o.t1 = o.t0 + w;
          o.scroll_y = k < 20 ? 0 : MAX (content - height, 0) * (k - 20) / 19;
          g_assert (rsp_flame_view_layout_fits (l, a, &o, theme, width));
          t = g_get_monotonic_time ();
          rsp_flame_view_draw_layout (l, &o, theme, cr, width, height);
          cairo_surface_flush (surface);
          double ms = (g_get_monotonic_time () - t) / 1e3;
          worst = MAX (worst, ms);
          sum += ms;
          n++;
        }
      guint boxes = l->boxes->len;
      g_print ("flame zoom 1/%-4u layout %7.1f ms (%u boxes, %u rows)  draw mean %5.2f ms  worst %5.2f ms\n", z,
               layout_ms, boxes, rsp_flame_layout_n_rows (l), sum / n, worst);
    }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
time_consolidated (const RspAnalysis *a, const RspTheme *theme, int width, int height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  gint64 t = g_get_monotonic_time ();
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (a, &o, theme);
  double layout_ms = (g_get_monotonic_time () - t) / 1e3;
  double worst = 0, sum = 0;
  rsp_consolidated_view_draw_layout (l, &o, theme, cr, width, height);
  for (guint k = 0; k < 20; k++)
    {
      o.scroll_y = k * 40;
      t = g_get_monotonic_time ();
      rsp_consolidated_view_draw_layout (l, &o, theme, cr, width, height);
      cairo_surface_flush (surface);
      double ms = (g_get_monotonic_time () - t) / 1e3;
      worst = MAX (worst, ms);
      sum += ms;
    }
  g_print ("consolidated layout %7.1f ms (%u boxes)  draw mean %5.2f ms  worst %5.2f ms\n", layout_ms,
           l->boxes->len, sum / 20, worst);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int argc, char **argv)
{
  g_autofree char *comm = NULL, *view = NULL, *out = NULL, *size = NULL, *search = NULL, *category = NULL;
  g_autofree char *zoom = NULL;
  gint pid = 0;
  gdouble scale = 1, from_ms = -1, to_ms = -1, scroll = 0;
  gboolean dark = FALSE, timing = FALSE;
  g_auto (GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "comm", 'c', 0, G_OPTION_ARG_STRING, &comm, "Process of interest by name", "NAME" },
    { "pid", 'p', 0, G_OPTION_ARG_INT, &pid, "Process of interest", "PID" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view, "flame or consolidated", "VIEW" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "PNG to write", "OUT" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "WxH logical px", "SIZE" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &scale, "Device px per logical px", "S" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark theme", NULL },
    { "from", 0, 0, G_OPTION_ARG_DOUBLE, &from_ms, "Visible from, ms from the recording start", "MS" },
    { "to", 0, 0, G_OPTION_ARG_DOUBLE, &to_ms, "Visible to", "MS" },
    { "search", 0, 0, G_OPTION_ARG_STRING, &search, "Highlight names containing", "TEXT" },
    { "category", 0, 0, G_OPTION_ARG_STRING, &category, "Highlight a category id", "ID" },
    { "zoom", 0, 0, G_OPTION_ARG_STRING, &zoom, "Consolidated: zoom path, comma-separated", "PATH" },
    { "scroll", 0, 0, G_OPTION_ARG_DOUBLE, &scroll, "Scroll up by PX", "PX" },
    { "time", 0, 0, G_OPTION_ARG_NONE, &timing, "Time layout and drawing", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || files == NULL || files[0] == NULL)
    {
      g_printerr ("flame-shot: %s\n", error != NULL ? error->message : "give a recording");
      return 2;
    }
  int width = 1600, height = 900;
  if (size != NULL && sscanf (size, "%dx%d", &width, &height) != 2)
    return 2;

  gint64 t = g_get_monotonic_time ();
  g_autoptr (RspModel) model = rsp_model_load (files[0], NULL, NULL, NULL, &error);
  if (model == NULL)
    {
      g_printerr ("flame-shot: %s\n", error->message);
      return 1;
    }
  if (comm != NULL)
    {
      RspIdx task = rsp_model_find_process (model, 0, comm);
      if (task == RSP_NONE)
        return 1;
      pid = rsp_model_task (model, task)->pid;
    }
  if (pid <= 0 && rsp_model_meta (model) != NULL)
    pid = rsp_model_meta (model)->target_pid;
  g_autoptr (RspAnalysis) a = rsp_analysis_new (model, pid, 0, G_MAXUINT64, &error);
  if (a == NULL)
    {
      g_printerr ("flame-shot: %s\n", error->message);
      return 1;
    }
  g_printerr ("loaded and analysed in %.0f ms\n", (g_get_monotonic_time () - t) / 1e3);

  RspTheme theme;
  rsp_theme_init (&theme, dark, scale);
  if (timing)
    {
      time_flame (a, &theme, width, height);
      time_consolidated (a, &theme, width, height);
      return 0;
    }

  cairo_surface_t *surface
      = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale), (int) ceil (height * scale));
  cairo_surface_set_device_scale (surface, scale, scale);
  cairo_t *cr = cairo_create (surface);
  if (g_strcmp0 (view, "consolidated") == 0)
    {
      RspConsolidatedOptions o;
      rsp_consolidated_options_init (&o);
      o.search = search;
      o.highlight_category = category != NULL ? category_by_id (category) : -1;
      o.scroll_y = scroll;
      g_auto (GStrv) path = zoom != NULL ? g_strsplit (zoom, ",", -1) : NULL;
      o.zoom_path = (const char *const *) path;
      rsp_consolidated_view_draw (a, &o, &theme, cr, width, height);
    }
  else
    {
      RspFlameOptions o;
      rsp_flame_options_init (&o);
      guint64 origin = rsp_model_start_time (model);
      if (from_ms >= 0 && to_ms > from_ms)
        {
          o.t0 = origin + (guint64) (from_ms * 1e6);
          o.t1 = origin + (guint64) (to_ms * 1e6);
        }
      o.search = search;
      o.highlight_category = category != NULL ? category_by_id (category) : -1;
      o.scroll_y = scroll;
      rsp_flame_view_draw (a, &o, &theme, cr, width, height);
    }
  cairo_destroy (cr);
  if (out != NULL)
    cairo_surface_write_to_png (surface, out);
  cairo_surface_destroy (surface);
  return 0;
}
