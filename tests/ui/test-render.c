/* test-render.c — `rsp render` end to end on a checked-in recording: each
 * view to a valid PNG of the asked size and to an SVG; clear errors with a
 * non-zero exit for bad arguments and unwritable output. */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

static const char *rsp;
static char *recording;
static char *tmpdir;

/* Runs `rsp render ARGS...`; returns the exit status, stderr in *ERR. */
static int
run_render (char **err, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) rsp);
  g_ptr_array_add (argv, (gpointer) "render");
  va_list ap;
  va_start (ap, err);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;
  g_autofree char *out = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, err, &status,
                               &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    return WIFEXITED (status) ? WEXITSTATUS (status) : 255;
  return 0;
}

static void
check_png (const char *path, int width, int height)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  static const guint8 signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_assert_cmpuint (len, >, sizeof signature);
  g_assert_cmpmem (data, sizeof signature, signature, sizeof signature);
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (s), ==, height);
  /* not blank: a picture of a recording has more than a handful of colours */
  cairo_surface_flush (s);
  const guint8 *px = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  g_autoptr (GHashTable) colors = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (int y = 0; y < height; y += 3)
    for (int x = 0; x < width; x += 3)
      g_hash_table_add (colors, GUINT_TO_POINTER (*(const guint32 *) (px + y * stride + x * 4)));
  g_assert_cmpuint (g_hash_table_size (colors), >, 8);
  cairo_surface_destroy (s);
}

static void
check_svg (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 100);
  g_assert_true (g_str_has_prefix (data, "<?xml") || g_str_has_prefix (data, "<svg"));
  g_assert_nonnull (strstr (data, "</svg>"));
}

/* One page of the asked size in points, and a content stream. */
static void
check_pdf (const char *path, int width, int height)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 500);
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  g_autofree char *box = g_strdup_printf ("/MediaBox [ 0 0 %d %d ]", width, height);
  /* binary streams hold NULs: search bytes, not a string */
  g_assert_nonnull (memmem (data, len, box, strlen (box)));
  g_assert_nonnull (memmem (data, len, "/Type /Page", 11));
  g_assert_nonnull (memmem (data, len, "%%EOF", 5));
}

static void
test_view (gconstpointer data)
{
  const char *view = data;
  g_autofree char *png = g_strdup_printf ("%s/%s.png", tmpdir, view);
  g_autofree char *svg = g_strdup_printf ("%s/%s.svg", tmpdir, view);
  g_autofree char *small = g_strdup_printf ("%s/%s-small.png", tmpdir, view);
  g_autofree char *pdf = g_strdup_printf ("%s/%s.PDF", tmpdir, view);
  g_autofree char *err = NULL;
  int status = run_render (&err, recording, "--view", view, "-o", png, NULL);
  if (status != 0)
    g_error ("rsp render --view %s failed (%d): %s", view, status, err);
  check_png (png, 1600, 900);
  g_clear_pointer (&err, g_free);
  status = run_render (&err, recording, "--view", view, "--dark", "--show-sleeps", "-o", svg, NULL);
  if (status != 0)
    g_error ("rsp render --view %s (svg) failed (%d): %s", view, status, err);
  check_svg (svg);
  g_clear_pointer (&err, g_free);
  status = run_render (&err, recording, "--view", view, "--size", "800x500", "--from", "1", "--to", "20", "-o", small,
                       NULL);
  if (status != 0)
    g_error ("rsp render --view %s --size failed (%d): %s", view, status, err);
  check_png (small, 800, 500);
  g_clear_pointer (&err, g_free);
  status = run_render (&err, recording, "--view", view, "--size", "1000x600", "-o", pdf, NULL);
  if (status != 0)
    g_error ("rsp render --view %s (pdf) failed (%d): %s", view, status, err);
  check_pdf (pdf, 1000, 600);
  g_unlink (pdf);
  g_unlink (png);
  g_unlink (svg);
  g_unlink (small);
}

/* Pixels that differ between two PNGs of the same size, in rows [Y0, Y1). */
static guint
differing_pixels (const char *a_path, const char *b_path, int y0, int y1)
{
  cairo_surface_t *a = cairo_image_surface_create_from_png (a_path);
  cairo_surface_t *b = cairo_image_surface_create_from_png (b_path);
  g_assert_cmpint (cairo_image_surface_get_width (a), ==, cairo_image_surface_get_width (b));
  int width = cairo_image_surface_get_width (a), stride = cairo_image_surface_get_stride (a);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  guint n = 0;
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < width; x++)
      n += *(const guint32 *) (pa + y * stride + x * 4) != *(const guint32 *) (pb + y * stride + x * 4);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  return n;
}

/* --bottom-up draws another tree over the same legend. */
static void
test_bottom_up (void)
{
  g_autofree char *top = g_strdup_printf ("%s/top-down.png", tmpdir);
  g_autofree char *bottom = g_strdup_printf ("%s/bottom-up.png", tmpdir);
  g_autofree char *err = NULL;
  int status = run_render (&err, recording, "--view", "consolidated", "-o", top, NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&err, g_free);
  status = run_render (&err, recording, "--view", "consolidated", "--bottom-up", "-o", bottom, NULL);
  if (status != 0)
    g_error ("rsp render --bottom-up failed (%d): %s", status, err);
  check_png (bottom, 1600, 900);
  /* the legend (the last rows) is the same, the tree above it is not */
  g_assert_cmpuint (differing_pixels (top, bottom, 890, 900), ==, 0);
  g_assert_cmpuint (differing_pixels (top, bottom, 0, 890), >, 1600 * 10);
  g_unlink (top);
  g_unlink (bottom);
}

static void
expect_error (const char *what, const char *needle, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) rsp);
  g_ptr_array_add (argv, (gpointer) "render");
  va_list ap;
  va_start (ap, needle);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                               NULL));
  if (g_spawn_check_wait_status (status, NULL))
    g_error ("%s: rsp render succeeded", what);
  g_assert_true (WIFEXITED (status));
  if (strstr (err, needle) == NULL)
    g_error ("%s: stderr lacks '%s': %s", what, needle, err);
  /* one clear message, not a crash dump */
  g_assert_null (strstr (err, "CRITICAL"));
}

static void
test_errors (void)
{
  g_autofree char *png = g_strdup_printf ("%s/err.png", tmpdir);
  expect_error ("bad size", "bad size", recording, "--size", "12xfoo", "-o", png, NULL);
  expect_error ("tiny size", "bad size", recording, "--size", "10x10", "-o", png, NULL);
  expect_error ("unknown view", "unknown view", recording, "--view", "pie", "-o", png, NULL);
  expect_error ("no output", "-o", recording, NULL);
  expect_error ("bad suffix", ".png, .svg or .pdf", recording, "-o", "picture.jpg", NULL);
  expect_error ("unwritable", "cannot write", recording, "-o", "/nonexistent-dir/x.png", NULL);
  expect_error ("missing recording", "missing.rsp", "missing.rsp", "-o", png, NULL);
  expect_error ("unknown process", "busiest", recording, "--comm", "no-such-process", "-o", png, NULL);
  expect_error ("range", "--to", recording, "--from", "5", "--to", "2", "-o", png, NULL);
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rsp = g_getenv ("RSP");
  const char *root = g_getenv ("RSP_SOURCE_ROOT");
  recording = g_build_filename (root != NULL ? root : RSP_SOURCE_ROOT, "tests", "data", "pingpong.rsp", NULL);
  if (rsp == NULL)
    {
      g_test_skip ("RSP (the rsp executable) is not set");
      return 77;
    }
  tmpdir = g_dir_make_tmp ("rsp-render-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_data_func ("/render/timeline", "timeline", test_view);
  g_test_add_data_func ("/render/flame", "flame", test_view);
  g_test_add_data_func ("/render/consolidated", "consolidated", test_view);
  g_test_add_func ("/render/bottom-up", test_bottom_up);
  g_test_add_func ("/render/errors", test_errors);
  int status = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  g_free (recording);
  return status;
}
