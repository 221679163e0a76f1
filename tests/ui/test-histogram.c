/* test-histogram.c — the requests view's pieces drawn headless, on the
 * checked-in --repeat recording (tests/data/requests.rsp: 8 runs of
 * slow_every, 2 of them slow through a 40 ms clock_nanosleep):
 *   - the latency histogram: every bar where its bin is, in the slow
 *     colour exactly when its bin lies in the slow tail, hit testing that
 *     finds each bar's bin, and counts that add up to the requests;
 *   - the requests' kept analyses, one per request, over its own stretch;
 *   - the consolidated tree of a group of requests (its total the sum of
 *     theirs) and the differential flame of the slow tail against the rest
 *     (the slow path's sleep the reddest box).
 * The pictures are written to the build directory for a look. */
#include <cairo.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "rsp-consolidated-view.h"
#include "rsp-histogram-view.h"
#include "rsp-model.h"
#include "rsp-requests.h"

#define W 800
#define H 240

typedef struct {
  RspModel *model;
  RspRequests *requests;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", "requests.rsp", NULL);
  g_autoptr (GError) error = NULL;
  f->model = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  f->requests = rsp_requests_new_full (f->model, "runs", 0, TRUE, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  rsp_requests_free (f->requests);
  rsp_model_unref (f->model);
}

static gboolean
near (const unsigned char *px, const RspColor *c, double alpha, const RspColor *bg)
{
  /* ARGB32, little-endian: B G R A; the bar's colour over the background */
  double r = c->r * alpha + bg->r * (1 - alpha), g = c->g * alpha + bg->g * (1 - alpha),
         b = c->b * alpha + bg->b * (1 - alpha);
  return fabs (px[2] / 255.0 - r) < 0.04 && fabs (px[1] / 255.0 - g) < 0.04 && fabs (px[0] / 255.0 - b) < 0.04;
}

static void
test_histogram (Fixture *f, gconstpointer data)
{
  RspTheme theme;
  rsp_theme_init (&theme, FALSE, 1);
  RspHistogramOptions o;
  rsp_histogram_options_init (&o);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cairo_t *cr = cairo_create (surface);
  rsp_histogram_view_draw (f->requests, &o, &theme, cr, W, H);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_autofree char *png = g_build_filename (g_get_tmp_dir (), "rsp-test-histogram.png", NULL);
  cairo_surface_write_to_png (surface, png);
  g_test_message ("histogram drawn to %s", png);

  guint n_bins;
  guint64 lo, width;
  const guint *counts = rsp_requests_histogram (f->requests, &n_bins, &lo, &width);
  g_assert_cmpuint (n_bins, >=, 2);
  g_assert_cmpuint (rsp_histogram_view_count (f->requests, 0, n_bins - 1), ==, rsp_requests_n (f->requests));
  g_assert_cmpint (rsp_requests_slow_split (f->requests), !=, RSP_SLOW_NONE);
  guint64 threshold = rsp_requests_slow_threshold (f->requests);

  const unsigned char *data_px = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  /* the plot's geometry, as the renderer lays it out */
  const double left = 44, right = 12, top = 22, bottom = 34;
  double bar_w = (W - left - right) / n_bins;
  guint slow_bars = 0, fast_bars = 0;
  for (guint b = 0; b < n_bins; b++)
    {
      double x = left + (b + 0.5) * bar_w;
      g_assert_cmpint (rsp_histogram_view_bin_at (f->requests, W, x), ==, (gint) b);
      /* just above the axis: inside the bar if the bin has one */
      int y = (int) (H - bottom - 2);
      const unsigned char *px = data_px + y * stride + 4 * (int) x;
      guint64 blo, bhi;
      rsp_histogram_view_bin_range (f->requests, b, &blo, &bhi);
      g_assert_cmpuint (bhi - blo, ==, width);
      if (counts[b] == 0)
        {
          g_assert_true (near (px, &theme.background, 1, &theme.background));
          continue;
        }
      gboolean slow = blo >= threshold;
      g_assert_true (near (px, slow ? &theme.run : &theme.sleep, 0.85, &theme.background));
      slow ? slow_bars++ : fast_bars++;
      (void) top;
    }
  g_assert_cmpuint (slow_bars, >, 0);
  g_assert_cmpuint (fast_bars, >, 0);
  g_assert_cmpint (rsp_histogram_view_bin_at (f->requests, W, 3), ==, -1);
  g_assert_cmpint (rsp_histogram_view_bin_at (f->requests, W, W - 2), ==, -1);

  /* a selection outlines its bars in the highlight colour */
  o.sel_first = o.sel_last = (gint) n_bins - 1;
  cr = cairo_create (surface);
  rsp_histogram_view_draw (f->requests, &o, &theme, cr, W, H);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_autofree char *png_sel = g_build_filename (g_get_tmp_dir (), "rsp-test-histogram-selected.png", NULL);
  cairo_surface_write_to_png (surface, png_sel);
  int edge_x = (int) (left + (n_bins - 1) * bar_w + 2);
  gboolean outlined = FALSE;
  for (int y = (int) top; y < H - bottom && !outlined; y++)
    outlined = near (data_px + y * stride + 4 * edge_x, &theme.highlight, 1, &theme.background)
               || near (data_px + y * stride + 4 * (edge_x + 1), &theme.highlight, 1, &theme.background);
  g_assert_true (outlined);
  cairo_surface_destroy (surface);
}

static void
test_analyses (Fixture *f, gconstpointer data)
{
  guint n = rsp_requests_n (f->requests);
  g_assert_cmpuint (n, ==, 8);
  for (guint i = 0; i < n; i++)
    {
      const RspRequest *req = rsp_requests_get (f->requests, i);
      const RspAnalysis *a = rsp_requests_analysis (f->requests, i);
      g_assert_nonnull (a);
      g_assert_cmpuint (rsp_analysis_start (a), ==, req->start);
      g_assert_cmpuint (rsp_analysis_end (a), ==, req->end);
      for (guint c = 0; c < RSP_CAT_N; c++)
        g_assert_cmpuint (rsp_analysis_category_ns (a, (RspCategory) c), ==, req->category_ns[c]);
    }
  g_assert_null (rsp_requests_analysis (f->requests, n));
  /* without keeping, none */
  g_autoptr (RspRequests) plain = rsp_requests_new (f->model, "runs", 0, NULL);
  g_assert_null (rsp_requests_analysis (plain, 0));
}

static void
test_group_flame (Fixture *f, gconstpointer data)
{
  RspTheme theme;
  rsp_theme_init (&theme, FALSE, 1);
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  g_autoptr (GPtrArray) slow = g_ptr_array_new ();
  g_autoptr (GPtrArray) fast = g_ptr_array_new ();
  guint64 slow_total = 0, fast_total = 0;
  for (guint i = 0; i < rsp_requests_n (f->requests); i++)
    {
      const RspAnalysis *a = rsp_requests_analysis (f->requests, i);
      if (rsp_requests_get (f->requests, i)->slow)
        {
          g_ptr_array_add (slow, (gpointer) a);
          slow_total += rsp_analysis_total_ns (a);
        }
      else
        {
          g_ptr_array_add (fast, (gpointer) a);
          fast_total += rsp_analysis_total_ns (a);
        }
    }
  g_assert_cmpuint (slow->len, ==, rsp_requests_n_slow (f->requests));
  g_assert_cmpuint (fast->len, >, 0);
  g_autoptr (RspFlameLayout) ls
      = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) slow->pdata, slow->len, &o, &theme);
  g_autoptr (RspFlameLayout) lf
      = rsp_consolidated_view_layout_group ((const RspAnalysis *const *) fast->pdata, fast->len, &o, &theme);
  g_assert_cmpuint (rsp_consolidated_view_total_ns (ls), ==, slow_total);
  g_assert_cmpuint (rsp_consolidated_view_total_ns (lf), ==, fast_total);

  /* the slow tail against the rest, per request: the largest gain is the
   * 40 ms sleep the fast runs never make */
  g_autofree float *delta = rsp_consolidated_view_diff_scaled (lf, 1.0 / fast->len, ls, 1.0 / slow->len);
  guint n_boxes = 0;
  for (guint row = 0; row < rsp_flame_layout_n_rows (ls); row++)
    {
      guint k;
      rsp_flame_layout_row (ls, row, &k);
      n_boxes += k;
    }
  float top = -2;
  gboolean sleep_reddest = FALSE;
  for (guint i = 0; i < n_boxes; i++)
    {
      const RspFlameBox *box = rsp_flame_layout_box (ls, i);
      g_assert_cmpfloat (fabs (delta[i]), <=, 1.0f);
      top = MAX (top, delta[i]);
      if (box->name != NULL && strcmp (box->name, "clock_nanosleep") == 0 && delta[i] == 1.0f)
        sleep_reddest = TRUE;

    }
  g_assert_cmpfloat (top, ==, 1.0f);
  g_assert_true (sleep_reddest);

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, 400);
  cairo_t *cr = cairo_create (surface);
  rsp_consolidated_view_draw_layout_delta (ls, delta, &o, &theme, cr, W, 400);
  cairo_destroy (cr);
  g_autofree char *png = g_build_filename (g_get_tmp_dir (), "rsp-test-requests-diff.png", NULL);
  cairo_surface_write_to_png (surface, png);
  g_test_message ("differential flame drawn to %s", png);
  cairo_surface_destroy (surface);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/histogram/draw", Fixture, NULL, fixture_set_up, test_histogram, fixture_tear_down);
  g_test_add ("/histogram/analyses", Fixture, NULL, fixture_set_up, test_analyses, fixture_tear_down);
  g_test_add ("/histogram/group-flame", Fixture, NULL, fixture_set_up, test_group_flame, fixture_tear_down);
  return g_test_run ();
}
