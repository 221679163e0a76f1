/* rsp-cmd-render.c — `rsp render FILE --view timeline|flame|consolidated
 * [--pid P | --comm NAME] [--size WxH] [--dark] [--from MS --to MS]
 * [--show-sleeps] [--all-tasks] -o OUT.png|OUT.svg|OUT.pdf`: draws a view headless
 * through the same renderers the GUI uses (README screenshots, CI
 * artefacts, bug reports). */
#include <glib/gi18n.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rsp-analysis.h"
#include "rsp-cli-options.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-consolidated-view.h"
#include "rsp-export.h"
#include "rsp-flame-view.h"
#include "rsp-legend.h"
#include "rsp-theme.h"
#include "rsp-time-axis.h"
#include "rsp-timeline-view.h"

#define DEFAULT_WIDTH 1600
#define DEFAULT_HEIGHT 900
#define MAX_SIDE 16384

typedef enum {
  VIEW_TIMELINE,
  VIEW_FLAME,
  VIEW_CONSOLIDATED,
} View;

static gboolean
parse_size (const char *text, int *width, int *height)
{
  char *end = NULL;
  errno = 0;
  gint64 w = g_ascii_strtoll (text, &end, 10);
  if (errno != 0 || end == text || (*end != 'x' && *end != 'X'))
    return FALSE;
  const char *h_text = end + 1;
  gint64 h = g_ascii_strtoll (h_text, &end, 10);
  if (errno != 0 || end == h_text || *end != '\0')
    return FALSE;
  if (w < 200 || h < 100 || w > MAX_SIDE || h > MAX_SIDE)
    return FALSE;
  *width = (int) w;
  *height = (int) h;
  return TRUE;
}

static const char *
basename_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash != NULL ? slash + 1 : path;
}

typedef struct {
  const char *label;
  RspColor color;
  gboolean line; /* a link, drawn as a short vertical line */
} LegendItem;

/* Right-aligned swatches on the title line; returns the width they took. */
static double
draw_legend (cairo_t *cr, PangoLayout *pl, const RspTheme *theme, double width, double height,
             const LegendItem *items, guint n)
{
  double x = width - 8;
  for (guint i = n; i > 0; i--)
    {
      const LegendItem *item = &items[i - 1];
      pango_layout_set_text (pl, item->label, -1);
      int w, h;
      pango_layout_get_pixel_size (pl, &w, &h);
      x -= w;
      cairo_set_source_rgb (cr, theme->muted.r, theme->muted.g, theme->muted.b);
      cairo_move_to (cr, x, (height - h) / 2.0);
      pango_cairo_show_layout (cr, pl);
      x -= 5 + 12;
      cairo_set_source_rgb (cr, item->color.r, item->color.g, item->color.b);
      if (item->line)
        {
          cairo_set_line_width (cr, 1.0);
          cairo_move_to (cr, x + 6.5, height / 2.0 - 6);
          cairo_line_to (cr, x + 6.5, height / 2.0 + 6);
          cairo_stroke (cr);
        }
      else
        {
          cairo_rectangle (cr, x, height / 2.0 - 6, 12, 12);
          cairo_fill (cr);
        }
      x -= 14;
    }
  return width - x;
}

/* One line above the view: what is drawn, for whom, and how well the time
 * is explained; for the timeline, what its colours mean. */
static double
draw_title (cairo_t *cr, const RspTheme *theme, double width, const char *text, const RspTimelineLayout *timeline)
{
  double height = ceil (theme->font_size * 2.6);
  cairo_set_source_rgb (cr, theme->background.r, theme->background.g, theme->background.b);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (font, (theme->font_size + 1) * PANGO_SCALE);
  pango_layout_set_font_description (pl, font);
  pango_font_description_free (font);
  double legend_width = 0;
  if (timeline != NULL && width >= 1000)
    {
      /* only what the picture can contain */
      const RspTimelineOptions *options = rsp_timeline_layout_options (timeline);
      gboolean disk = FALSE, network = FALSE;
      for (guint r = rsp_timeline_layout_n_task_rows (timeline); r < rsp_timeline_layout_n_rows (timeline); r++)
        {
          disk |= rsp_timeline_layout_row (timeline, r)->kind == RSP_TIMELINE_ROW_DISK;
          network |= rsp_timeline_layout_row (timeline, r)->kind == RSP_TIMELINE_ROW_NETWORK;
        }
      LegendItem items[6];
      guint n = 0;
      items[n++] = (LegendItem) { _("running"), theme->run, FALSE };
      if (options->show_sleeps)
        {
          items[n++] = (LegendItem) { _("blocked"), theme->sleep, FALSE };
          items[n++] = (LegendItem) { _("waiting for a CPU"), theme->waiting, FALSE };
        }
      if (disk)
        items[n++] = (LegendItem) { _("disk I/O"), theme->disk, FALSE };
      if (network)
        items[n++] = (LegendItem) { _("network wait"), theme->network, FALSE };
      if (options->show_links)
        items[n++] = (LegendItem) { _("wake-up"), theme->link, TRUE };
      legend_width = draw_legend (cr, pl, theme, width, height, items, n) + 24;
    }
  pango_layout_set_markup (pl, text, -1);
  pango_layout_set_width (pl, (int) (MAX (40.0, width - 16 - legend_width) * PANGO_SCALE));
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  int w, h;
  pango_layout_get_pixel_size (pl, &w, &h);
  cairo_set_source_rgb (cr, theme->foreground.r, theme->foreground.g, theme->foreground.b);
  cairo_move_to (cr, 8, (height - h) / 2.0);
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
  cairo_set_source_rgb (cr, theme->grid.r, theme->grid.g, theme->grid.b);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, 0, height - 0.5);
  cairo_line_to (cr, width, height - 0.5);
  cairo_stroke (cr);
  return height;
}

static char *
title_text (const char *path, const RspModel *model, const RspAnalysis *analysis, View view, guint64 from,
            guint64 to, const RspTimelineLayout *timeline)
{
  GString *s = g_string_new (NULL);
  g_autofree char *file = g_markup_escape_text (basename_of (path), -1);
  static const char *const names[] = { N_ ("Process running view"), N_ ("Flame view"), N_ ("Consolidated flame view") };
  g_string_append_printf (s, "<b>%s</b>  ·  %s", _(names[view]), file);
  if (analysis != NULL)
    {
      RspIdx target = rsp_analysis_target_task (analysis);
      const char *comm = target != RSP_NONE ? rsp_model_task (model, target)->comm : NULL;
      g_autofree char *comm_text = g_markup_escape_text (comm != NULL ? comm : "?", -1);
      g_autofree char *wall = rsp_format_duration (rsp_analysis_wall_ns (analysis));
      g_string_append_printf (s, _("  ·  %s (pid %d)  ·  wall %s  ·  %.1f%% accounted"), comm_text,
                              rsp_analysis_pid (analysis), wall, rsp_analysis_accounted_percent (analysis));
      if (rsp_analysis_total_ns (analysis) > rsp_analysis_wall_ns (analysis))
        {
          /* the flame views are as wide as the total: say why it exceeds the wall time */
          g_autofree char *total = rsp_format_duration (rsp_analysis_total_ns (analysis));
          g_string_append_printf (s, _("  ·  total %s (threads side by side)"), total);
        }
    }
  guint64 origin = rsp_model_start_time (model);
  guint64 end = rsp_model_end_time (model);
  if (from != 0 || to != 0)
    {
      guint64 a = from != 0 ? from : origin, b = to != 0 ? to : end;
      g_autofree char *len = rsp_format_duration (b > a ? b - a : 0);
      g_string_append_printf (s, "  ·  %.1f–%.1f ms (%s)", (a - origin) / 1e6, (b - origin) / 1e6, len);
    }
  else
    {
      g_autofree char *len = rsp_format_duration (end > origin ? end - origin : 0);
      g_string_append_printf (s, _("  ·  %s recorded"), len);
    }
  if (timeline != NULL && rsp_timeline_layout_n_hidden (timeline) > 0)
    {
      guint hidden = rsp_timeline_layout_n_hidden (timeline);
      g_string_append_printf (s, ngettext ("  ·  %u task with little CPU hidden", "  ·  %u tasks with little CPU hidden", hidden),
                              hidden);
    }
  return g_string_free (s, FALSE);
}

/* The command line, checked. */
typedef struct {
  char *path, *output;
  View view;
  RspCliTarget target;
  int width, height;
  gboolean dark, show_sleeps, all_tasks, bottom_up;
  char *diff_path;  /* --diff A.rsp: the recording before */
} RenderArgs;

static void
render_args_clear (RenderArgs *r)
{
  g_free (r->path);
  g_free (r->output);
  g_free (r->diff_path);
  rsp_cli_target_clear (&r->target);
}

/* Parses and checks the options; returns 0, or the exit status after
 * saying what is wrong. */
static int
parse_args (int argc, char **argv, RenderArgs *r)
{
  g_autofree char *view_name = NULL, *size = NULL;
  const GOptionEntry entries[] = {
    { "view", 'v', 0, G_OPTION_ARG_STRING, &view_name, N_ ("timeline, flame or consolidated (default: timeline)"), N_ ("VIEW") },
    { "size", 's', 0, G_OPTION_ARG_STRING, &size, N_ ("Image size in pixels (default 1600x900)"), N_ ("WxH") },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &r->dark, N_ ("Dark theme"), NULL },
    { "bottom-up", 0, 0, G_OPTION_ARG_NONE, &r->bottom_up, N_ ("Consolidated: inverted, each frame's own time at the bottom, its callers above it"), NULL },
    { "show-sleeps", 0, 0, G_OPTION_ARG_NONE, &r->show_sleeps, N_ ("Timeline: draw sleeps, labelled with their frame"), NULL },
    { "all-tasks", 0, 0, G_OPTION_ARG_NONE, &r->all_tasks, N_ ("Timeline: keep tasks with negligible CPU time"), NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &r->output, N_ ("The image to write: .png, .svg or .pdf"), N_ ("OUT") },
    { "diff", 0, 0, G_OPTION_ARG_FILENAME, &r->diff_path,
      N_ ("Consolidated: a differential flame graph against the recording BEFORE (widths from FILE, red for "
          "more time, blue for less)"),
      N_ ("BEFORE") },
    { NULL },
  };
  const RspCliParser parser = {
    .command = "render",
    .parameters = N_ ("-o OUT.png|OUT.svg - draw a view of a recording"),
    .usage = N_ ("rsp render FILE -o OUT.png"),
    .entries = entries,
    .target = &r->target,
  };
  int status;
  r->path = rsp_cli_parse (&parser, argc, argv, &status);
  if (r->path == NULL)
    return status;

  if (view_name == NULL || g_str_equal (view_name, "timeline"))
    r->view = VIEW_TIMELINE;
  else if (g_str_equal (view_name, "flame"))
    r->view = VIEW_FLAME;
  else if (g_str_equal (view_name, "consolidated"))
    r->view = VIEW_CONSOLIDATED;
  else
    {
      g_printerr (_("rsp render: unknown view '%s' (timeline, flame or consolidated)\n"), view_name);
      return 2;
    }
  r->width = DEFAULT_WIDTH;
  r->height = DEFAULT_HEIGHT;
  if (size != NULL && !parse_size (size, &r->width, &r->height))
    {
      g_printerr (_("rsp render: bad size '%s': give WIDTHxHEIGHT in pixels, from 200x100 to %dx%d\n"), size, MAX_SIDE,
                  MAX_SIDE);
      return 2;
    }
  if (r->output == NULL)
    {
      g_printerr (_("rsp render: name the image to write with -o OUT.png or -o OUT.svg\n"));
      return 2;
    }
  if (r->diff_path != NULL && r->view != VIEW_CONSOLIDATED)
    {
      g_printerr (_("rsp render: --diff draws the consolidated view: add --view consolidated\n"));
      return 2;
    }
  if (rsp_image_format_for (r->output) == RSP_IMAGE_UNKNOWN)
    {
      g_printerr (_("rsp render: %s: the output must end in .png, .svg or .pdf\n"), r->output);
      return 2;
    }
  return 0;
}

/* Fails on an unwritable output before the (possibly long) load. */
static gboolean
output_writable (const char *output)
{
  gboolean existed = g_file_test (output, G_FILE_TEST_EXISTS);
  FILE *probe = fopen (output, "ab");
  if (probe == NULL)
    {
      g_printerr (_("rsp render: cannot write %s: %s\n"), output, g_strerror (errno));
      return FALSE;
    }
  fclose (probe);
  if (!existed)
    g_unlink (output);
  return TRUE;
}

/* Draws the chosen view into CR, WIDTH x HEIGHT, under its title. */
static void
draw_view (const RenderArgs *r, RspModel *model, const RspAnalysis *analysis, const RspAnalysis *before, gint pid,
           guint64 from, guint64 to, const RspTheme *theme, cairo_t *cr)
{
  g_autoptr (RspTimelineLayout) timeline = NULL;
  if (r->view == VIEW_TIMELINE)
    {
      RspTimelineOptions options;
      rsp_timeline_options_init (&options);
      options.pid = pid > 0 ? pid : 0;
      options.from = from;
      options.to = to;
      options.show_sleeps = r->show_sleeps;
      /* a picture cannot scroll: keep the tasks that matter on it */
      options.summary = !r->all_tasks;
      timeline = rsp_timeline_layout_new (model, &options);
    }

  g_autofree char *title = title_text (r->path, model, analysis, r->view, from, to, timeline);
  if (before != NULL)
    {
      /* a differential flame says against what */
      g_autofree char *base = g_markup_escape_text (basename_of (r->diff_path), -1);
      g_autofree char *plain = g_steal_pointer (&title);
      title = g_strdup_printf (_("%s  ·  against %s"), plain, base);
    }
  double top = draw_title (cr, theme, r->width, title, timeline);
  cairo_translate (cr, 0, top);
  RspLegendKind legend = r->view == VIEW_TIMELINE ? RSP_LEGEND_TIMELINE
                         : before != NULL        ? RSP_LEGEND_DIFF
                                                 : RSP_LEGEND_FLAME;
  double legend_height = rsp_legend_height (legend, theme, cr, r->width);
  double view_height = MAX (r->height - top - legend_height, 1);
  switch (r->view)
    {
    case VIEW_TIMELINE:
      {
        RspTimelineViewport vp;
        rsp_timeline_viewport_init (&vp, timeline, r->width, view_height);
        vp.row_height = rsp_timeline_view_fit_row_height (timeline, theme, view_height);
        rsp_timeline_view_draw (timeline, &vp, theme, cr);
        break;
      }
    case VIEW_FLAME:
      {
        RspFlameOptions options;
        rsp_flame_options_init (&options);
        options.t0 = from;
        options.t1 = to;
        if (from != 0 && to == 0)
          options.t1 = rsp_analysis_end (analysis);
        if (to != 0 && from == 0)
          options.t0 = rsp_analysis_start (analysis);
        rsp_flame_view_draw (analysis, &options, theme, cr, r->width, view_height);
        break;
      }
    case VIEW_CONSOLIDATED:
      {
        RspConsolidatedOptions options;
        rsp_consolidated_options_init (&options);
        options.inverted = r->bottom_up;
        if (before != NULL)
          rsp_consolidated_view_draw_diff (before, analysis, &options, theme, cr, r->width, view_height);
        else
          rsp_consolidated_view_draw (analysis, &options, theme, cr, r->width, view_height);
        break;
      }
    }
  /* the colours' legend under the view */
  cairo_translate (cr, 0, view_height);
  cairo_set_source_rgb (cr, theme->background.r, theme->background.g, theme->background.b);
  cairo_rectangle (cr, 0, 0, r->width, legend_height);
  cairo_fill (cr);
  rsp_legend_draw (legend, theme, cr, r->width);
}

typedef struct {
  const RenderArgs *r;
  RspModel *model;
  const RspAnalysis *analysis;
  const RspAnalysis *before; /* --diff */
  gint pid;
  guint64 from, to;
  RspTheme theme;
} Picture;

static void
draw_picture (cairo_t *cr, double width, double height, gpointer data)
{
  (void) width;
  (void) height;
  Picture *p = data;
  draw_view (p->r, p->model, p->analysis, p->before, p->pid, p->from, p->to, &p->theme, cr);
}

/* The command once its arguments are checked: load, pick the process,
 * analyse, draw, write. */
static int
render (const RenderArgs *r)
{
  if (!output_writable (r->output))
    return 1;
  g_autoptr (RspModel) model = rsp_cli_load (r->path);
  if (model == NULL)
    return 1;

  /* the process of interest, as every analysing command picks it */
  gint pid = rsp_cli_pick_target (model, r->path, r->target.pid, r->target.comm, r->view != VIEW_TIMELINE);
  if (pid < 0)
    return 1;

  guint64 from, to;
  rsp_cli_target_range (&r->target, model, &from, &to);
  if (to == G_MAXUINT64)
    to = 0; /* the views' "to the end" */
  g_autoptr (RspAnalysis) analysis = NULL;
  if (pid > 0)
    {
      g_autoptr (GError) error = NULL;
      analysis = rsp_analysis_new (model, pid, from, to != 0 ? to : G_MAXUINT64, &error);
      if (analysis == NULL && r->view != VIEW_TIMELINE)
        {
          g_printerr ("rsp: %s: %s\n", r->path, error->message);
          rsp_cli_print_candidates (model);
          return 1;
        }
    }

  /* --diff: the same process in the recording before, as rsp diff matches it */
  g_autoptr (RspModel) before_model = NULL;
  g_autoptr (RspAnalysis) before = NULL;
  if (r->diff_path != NULL)
    {
      before_model = rsp_cli_load (r->diff_path);
      if (before_model == NULL)
        return 1;
      gint32 before_pid = rsp_cli_pick_matching (model, pid, before_model, r->diff_path, &r->target, "render");
      if (before_pid <= 0)
        return 1;
      g_autoptr (GError) error = NULL;
      guint64 before_from, before_to;
      rsp_cli_target_range (&r->target, before_model, &before_from, &before_to);
      before = rsp_analysis_new (before_model, before_pid, before_from, before_to, &error);
      if (before == NULL)
        {
          g_printerr ("rsp: %s: %s\n", r->diff_path, error->message);
          return 1;
        }
    }

  Picture picture = { r, model, analysis, before, pid, from, to };
  rsp_theme_init (&picture.theme, r->dark, 1.0);
  g_autoptr (GError) error = NULL;
  if (!rsp_export_image (r->output, r->width, r->height, draw_picture, &picture, &error))
    {
      g_printerr ("rsp render: %s\n", error->message);
      return 1;
    }
  return 0;
}

int
rsp_cmd_render (int argc, char **argv)
{
  RenderArgs r = { 0 };
  int status = parse_args (argc, argv, &r);
  if (status == 0)
    status = render (&r);
  render_args_clear (&r);
  return status;
}
