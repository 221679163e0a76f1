/* test-flame.c — the chronological and consolidated flame views drawn
 * headless from checked-in recordings (tests/data/), checked against the
 * analysis: colours on the image, names and segments by hit testing,
 * merging by zoom, consolidated widths by time.  Fixed sizes, no display. */
#include <math.h>
#include <string.h>

#include "rsp-consolidated-view.h"
#include "rsp-flame-view.h"
#include "rsp-legend.h"

#define WIDTH 1200
#define HEIGHT 700

typedef struct {
  RspModel *model;
  RspAnalysis *analysis;
  RspTheme theme;
} Fixture;

static void
fixture_load (Fixture *fx, const char *name)
{
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (GError) error = NULL;
  fx->model = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const RspRecordingMeta *meta = rsp_model_meta (fx->model);
  g_assert_nonnull (meta);
  fx->analysis = rsp_analysis_new (fx->model, meta->target_pid, 0, G_MAXUINT64, &error);
  g_assert_no_error (error);
  rsp_theme_init (&fx->theme, FALSE, 1.0);
}

static void
setup_pingpong (Fixture *fx, gconstpointer data)
{
  fixture_load (fx, "pingpong.rsp");
}

static void
setup_tcp_loop (Fixture *fx, gconstpointer data)
{
  fixture_load (fx, "tcp_loop.rsp");
}

static void
teardown (Fixture *fx, gconstpointer data)
{
  rsp_analysis_free (fx->analysis);
  rsp_model_unref (fx->model);
}

/* ------------------------------------------------------------------ pixels */

/* Every colour a box of KIND can be painted (the shade varies it). */
/* C as cairo may have written it: cairo rounds to 8 bits per channel, so
 * either neighbour of each channel is accepted. */
static void
add_colour (GHashTable *set, RspColor c)
{
  for (int dr = -1; dr <= 1; dr++)
    for (int dg = -1; dg <= 1; dg++)
      for (int db = -1; db <= 1; db++)
        {
          guint r = CLAMP ((int) lround (c.r * 255) + dr, 0, 255);
          guint g = CLAMP ((int) lround (c.g * 255) + dg, 0, 255);
          guint b = CLAMP ((int) lround (c.b * 255) + db, 0, 255);
          g_hash_table_add (set, GUINT_TO_POINTER ((r << 16) | (g << 8) | b | 0x1000000u));
        }
}

static GHashTable *
box_colours (const RspTheme *theme, RspFlameBoxKind kind)
{
  GHashTable *set = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint shade = 0; shade < 256; shade++)
    {
      RspFlameBox box = { 0 };
      box.kind = kind;
      box.shade = shade;
      add_colour (set, rsp_flame_box_color (theme, &box));
    }
  return set;
}

static guint
count_pixels (cairo_surface_t *surface, GHashTable *colours)
{
  cairo_surface_flush (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  int w = cairo_image_surface_get_width (surface), h = cairo_image_surface_get_height (surface);
  guint n = 0;
  for (int y = 0; y < h; y++)
    {
      const guint32 *row = (const guint32 *) (data + (gsize) y * stride);
      for (int x = 0; x < w; x++)
        if (g_hash_table_contains (colours, GUINT_TO_POINTER ((row[x] & 0xffffff) | 0x1000000u)))
          n++;
    }
  return n;
}

static guint32
pixel_at (cairo_surface_t *surface, int x, int y)
{
  cairo_surface_flush (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  return ((const guint32 *) (data + (gsize) y * stride))[x] & 0xffffff;
}

static cairo_surface_t *
draw_flame (Fixture *fx, const RspFlameOptions *o)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  rsp_flame_view_draw (fx->analysis, o, &fx->theme, cr, WIDTH, HEIGHT);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  return surface;
}

static void
assert_colours_present (Fixture *fx, cairo_surface_t *surface)
{
  const RspFlameBoxKind kinds[] = { RSP_FLAME_BOX_RUN, RSP_FLAME_BOX_SLEEP, RSP_FLAME_BOX_TASK };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr (GHashTable) set = box_colours (&fx->theme, kinds[k]);
      guint n = count_pixels (surface, set);
      if (g_test_verbose ())
        g_printerr ("kind %d: %u px\n", kinds[k], n);
      g_assert_cmpuint (n, >, 100);
    }
}

/* Red (runs), blue (sleeps) and grey (task names) are all on the image,
 * at the whole range and zoomed in. */
static void
test_flame_colours (Fixture *fx, gconstpointer data)
{
  RspFlameOptions o;
  rsp_flame_options_init (&o);
  cairo_surface_t *surface = draw_flame (fx, &o);
  assert_colours_present (fx, surface);
  cairo_surface_destroy (surface);

  /* zoomed on the longest sleep of the process of interest, with what
   * ran before and after it */
  const RspSegment *longest = NULL;
  for (RspIdx i = 0; i < rsp_analysis_n_segments (fx->analysis); i++)
    {
      const RspSegment *s = rsp_analysis_segment (fx->analysis, i);
      if (s->depth == 0 && s->kind == RSP_SEG_SLEEP
          && (longest == NULL || s->end - s->start > longest->end - longest->start))
        longest = s;
    }
  g_assert_nonnull (longest);
  o.t0 = longest->start - (longest->end - longest->start);
  o.t1 = longest->end + (longest->end - longest->start);
  surface = draw_flame (fx, &o);
  assert_colours_present (fx, surface);
  cairo_surface_destroy (surface);
}

static void
test_consolidated_colours (Fixture *fx, gconstpointer data)
{
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  rsp_consolidated_view_draw (fx->analysis, &o, &fx->theme, cr, WIDTH, HEIGHT);
  cairo_destroy (cr);
  assert_colours_present (fx, surface);
  cairo_surface_destroy (surface);
}

/* ------------------------------------------------------------------ the analysis' view of things */

static const char *
expected_frame_name (const RspModelFrame *f)
{
  /* a symbol; else file+offset, or the address where no file is known */
  if (f->symbol != NULL)
    return f->symbol;
  g_autofree char *label = NULL;
  if (f->kernel)
    label = g_strdup_printf ("[kernel] 0x%" G_GINT64_MODIFIER "x", f->ip);
  else if (f->dso == NULL)
    label = g_strdup_printf ("[unmapped] 0x%" G_GINT64_MODIFIER "x", f->ip);
  else if (strcmp (f->dso, "//anon") == 0)
    label = g_strdup_printf ("[anon] 0x%" G_GINT64_MODIFIER "x", f->ip);
  else
    {
      g_autofree char *base = g_path_get_basename (f->dso);
      label = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base, f->offset);
    }
  g_assert_false (strstr (label, "[unknown]"));
  return g_intern_string (label);
}

/* Frame names of STACK outermost first; *N_USER: its user-space frames. */
static GPtrArray *
expected_stack (const RspModel *m, RspStackId stack, guint *n_user)
{
  GPtrArray *names = g_ptr_array_new ();
  *n_user = 0;
  if (stack == 0)
    return names;
  guint n;
  const RspModelFrame *frames = rsp_model_stack (m, stack, &n);
  for (guint k = n; k > 0; k--)
    {
      if (!frames[k - 1].kernel && *n_user == names->len)
        (*n_user)++;
      g_ptr_array_add (names, (gpointer) expected_frame_name (&frames[k - 1]));
    }
  return names;
}

/* The frames a segment is drawn with: a sleep's switch-out stack; a run's
 * samples, or the user part of the stack it ended with when none fell in
 * it (the way the accounting names unsampled runs). */
static GPtrArray *
segment_frames (Fixture *fx, const RspSegment *s)
{
  guint n_user;
  if (s->kind == RSP_SEG_SLEEP)
    return expected_stack (fx->model, rsp_model_sleep (fx->model, s->item)->stack, &n_user);
  const RspRun *run = rsp_model_run (fx->model, s->item);
  g_assert_cmpuint (run->n_samples, ==, 0); /* the checked-in recordings have none in their paths */
  if (run->next_sleep == RSP_NONE)
    return g_ptr_array_new ();
  GPtrArray *names = expected_stack (fx->model, rsp_model_sleep (fx->model, run->next_sleep)->stack, &n_user);
  g_ptr_array_set_size (names, n_user);
  return names;
}

typedef struct {
  guint64 t;
  RspCategory cat;
  gboolean found;
} CategoryAt;

static void
find_category (const RspAnalysis *a, RspIdx segment, CategoryAt *c)
{
  guint n;
  const RspStretch *st = rsp_analysis_segment_stretches (a, segment, &n);
  for (guint k = 0; k < n; k++)
    if (c->t >= st[k].start && c->t < st[k].end)
      c->cat = st[k].category, c->found = TRUE;
}

/* The segment's screen x range [X0, X1) and the middle of a row. */
static double
row_middle (const RspFlameLayout *l, const RspFlameViewport *vp, gint row)
{
  return rsp_flame_layout_row_top (l, vp, (guint) row) + l->row_height / 2;
}

static double
time_x (const RspFlameViewport *vp, guint64 t)
{
  return vp->left + (double) (gint64) (t - vp->t0) / vp->ns_per_px;
}

/* ------------------------------------------------------------------ hit testing */

/* Zoomed on each segment of the first two layers in turn, the box under
 * the middle of each of its rows is its task (grey, at the label
 * position), then its frames bottom-up, and the hit names the segment, the
 * task and the category the accounting gives that moment. */
static void
test_flame_hit_segments (Fixture *fx, gconstpointer data)
{
  const RspAnalysis *a = fx->analysis;
  RspFlameOptions o;
  rsp_flame_options_init (&o);
  o.full_stacks = TRUE;
  guint checked = 0, checked_depth1 = 0, checked_frames = 0;
  for (RspIdx i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      if (s->depth > 1 || s->path != 0 || s->end - s->start < 20000)
        continue;
      /* the segment fills the middle half of the view */
      guint64 len = s->end - s->start;
      o.t0 = s->start - len / 2;
      o.t1 = s->end + len / 2;
      g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (a, &o, &fx->theme, WIDTH);
      RspFlameViewport vp;
      rsp_flame_view_viewport (l, &o, WIDTH, HEIGHT, &vp);
      /* scroll the segment's layer to 100 px above the ruler */
      gint task_row = rsp_flame_view_segment_row (l, i, 0);
      g_assert_cmpint (task_row, >=, 0);
      o.scroll_y = MAX (g_array_index (l->row_y, double, task_row) - 100, 0);
      rsp_flame_view_viewport (l, &o, WIDTH, HEIGHT, &vp);

      /* the task name: where its label is drawn, just right of the left edge */
      double x_label = MAX (time_x (&vp, s->start), 0) + 6;
      RspFlameHit hit;
      g_assert_true (rsp_flame_view_hit_test (l, &o, WIDTH, HEIGHT, x_label, row_middle (l, &vp, task_row), &hit));
      g_assert_cmpint (hit.what, ==, RSP_FLAME_HIT_BOX);
      g_assert_cmpint (hit.kind, ==, RSP_FLAME_BOX_TASK);
      g_assert_cmpstr (hit.name, ==, rsp_model_task (fx->model, s->task)->comm);
      g_assert_cmpuint (hit.task, ==, s->task);
      g_assert_cmpuint (hit.segment, ==, i);

      /* and its label is drawn at the left of the (merged) box's visible
       * part: text pixels inside the grey box */
      if (checked < 5 && hit.width > 60)
        {
          cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
          cairo_t *cr = cairo_create (surface);
          rsp_flame_view_draw_layout (l, &o, &fx->theme, cr, WIDTH, HEIGHT);
          cairo_destroy (cr);
          g_autoptr (GHashTable) grey = box_colours (&fx->theme, RSP_FLAME_BOX_TASK);
          double y_top = rsp_flame_layout_row_top (l, &vp, (guint) task_row);
          guint text = 0;
          for (int y = (int) y_top + 3; y < (int) (y_top + l->row_height) - 3; y++)
            for (int x = (int) hit.x + 4; x < (int) hit.x + 24; x++)
              if (!g_hash_table_contains (grey, GUINT_TO_POINTER (pixel_at (surface, x, y) | 0x1000000u)))
                text++;
          g_assert_cmpuint (text, >, 10);
          cairo_surface_destroy (surface);
        }

      /* frames, at the middle of the segment */
      guint64 t_mid = s->start + len / 2;
      double x_mid = time_x (&vp, t_mid);
      g_autoptr (GPtrArray) frames = segment_frames (fx, s);
      for (guint k = 0; k < frames->len; k++)
        {
          gint row = rsp_flame_view_segment_row (l, i, k + 1);
          double y = row_middle (l, &vp, row);
          if (y < vp.top || y >= vp.bottom)
            continue;
          g_assert_true (rsp_flame_view_hit_test (l, &o, WIDTH, HEIGHT, x_mid, y, &hit));
          g_assert_cmpstr (hit.name, ==, g_ptr_array_index (frames, k));
          g_assert_cmpuint (hit.segment, ==, i);
          g_assert_cmpuint (hit.task, ==, s->task);
          g_assert_cmpuint (hit.depth, ==, k + 1);
          if (s->kind == RSP_SEG_SLEEP)
            g_assert_true (hit.kind == RSP_FLAME_BOX_SLEEP || hit.kind == RSP_FLAME_BOX_BOTH);
          else
            g_assert_true (hit.kind == RSP_FLAME_BOX_RUN || hit.kind == RSP_FLAME_BOX_BOTH);
          g_assert_cmpuint (hit.start, <=, t_mid);
          g_assert_cmpuint (hit.end, >, t_mid);
          checked_frames++;
        }

      /* the category of the moment: the deepest segment at T_MID decides */
      RspIdx top = i;
      for (gboolean deeper = TRUE; deeper;)
        {
          deeper = FALSE;
          const RspSegment *ts = rsp_analysis_segment (a, top);
          for (guint k = 0; k < ts->n_children; k++)
            {
              const RspSegment *c = rsp_analysis_segment (a, ts->first_child + k);
              if (c->start <= t_mid && t_mid < c->end)
                top = ts->first_child + k, deeper = TRUE;
            }
        }
      CategoryAt c = { t_mid, RSP_CAT_UNACCOUNTED, FALSE };
      find_category (a, top, &c);
      g_assert_true (c.found);
      g_assert_true (rsp_flame_view_hit_test (l, &o, WIDTH, HEIGHT, x_mid, row_middle (l, &vp, task_row), &hit));
      g_assert_cmpint (hit.category, ==, c.cat);
      checked++;
      if (s->depth == 1)
        checked_depth1++;
    }
  if (g_test_verbose ())
    g_printerr ("%u segments, %u in the second layer, %u frames\n", checked, checked_depth1, checked_frames);
  g_assert_cmpuint (checked, >=, 10);
  g_assert_cmpuint (checked_depth1, >=, 3);
  g_assert_cmpuint (checked_frames, >=, 30);
}

/* A control path's label strip names it. */
static void
test_flame_band_label (Fixture *fx, gconstpointer data)
{
  RspFlameOptions o;
  rsp_flame_options_init (&o);
  g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (fx->analysis, &o, &fx->theme, WIDTH);
  RspFlameViewport vp;
  rsp_flame_view_viewport (l, &o, WIDTH, HEIGHT, &vp);
  /* path 0's label is the lowest strip, right above the ruler */
  RspFlameHit hit;
  g_assert_true (rsp_flame_view_hit_test (l, &o, WIDTH, HEIGHT, 20, vp.bottom - 4, &hit));
  g_assert_cmpint (hit.what, ==, RSP_FLAME_HIT_BAND);
  g_assert_cmpuint (hit.path, ==, 0);
  g_assert_true (g_str_has_prefix (hit.name, "#0 "));
  g_assert_cmpuint (hit.ns, ==, rsp_analysis_path (fx->analysis, 0)->total);
}

/* ------------------------------------------------------------------ merging */

/* Two sleeps with the same stack on either side of a short run that no
 * sample caught: their kernel frames (which the run does not have) are
 * one box while the run is under a device pixel wide, and two boxes once
 * it is a pixel or more. */
static void
test_flame_merge_by_zoom (Fixture *fx, gconstpointer data)
{
  const RspAnalysis *a = fx->analysis;
  const RspModel *m = fx->model;
  RspIdx s1 = RSP_NONE;
  guint64 gap = 0;
  guint level = 0;
  for (RspIdx i = 0; i + 2 < rsp_analysis_n_segments (a) && s1 == RSP_NONE; i++)
    {
      const RspSegment *a1 = rsp_analysis_segment (a, i), *r = rsp_analysis_segment (a, i + 1),
                       *a2 = rsp_analysis_segment (a, i + 2);
      if (a1->kind != RSP_SEG_SLEEP || r->kind != RSP_SEG_RUN || a2->kind != RSP_SEG_SLEEP)
        continue;
      if (a1->parent != a2->parent || r->parent != a1->parent || a1->task != a2->task || a1->path != a2->path)
        continue;
      const RspSleep *sl1 = rsp_model_sleep (m, a1->item), *sl2 = rsp_model_sleep (m, a2->item);
      const RspRun *run = rsp_model_run (m, r->item);
      if (sl1->stack != sl2->stack || run->n_samples != 0 || a1->end != r->start || r->end != a2->start)
        continue;
      guint n_user;
      g_autoptr (GPtrArray) names = expected_stack (m, sl1->stack, &n_user);
      if (n_user == 0 || names->len <= n_user)
        continue;
      s1 = i;
      gap = r->end - r->start;
      level = n_user + 1; /* the first kernel frame, above the task box */
    }
  g_assert_cmpuint (s1, !=, RSP_NONE);
  const RspSegment *a1 = rsp_analysis_segment (a, s1), *a2 = rsp_analysis_segment (a, s1 + 2);

  RspFlameOptions o;
  rsp_flame_options_init (&o);
  o.full_stacks = TRUE;
  guint32 boxes[2][2];
  const double gap_px[2] = { 0.5, 2.0 };
  for (guint z = 0; z < 2; z++)
    {
      /* a zoom at which the run is GAP_PX wide, centred on it */
      guint64 span = (guint64) (gap * WIDTH / gap_px[z]);
      guint64 mid = a1->end + gap / 2;
      o.t0 = mid - span / 2;
      o.t1 = o.t0 + span;
      g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (a, &o, &fx->theme, WIDTH);
      gint row = rsp_flame_view_segment_row (l, s1, level);
      g_assert_cmpint (row, ==, rsp_flame_view_segment_row (l, s1 + 2, level));
      boxes[z][0] = rsp_flame_layout_find (l, (guint) row, a1->start + (a1->end - a1->start) / 2, 0);
      boxes[z][1] = rsp_flame_layout_find (l, (guint) row, a2->start + (a2->end - a2->start) / 2, 0);
      g_assert_cmpuint (boxes[z][0], !=, RSP_FLAME_NO_BOX);
      g_assert_cmpuint (boxes[z][1], !=, RSP_FLAME_NO_BOX);
      const RspFlameBox *b0 = rsp_flame_layout_box (l, boxes[z][0]);
      if (z == 0)
        {
          g_assert_cmpuint (boxes[z][0], ==, boxes[z][1]);
          g_assert_cmpuint (b0->start, <=, a1->start);
          g_assert_cmpuint (b0->end, >=, a2->end);
        }
      else
        {
          g_assert_cmpuint (boxes[z][0], !=, boxes[z][1]);
          g_assert_cmpuint (b0->end, ==, a1->end);
          g_assert_cmpuint (rsp_flame_layout_box (l, boxes[z][1])->start, ==, a2->start);
        }
    }
}

/* ------------------------------------------------------------------ layout once, draw many */

/* Drawing a range from a layout made for another range at the same zoom
 * gives the same image as laying out for that range. */
static void
test_flame_layout_reuse (Fixture *fx, gconstpointer data)
{
  guint64 start = rsp_analysis_start (fx->analysis), end = rsp_analysis_end (fx->analysis);
  RspFlameOptions o;
  rsp_flame_options_init (&o);
  o.t0 = start;
  o.t1 = start + (end - start) / 5;
  g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (fx->analysis, &o, &fx->theme, WIDTH);
  o.t0 += (end - start) / 3;
  o.t1 += (end - start) / 3;
  g_assert_true (rsp_flame_view_layout_fits (l, fx->analysis, &o, &fx->theme, WIDTH));
  cairo_surface_t *reused = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (reused);
  rsp_flame_view_draw_layout (l, &o, &fx->theme, cr, WIDTH, HEIGHT);
  cairo_destroy (cr);
  cairo_surface_t *fresh = draw_flame (fx, &o);
  cairo_surface_flush (reused);
  cairo_surface_flush (fresh);
  int stride = cairo_image_surface_get_stride (fresh);
  g_assert_cmpmem (cairo_image_surface_get_data (reused), stride * HEIGHT, cairo_image_surface_get_data (fresh),
                   stride * HEIGHT);
  cairo_surface_destroy (reused);
  cairo_surface_destroy (fresh);

  /* another zoom needs another layout; one that shares the first's
   * zoom-independent half has the same boxes as one made from scratch */
  o.t1 = o.t0 + (end - start) / 7;
  g_assert_false (rsp_flame_view_layout_fits (l, fx->analysis, &o, &fx->theme, WIDTH));
  g_autoptr (RspFlameLayout) rezoomed = rsp_flame_view_layout_rezoom (l, fx->analysis, &o, &fx->theme, WIDTH);
  g_autoptr (RspFlameLayout) scratch = rsp_flame_view_layout (fx->analysis, &o, &fx->theme, WIDTH);
  g_assert_true (rsp_flame_view_layout_fits (rezoomed, fx->analysis, &o, &fx->theme, WIDTH));
  g_assert_cmpuint (rezoomed->boxes->len, ==, scratch->boxes->len);
  g_assert_cmpuint (rezoomed->boxes->len, >, 0);
  g_assert_cmpmem (rezoomed->boxes->data, rezoomed->boxes->len * sizeof (RspFlameBox), scratch->boxes->data,
                   scratch->boxes->len * sizeof (RspFlameBox));
  g_clear_pointer (&l, rsp_flame_layout_free); /* the shared half outlives the layout it came from */
  g_assert_cmpfloat (rsp_flame_view_content_height (rezoomed), ==, rsp_flame_view_content_height (scratch));
}

/* ------------------------------------------------------------------ consolidated */

/* Each node is as wide as its time: hit testing the middle of every box
 * wide enough to point at gives its node's total, its percent of the
 * whole, and a width proportional to it; children are sorted widest
 * first and fit in their parent. */
/* The differential flame: A is the first half of the analysis' time, B all
 * of it.  Every node has at least as much time in B, so every change is
 * a gain, none beyond the largest, the root's (its change is the sum of
 * its children's and more); the same analysis on both sides changes
 * nothing; and drawing it paints the root in the gain colour. */
static void
test_consolidated_diff (Fixture *fx, gconstpointer data)
{
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  guint64 t0 = rsp_analysis_start (fx->analysis), t1 = rsp_analysis_end (fx->analysis);
  const RspRecordingMeta *meta = rsp_model_meta (fx->model);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspAnalysis) half
      = rsp_analysis_new (fx->model, meta->target_pid, t0, t0 + (t1 - t0) / 2, &error);
  g_assert_no_error (error);
  g_autoptr (RspFlameLayout) la = rsp_consolidated_view_layout (half, &o, &fx->theme);
  g_autoptr (RspFlameLayout) lb = rsp_consolidated_view_layout (fx->analysis, &o, &fx->theme);
  g_autofree float *delta = rsp_consolidated_view_diff (la, lb);
  guint n_boxes = 0;
  for (guint r = 0; r < rsp_flame_layout_n_rows (lb); r++)
    {
      guint n;
      rsp_flame_layout_row (lb, r, &n);
      n_boxes += n;
    }
  g_assert_cmpuint (n_boxes, >, 0);
  float largest = 0;
  guint root_box = G_MAXUINT;
  for (guint i = 0; i < n_boxes; i++)
    {
      g_assert_cmpfloat (delta[i], >=, 0.0f);
      g_assert_cmpfloat (delta[i], <=, 1.0f);
      largest = MAX (largest, delta[i]);
      if (rsp_flame_layout_box (lb, i)->ref == 0)
        root_box = i;
    }
  g_assert_cmpfloat (largest, ==, 1.0f);
  if (root_box != G_MAXUINT)
    g_assert_cmpfloat (delta[root_box], ==, 1.0f);

  g_autofree float *none = rsp_consolidated_view_diff (lb, lb);
  for (guint i = 0; i < n_boxes; i++)
    g_assert_cmpfloat (none[i], ==, 0.0f);

  /* the bottom row (the process, the whole time) is drawn in the gain colour */
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  rsp_consolidated_view_draw_diff (half, fx->analysis, &o, &fx->theme, cr, WIDTH, HEIGHT);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  const guint8 *px = cairo_image_surface_get_data (surface) + (HEIGHT - 4) * cairo_image_surface_get_stride (surface)
                     + 4 * 4;
  RspColor want = fx->theme.diff_more;
  g_assert_cmpint (ABS (px[2] - (int) (want.r * 255 + 0.5)), <=, 2);
  g_assert_cmpint (ABS (px[1] - (int) (want.g * 255 + 0.5)), <=, 2);
  g_assert_cmpint (ABS (px[0] - (int) (want.b * 255 + 0.5)), <=, 2);
  cairo_surface_destroy (surface);
}

static void
test_consolidated_widths (Fixture *fx, gconstpointer data)
{
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (fx->analysis, &o, &fx->theme);
  guint64 total = rsp_consolidated_view_total_ns (l);
  /* the root spans every lane of every path: the analysis' total time */
  g_assert_cmpuint (total, ==, rsp_analysis_total_ns (fx->analysis));
  RspFlameViewport vp;
  rsp_consolidated_view_viewport (l, &o, WIDTH, HEIGHT, &vp);
  guint checked = 0;
  for (guint r = 0; r < rsp_flame_layout_n_rows (l); r++)
    {
      guint n;
      const RspFlameBox *row = rsp_flame_layout_row (l, r, &n);
      for (guint k = 0; k < n; k++)
        {
          const RspFlameBox *b = &row[k];
          guint64 ns = b->end - b->start;
          g_assert_cmpuint (ns, ==, rsp_consolidated_view_node_ns (l, b->ref));
          if (b->parent != RSP_FLAME_NO_BOX)
            {
              const RspFlameBox *p = rsp_flame_layout_box (l, b->parent);
              g_assert_cmpuint (b->start, >=, p->start);
              g_assert_cmpuint (b->end, <=, p->end);
              /* the previous sibling, if any, is at least as wide */
              if (k > 0 && row[k - 1].parent == b->parent)
                g_assert_cmpuint (row[k - 1].end - row[k - 1].start, >=, ns);
            }
          double w = ns / vp.ns_per_px;
          double y = rsp_flame_layout_row_top (l, &vp, r) + l->row_height / 2;
          if (w < 4 || y < vp.top || y >= vp.bottom)
            continue;
          double x = time_x (&vp, b->start) + w / 2;
          RspFlameHit hit;
          g_assert_true (rsp_consolidated_view_hit_test (l, &o, WIDTH, HEIGHT, x, y, &hit));
          g_assert_cmpuint (hit.node, ==, b->ref);
          g_assert_cmpuint (hit.ns, ==, ns);
          g_assert_cmpfloat_with_epsilon (hit.percent, 100.0 * ns / total, 1e-9);
          g_assert_cmpfloat_with_epsilon (hit.width, WIDTH * (double) ns / total, 1e-6);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >=, 10);
}

/* Zooming into a node makes it span the width at the bottom; the
 * breadcrumb names the way back. */
static void
test_consolidated_zoom (Fixture *fx, gconstpointer data)
{
  RspConsolidatedOptions o;
  rsp_consolidated_options_init (&o);
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (fx->analysis, &o, &fx->theme);
  /* the widest node of the third row */
  guint n;
  const RspFlameBox *row = rsp_flame_layout_row (l, 2, &n);
  g_assert_cmpuint (n, >, 0);
  const RspFlameBox *widest = row;
  for (guint k = 1; k < n; k++)
    if (row[k].end - row[k].start > widest->end - widest->start)
      widest = &row[k];
  g_auto (GStrv) path = rsp_consolidated_view_node_path (l, widest->ref);
  g_assert_cmpuint (g_strv_length (path), ==, 3);
  g_assert_cmpstr (path[2], ==, widest->name);
  o.zoom_path = (const char *const *) path;
  g_assert_cmpuint (rsp_consolidated_view_find (l, o.zoom_path), ==, widest->ref);

  RspFlameViewport vp;
  rsp_consolidated_view_viewport (l, &o, WIDTH, HEIGHT, &vp);
  RspFlameHit hit;
  for (double x = 1; x < WIDTH; x += WIDTH / 7.0)
    {
      g_assert_true (rsp_consolidated_view_hit_test (l, &o, WIDTH, HEIGHT, x, vp.bottom - 2, &hit));
      g_assert_cmpuint (hit.node, ==, widest->ref);
    }
  /* "All" is the first breadcrumb */
  g_assert_true (rsp_consolidated_view_hit_test (l, &o, WIDTH, HEIGHT, 12, vp.top / 2, &hit));
  g_assert_cmpint (hit.what, ==, RSP_FLAME_HIT_BREADCRUMB);
  g_assert_cmpuint (hit.node, ==, 0);
  g_auto (GStrv) root = rsp_consolidated_view_node_path (l, hit.node);
  g_assert_null (root[0]);

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  rsp_consolidated_view_draw_layout (l, &o, &fx->theme, cr, WIDTH, HEIGHT);
  cairo_destroy (cr);
  /* the zoomed node's colour across the bottom row */
  g_autoptr (GHashTable) set = box_colours (&fx->theme, widest->kind);
  guint32 left = pixel_at (surface, 2, (int) vp.bottom - 4);
  guint32 right = pixel_at (surface, WIDTH - 10, (int) vp.bottom - 4);
  g_assert_true (g_hash_table_contains (set, GUINT_TO_POINTER (left | 0x1000000u)));
  g_assert_true (g_hash_table_contains (set, GUINT_TO_POINTER (right | 0x1000000u)));
  cairo_surface_destroy (surface);
}

/* ------------------------------------------------------------------ themes and scale */

/* Dark theme at scale 2: drawn in logical px on a surface twice as large,
 * its background where nothing is, the boxes in device pixels. */
static void
test_dark_hidpi (Fixture *fx, gconstpointer data)
{
  RspTheme dark;
  rsp_theme_init (&dark, TRUE, 2.0);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH * 2, HEIGHT * 2);
  cairo_surface_set_device_scale (surface, 2, 2);
  cairo_t *cr = cairo_create (surface);
  RspFlameOptions o;
  rsp_flame_options_init (&o);
  o.search = "read";
  rsp_flame_view_draw (fx->analysis, &o, &dark, cr, WIDTH, HEIGHT);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  guint32 bg = ((guint32) lround (dark.background.r * 255) << 16) | ((guint32) lround (dark.background.g * 255) << 8)
               | (guint32) lround (dark.background.b * 255);
  /* the top left corner is above every band */
  g_assert_cmphex (pixel_at (surface, 2, 2), ==, bg);
  RspFlameOptions plain;
  rsp_flame_options_init (&plain);
  rsp_flame_view_draw (fx->analysis, &plain, &dark, cr, WIDTH, HEIGHT);
  cairo_destroy (cr);
  RspTheme dark1 = dark;
  dark1.scale = 1; /* the colours are the same at any scale */
  g_autoptr (GHashTable) task = box_colours (&dark1, RSP_FLAME_BOX_TASK);
  g_assert_cmpuint (count_pixels (surface, task), >, 400);

  RspConsolidatedOptions co;
  rsp_consolidated_options_init (&co);
  co.highlight_category = RSP_CAT_PREEMPTED;
  cr = cairo_create (surface);
  rsp_consolidated_view_draw (fx->analysis, &co, &dark, cr, WIDTH, HEIGHT);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* ------------------------------------------------------------------ legend */

static guint
count_colour (cairo_surface_t *surface, RspColor c)
{
  g_autoptr (GHashTable) set = g_hash_table_new (g_direct_hash, g_direct_equal);
  add_colour (set, c);
  return count_pixels (surface, set);
}

/* Every colour a view uses has its swatch in the legend, whatever the
 * width: narrower, the entries wrap onto more lines. */
static void
test_legend (void)
{
  RspTheme theme;
  rsp_theme_init (&theme, FALSE, 1.0);
  const struct {
    RspLegendKind kind;
    const RspColor *colours[7];
  } kinds[] = {
    { RSP_LEGEND_TIMELINE,
      { &theme.run, &theme.sleep, &theme.waiting, &theme.disk_queue, &theme.disk, &theme.network, &theme.link } },
    { RSP_LEGEND_FLAME, { &theme.run, &theme.sleep, &theme.both, &theme.task, &theme.disk, &theme.network, NULL } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      double prev = 0;
      for (double width = 1200; width >= 150; width /= 2)
        {
          cairo_surface_t *probe = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
          cairo_t *pcr = cairo_create (probe);
          double height = rsp_legend_height (kinds[k].kind, &theme, pcr, width);
          cairo_destroy (pcr);
          cairo_surface_destroy (probe);
          g_assert_cmpfloat (height, >=, prev);
          prev = height;
          cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) width, (int) ceil (height));
          cairo_t *cr = cairo_create (surface);
          cairo_set_source_rgb (cr, 1, 1, 1);
          cairo_paint (cr);
          rsp_legend_draw (kinds[k].kind, &theme, cr, width);
          cairo_destroy (cr);
          for (guint c = 0; c < G_N_ELEMENTS (kinds[k].colours) && kinds[k].colours[c] != NULL; c++)
            if (count_colour (surface, *kinds[k].colours[c]) < 10)
              g_error ("legend %u at %.0f px: colour %u has no swatch", k, width, c);
          cairo_surface_destroy (surface);
        }
      /* at 150 px the entries take several lines */
      cairo_surface_t *probe = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *pcr = cairo_create (probe);
      g_assert_cmpfloat (rsp_legend_height (kinds[k].kind, &theme, pcr, 150), >,
                         2 * rsp_legend_height (kinds[k].kind, &theme, pcr, 1200));
      cairo_destroy (pcr);
      cairo_surface_destroy (probe);
      g_autofree char *text = rsp_legend_text (kinds[k].kind);
      g_assert_nonnull (strstr (text, "Running: red"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/legend", test_legend);
  const struct {
    const char *name;
    void (*setup) (Fixture *, gconstpointer);
  } recordings[] = { { "pingpong", setup_pingpong }, { "tcp_loop", setup_tcp_loop } };
  for (guint r = 0; r < G_N_ELEMENTS (recordings); r++)
    {
#define ADD(path, func)                                                                                           \
  do                                                                                                              \
    {                                                                                                             \
      g_autofree char *p = g_strdup_printf ("/flame/%s/" path, recordings[r].name);                              \
      g_test_add (p, Fixture, NULL, recordings[r].setup, func, teardown);                                         \
    }                                                                                                             \
  while (0)
      ADD ("chronological/colours", test_flame_colours);
      ADD ("chronological/hit-segments", test_flame_hit_segments);
      ADD ("chronological/band-label", test_flame_band_label);
      ADD ("chronological/merge-by-zoom", test_flame_merge_by_zoom);
      ADD ("chronological/layout-reuse", test_flame_layout_reuse);
      ADD ("consolidated/colours", test_consolidated_colours);
      ADD ("consolidated/widths", test_consolidated_widths);
      ADD ("consolidated/zoom", test_consolidated_zoom);
      ADD ("consolidated/diff", test_consolidated_diff);
      ADD ("dark-hidpi", test_dark_hidpi);
#undef ADD
    }
  return g_test_run ();
}
