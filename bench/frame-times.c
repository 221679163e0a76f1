/* frame-times.c — how long one frame of each view takes to draw, at several
 * zoom levels, into a 1600x900 image surface (the GUI's budget is 16 ms).
 *
 *   frame-times [FILE] [--pid P | --comm NAME] [--frames N] [--sleeps] [--timeline-only]
 *               [--requests SPEC]
 *
 * FILE defaults to /var/tmp/rsp-bench/bench.data (bench/make-recording.sh)
 * with --comm make.  Prints a Markdown table: per view and zoom (whole range,
 * 1/10, 1/100, 1/1000, centred), the median and worst frame in wall-clock
 * time and the worst in CPU time.  The timeline's layout and the analysis
 * are built once, outside the timing, as the GUI does; their build times are
 * printed too.  With --requests (runs, tcp:PORT, probe:FUNCTION) it times the
 * requests view instead: making the requests (every request analysed, as
 * the viewer does), the trees of a selection (the slow tail; all of them)
 * and of the differential flame against the rest, which the view builds on
 * each change of the selection, and one frame of the histogram and of each
 * tree.  Exits 77 (skip) when the recording is missing or unreadable. */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rsp-analysis.h"
#include "rsp-consolidated-view.h"
#include "rsp-flame-view.h"
#include "rsp-histogram-view.h"
#include "rsp-requests.h"
#include "rsp-theme.h"
#include "rsp-time-axis.h"
#include "rsp-timeline-view.h"

#define DEFAULT_FILE "/var/tmp/rsp-bench/bench.data"
#define WIDTH 1600
#define HEIGHT 900
#define BUDGET_MS 16.0

typedef enum {
  VIEW_TIMELINE,
  VIEW_FLAME,
  VIEW_CONSOLIDATED,
  VIEW_HISTOGRAM,
  VIEW_GROUP,
} View;

typedef struct {
  View view;
  const RspTimelineLayout *timeline;
  const RspAnalysis *analysis;
  const RspTheme *theme;
  guint64 t0, t1;
  double scroll_y;
  RspFlameLayout *layout; /* flame views: laid out once per zoom, like the widgets do */
  const RspRequests *requests;   /* VIEW_HISTOGRAM */
  RspFlameLayout *group;         /* VIEW_GROUP: a group's tree, made beforehand */
  const float *delta;            /* ... and its colours against the rest, or NULL */
} Job;

static void
draw_once (Job *job, cairo_t *cr)
{
  switch (job->view)
    {
    case VIEW_HISTOGRAM:
      {
        RspHistogramOptions o;
        rsp_histogram_options_init (&o);
        rsp_histogram_view_draw (job->requests, &o, job->theme, cr, WIDTH, 200);
        break;
      }
    case VIEW_GROUP:
      {
        RspConsolidatedOptions o;
        rsp_consolidated_options_init (&o);
        rsp_consolidated_view_draw_layout_delta (job->group, job->delta, &o, job->theme, cr, WIDTH, HEIGHT);
        break;
      }
    case VIEW_TIMELINE:
      {
        RspTimelineViewport vp;
        rsp_timeline_viewport_init (&vp, job->timeline, WIDTH, HEIGHT);
        vp.t0 = job->t0;
        vp.t1 = job->t1;
        vp.scroll_y = job->scroll_y;
        rsp_timeline_view_draw (job->timeline, &vp, job->theme, cr);
        break;
      }
    case VIEW_FLAME:
      {
        RspFlameOptions options;
        rsp_flame_options_init (&options);
        options.t0 = job->t0;
        options.t1 = job->t1;
        options.scroll_y = job->scroll_y;
        if (job->layout == NULL || !rsp_flame_view_layout_fits (job->layout, job->analysis, &options, job->theme, WIDTH))
          {
            g_clear_pointer (&job->layout, rsp_flame_layout_free);
            job->layout = rsp_flame_view_layout (job->analysis, &options, job->theme, WIDTH);
          }
        rsp_flame_view_draw_layout (job->layout, &options, job->theme, cr, WIDTH, HEIGHT);
        break;
      }
    case VIEW_CONSOLIDATED:
      {
        RspConsolidatedOptions options;
        rsp_consolidated_options_init (&options);
        if (job->layout == NULL)
          job->layout = rsp_consolidated_view_layout (job->analysis, &options, job->theme);
        rsp_consolidated_view_draw_layout (job->layout, &options, job->theme, cr, WIDTH, HEIGHT);
        break;
      }
    }
}

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static double
thread_cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Draws JOB FRAMES times (after one warm-up frame: fonts, glyph caches) and
 * returns the median and worst frame in ms of wall-clock time, and the
 * worst in CPU time of this thread: on a busy machine the wall-clock worst
 * includes being preempted by other processes, which is not the view's. */
static void
time_job (Job *job, guint frames, double *median, double *worst, double *worst_cpu)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  /* the warm-up frame also lays the flame views out (once per zoom level) */
  draw_once (job, cr);
  g_autofree double *ms = g_new (double, frames);
  *worst_cpu = 0;
  for (guint i = 0; i < frames; i++)
    {
      double cpu = thread_cpu_ms ();
      gint64 start = g_get_monotonic_time ();
      draw_once (job, cr);
      cairo_surface_flush (surface);
      ms[i] = (g_get_monotonic_time () - start) / 1000.0;
      *worst_cpu = MAX (*worst_cpu, thread_cpu_ms () - cpu);
    }
  qsort (ms, frames, sizeof *ms, compare_double);
  *median = ms[frames / 2];
  *worst = ms[frames - 1];
  g_clear_pointer (&job->layout, rsp_flame_layout_free);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static double
elapsed_ms (gint64 since)
{
  return (g_get_monotonic_time () - since) / 1000.0;
}

static void
print_row (const char *name, Job *job, guint frames, gboolean *over)
{
  double median, worst, worst_cpu;
  time_job (job, frames, &median, &worst, &worst_cpu);
  gboolean ok = median < BUDGET_MS && worst_cpu < BUDGET_MS;
  *over |= !ok;
  printf ("| %s | %.2f | %.2f | %.2f | %s |\n", name, median, worst, worst_cpu, ok ? "yes" : "**no**");
  fflush (stdout);
}

/* The requests view: what it costs to make and to change its selection,
 * and its frames. */
static int
time_requests (RspModel *model, const char *path, const char *spec, double load_ms, const RspTheme *theme,
               guint frames)
{
  g_autoptr (GError) error = NULL;
  gint64 t = g_get_monotonic_time ();
  g_autoptr (RspRequests) r = rsp_requests_new_full (model, spec, 0, TRUE, &error);
  if (r == NULL)
    {
      g_printerr ("frame-times: %s: %s\n", path, error->message);
      return 1;
    }
  double requests_ms = elapsed_ms (t);
  g_autoptr (GPtrArray) slow = g_ptr_array_new ();
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  for (guint i = 0; i < rsp_requests_n (r); i++)
    {
      gpointer a = (gpointer) rsp_requests_analysis (r, i);
      g_ptr_array_add (rsp_requests_get (r, i)->slow ? slow : rest, a);
      g_ptr_array_add (all, a);
    }
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  printf ("# The requests view: %s, --requests %s\n\n", path, spec);
  printf ("load %.0f ms; %u requests analysed in %.0f ms (%u slow)\n\n", load_ms, rsp_requests_n (r), requests_ms,
          slow->len);
  printf ("| a change of the selection builds | ms |\n|---|---:|\n");
  t = g_get_monotonic_time ();
  g_autoptr (RspFlameLayout) all_tree
      = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) all->pdata, all->len, &o, theme);
  printf ("| the tree of all %u requests | %.1f |\n", all->len, elapsed_ms (t));
  g_autoptr (RspFlameLayout) slow_tree = NULL;
  g_autofree float *delta = NULL;
  if (slow->len > 0 && rest->len > 0)
    {
      t = g_get_monotonic_time ();
      slow_tree = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) slow->pdata, slow->len, &o, theme);
      printf ("| the tree of the %u slow ones | %.1f |\n", slow->len, elapsed_ms (t));
      t = g_get_monotonic_time ();
      g_autoptr (RspFlameLayout) rest_tree
          = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) rest->pdata, rest->len, &o, theme);
      delta = rsp_consolidated_view_diff_scaled (rest_tree, 1.0 / rest->len, slow_tree, 1.0 / slow->len);
      printf ("| ... against the %u others (their tree and the colours) | %.1f |\n", rest->len, elapsed_ms (t));
    }
  printf ("\n%dx%d image surface (the histogram %dx200), %u frames each.\n\n", WIDTH, HEIGHT, WIDTH, frames);
  printf ("| frame | median ms | max ms | max CPU ms | < %.0f ms |\n|---|---:|---:|---:|---|\n", BUDGET_MS);
  gboolean over = FALSE;
  Job h = { .view = VIEW_HISTOGRAM, .theme = theme, .requests = r };
  print_row ("histogram", &h, frames, &over);
  Job g = { .view = VIEW_GROUP, .theme = theme, .group = all_tree };
  print_row ("consolidated flame of all requests", &g, frames, &over);
  if (slow_tree != NULL)
    {
      Job d = { .view = VIEW_GROUP, .theme = theme, .group = slow_tree, .delta = delta };
      print_row ("the slow ones against the others", &d, frames, &over);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  gint pid = 0, frames = 20;
  g_autofree char *comm = NULL;
  gboolean sleeps = FALSE, timeline_only = FALSE;
  g_autofree char *requests_spec = NULL;
  g_auto (GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "pid", 'p', 0, G_OPTION_ARG_INT, &pid, "The process of interest", "PID" },
    { "comm", 'c', 0, G_OPTION_ARG_STRING, &comm, "The process of interest by name (default for the bench recording: make)", "NAME" },
    { "frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames per measurement (default 20)", "N" },
    { "sleeps", 0, 0, G_OPTION_ARG_NONE, &sleeps, "Timeline: show sleeps too", NULL },
    { "timeline-only", 0, 0, G_OPTION_ARG_NONE, &timeline_only, "Only the timeline", NULL },
    { "requests", 0, 0, G_OPTION_ARG_STRING, &requests_spec, "Time the requests view of SPEC instead", "SPEC" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[FILE] - time one frame of each view");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("frame-times: %s\n", error->message);
      return 2;
    }
  const char *path = files != NULL && files[0] != NULL ? files[0] : DEFAULT_FILE;
  if (files == NULL && pid <= 0 && comm == NULL)
    comm = g_strdup ("make");
  if (frames < 1)
    frames = 1;
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || g_access (path, R_OK) != 0)
    {
      g_printerr ("frame-times: %s is missing or unreadable (run bench/make-recording.sh as root); skipping\n",
                  path);
      return 77;
    }

  gint64 t = g_get_monotonic_time ();
  g_autoptr (RspModel) model = rsp_model_load (path, NULL, NULL, NULL, &error);
  if (model == NULL)
    {
      g_printerr ("frame-times: %s: %s\n", path, error->message);
      return 1;
    }
  double load_ms = (g_get_monotonic_time () - t) / 1000.0;
  if (pid <= 0 && comm != NULL)
    {
      RspIdx task = rsp_model_find_process (model, 0, comm);
      if (task != RSP_NONE)
        pid = rsp_model_task (model, task)->pid;
    }
  if (pid <= 0 && rsp_model_meta (model) != NULL && rsp_model_meta (model)->target_pid > 0)
    pid = rsp_model_meta (model)->target_pid;

  RspTheme theme;
  rsp_theme_init (&theme, FALSE, 1.0);
  if (requests_spec != NULL)
    return time_requests (model, path, requests_spec, load_ms, &theme, (guint) frames);

  /* The analysis of the process of interest: the flame views', and the
   * timeline's order (the processes on its control paths first), as the
   * GUI makes it beside the UI once a recording is shown. */
  g_autoptr (RspAnalysis) analysis = NULL;
  g_autoptr (GArray) path_pids = NULL;
  double analysis_ms = 0;
  if (pid > 0)
    {
      t = g_get_monotonic_time ();
      analysis = rsp_analysis_new (model, pid, 0, G_MAXUINT64, &error);
      analysis_ms = (g_get_monotonic_time () - t) / 1000.0;
      if (analysis == NULL)
        g_printerr ("frame-times: no analysis for pid %d: %s\n", pid, error->message);
      else
        path_pids = rsp_analysis_processes (analysis);
    }

  /* The GUI's default: every task, a multi-threaded process's threads in
   * one row (but the process of interest's), the control paths' processes
   * first, scrolled to the top; then every thread in a row of its own,
   * and the summary. */
  RspTimelineOptions options;
  rsp_timeline_options_init (&options);
  options.pid = pid;
  options.show_sleeps = sleeps;
  options.fold_threads = TRUE;
  if (path_pids != NULL)
    {
      options.path_pids = (const gint32 *) path_pids->data;
      options.n_path_pids = path_pids->len;
    }
  t = g_get_monotonic_time ();
  g_autoptr (RspTimelineLayout) all = rsp_timeline_layout_new (model, &options);
  double layout_ms = (g_get_monotonic_time () - t) / 1000.0;
  options.fold_threads = FALSE;
  g_autoptr (RspTimelineLayout) unfolded = rsp_timeline_layout_new (model, &options);
  options.fold_threads = TRUE;
  options.summary = TRUE;
  g_autoptr (RspTimelineLayout) summary = rsp_timeline_layout_new (model, &options);
  if (timeline_only)
    g_clear_pointer (&analysis, rsp_analysis_free);

  printf ("# Frame times: %s\n\n", path);
  printf ("%" G_GUINT64_FORMAT " events, %u tasks, %u runs, %u sleeps, %u links; process of interest: pid %d\n\n",
          rsp_model_n_events (model), rsp_model_n_tasks (model), rsp_model_n_runs (model), rsp_model_n_sleeps (model),
          rsp_model_n_links (model), pid);
  printf ("load %.0f ms; timeline layout %.1f ms (%u rows, %u with threads unfolded, %u with --summary); "
          "analysis %.0f ms\n\n", load_ms, layout_ms, rsp_timeline_layout_n_rows (all),
          rsp_timeline_layout_n_rows (unfolded), rsp_timeline_layout_n_rows (summary), analysis_ms);
  printf ("%dx%d image surface, %d frames each%s.\n\n", WIDTH, HEIGHT, frames, sleeps ? ", sleeps shown" : "");
  printf ("| view | zoom | visible | median ms | max ms | max CPU ms | < %.0f ms |\n", BUDGET_MS);
  printf ("|---|---|---|---:|---:|---:|---|\n");

  static const guint zooms[] = { 1, 10, 100, 1000 };
  struct {
    const char *name;
    View view;
    const RspTimelineLayout *timeline;
    double scroll_y;
  } views[] = {
    { "timeline", VIEW_TIMELINE, all, 0 },
    { "timeline (scrolled to the middle)", VIEW_TIMELINE, all,
      rsp_timeline_view_content_height (all, &theme) / 2 },
    { "timeline, threads unfolded", VIEW_TIMELINE, unfolded, 0 },
    { "timeline --summary", VIEW_TIMELINE, summary, 0 },
    { "flame", VIEW_FLAME, NULL, 0 },
    { "consolidated", VIEW_CONSOLIDATED, NULL, 0 },
  };
  gboolean over = FALSE;
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      if (views[v].view != VIEW_TIMELINE && analysis == NULL)
        continue;
      guint64 start, end;
      if (views[v].view == VIEW_TIMELINE)
        {
          start = rsp_timeline_layout_start (views[v].timeline);
          end = rsp_timeline_layout_end (views[v].timeline);
        }
      else
        {
          start = rsp_analysis_start (analysis);
          end = rsp_analysis_end (analysis);
        }
      /* the consolidated view has no time axis: one row */
      guint n_zooms = views[v].view == VIEW_CONSOLIDATED ? 1 : G_N_ELEMENTS (zooms);
      for (guint z = 0; z < n_zooms; z++)
        {
          guint64 span = (end - start) / zooms[z];
          guint64 mid = start + (end - start) / 2;
          Job job = { views[v].view, views[v].timeline, analysis, &theme, mid - span / 2, mid - span / 2 + MAX (span, 1),
                      views[v].scroll_y };
          double median, worst, worst_cpu;
          time_job (&job, (guint) frames, &median, &worst, &worst_cpu);
          char zoom[32], visible[32];
          if (views[v].view == VIEW_CONSOLIDATED)
            g_snprintf (zoom, sizeof zoom, "—");
          else
            g_snprintf (zoom, sizeof zoom, zooms[z] == 1 ? "whole" : "1/%u", zooms[z]);
          if (views[v].view == VIEW_CONSOLIDATED)
            g_snprintf (visible, sizeof visible, "all");
          else
            {
              g_autofree char *d = rsp_format_duration (span);
              g_snprintf (visible, sizeof visible, "%s", d);
            }
          gboolean ok = median < BUDGET_MS && worst_cpu < BUDGET_MS;
          over |= !ok;
          printf ("| %s | %s | %s | %.2f | %.2f | %.2f | %s |\n", views[v].name, zoom, visible, median, worst,
                  worst_cpu, ok ? "yes" : "**no**");
          fflush (stdout);
        }
    }
  printf ("\nA view meets the budget when its median frame and its worst frame in CPU time are under %.0f ms.\n",
          BUDGET_MS);
  if (over)
    printf ("Some views do not.\n");
  return 0;
}
