/* test-time-axis.c — the time ruler: units, 1-2-5 steps whose labels fit,
 * exact labels at deep zoom, x <-> time. */
#include <glib.h>

#include "rsp-time-axis.h"
#include "rsp-time-nav.h"

#define MS 1000000ull
#define S 1000000000ull

static RspTheme theme;

static char *
label (const RspTimeAxis *axis, guint64 t)
{
  char buf[64];
  rsp_time_axis_format (axis, t, buf, sizeof buf);
  return g_strdup (buf);
}

static gboolean
is_125 (guint64 step)
{
  while (step % 10 == 0)
    step /= 10;
  return step == 1 || step == 2 || step == 5;
}

static void
test_units (void)
{
  RspTimeAxis axis;
  guint64 origin = 5 * S;

  /* half a second: milliseconds, round steps */
  rsp_time_axis_init (&axis, origin, origin, origin + 500 * MS, 100, 1400, &theme);
  g_assert_cmpstr (axis.unit_name, ==, "ms");
  g_assert_true (is_125 (axis.step));
  g_assert_cmpuint (axis.step, >=, 10 * MS);
  g_assert_cmpuint (axis.step, <=, 100 * MS);
  g_autofree char *a = label (&axis, origin + 450 * MS);
  g_assert_cmpstr (a, ==, "450 ms");

  /* a minute: seconds */
  rsp_time_axis_init (&axis, origin, origin, origin + 60 * S, 0, 1400, &theme);
  g_assert_cmpstr (axis.unit_name, ==, "s");
  g_autofree char *b = label (&axis, origin + 10 * S);
  g_assert_cmpstr (b, ==, axis.decimals == 0 ? "10 s" : "10.0 s");

  /* 1/1000 of it, 30 s in: the labels keep every digit the step needs */
  rsp_time_axis_init (&axis, origin, origin + 30 * S, origin + 30 * S + 60 * MS, 0, 1400, &theme);
  g_assert_cmpstr (axis.unit_name, ==, "s");
  g_assert_true (is_125 (axis.step));
  g_assert_cmpint (axis.decimals, >=, 2);
  g_autofree char *c = label (&axis, origin + 30 * S + 10 * MS);
  g_assert_true (g_str_has_prefix (c, "30.01"));

  /* 40 µs from the origin: microseconds */
  rsp_time_axis_init (&axis, origin, origin, origin + 40000, 0, 1000, &theme);
  g_assert_cmpstr (axis.unit_name, ==, "µs");
  g_autofree char *d = label (&axis, origin + 12000);
  g_assert_true (g_str_has_prefix (d, "12"));
  g_assert_true (g_str_has_suffix (d, " µs"));

  /* before the origin */
  rsp_time_axis_init (&axis, origin, origin - 100 * MS, origin + 100 * MS, 0, 1000, &theme);
  g_autofree char *e = label (&axis, origin - 50 * MS);
  g_assert_cmpstr (e, ==, "-50 ms");
}

/* Whatever the span and width, neighbouring labels do not overlap. */
static void
test_labels_fit (void)
{
  guint64 origin = 1000 * S;
  const guint64 spans[] = { 50, 1000, 12345, 800000, 3 * MS, 77 * MS, 1 * S, 58 * S, 3600 * S };
  const double widths[] = { 150, 400, 1400, 3000 };
  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    for (guint j = 0; j < G_N_ELEMENTS (widths); j++)
      {
        RspTimeAxis axis;
        guint64 t0 = origin + 7 * S + 123457;
        rsp_time_axis_init (&axis, origin, t0, t0 + spans[i], 0, widths[j], &theme);
        g_assert_true (is_125 (axis.step));
        g_autofree char *widest = label (&axis, t0 + spans[i]);
        double spacing = axis.step * widths[j] / (double) spans[i];
        double need = g_utf8_strlen (widest, -1) * 0.5 * theme.font_size;
        g_assert_cmpfloat (spacing, >=, need);
        /* and not absurdly sparse: a wide ruler has several labels */
        if (widths[j] >= 400)
          g_assert_cmpuint (spans[i] / axis.step, >=, 2);
      }
}

static void
test_mapping (void)
{
  RspTimeAxis axis;
  guint64 origin = 1000 * S;
  rsp_time_axis_init (&axis, origin, origin + 2 * S, origin + 3 * S, 200, 1000, &theme);
  g_assert_cmpfloat_with_epsilon (rsp_time_axis_x (&axis, origin + 2 * S), 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (rsp_time_axis_x (&axis, origin + 3 * S), 1200, 1e-9);
  g_assert_cmpfloat_with_epsilon (rsp_time_axis_x (&axis, origin + 2 * S + 500 * MS), 700, 1e-9);
  g_assert_cmpfloat (rsp_time_axis_x (&axis, origin), <, 200);
  g_assert_cmpuint (rsp_time_axis_time (&axis, 700), ==, origin + 2 * S + 500 * MS);
  g_assert_cmpfloat_with_epsilon (rsp_time_axis_ns_per_px (&axis), 1e6, 1e-6);
  /* nanosecond precision far from zero */
  rsp_time_axis_init (&axis, origin, origin + 7 * S, origin + 7 * S + 1000, 0, 1000, &theme);
  g_assert_cmpuint (rsp_time_axis_time (&axis, 500), ==, origin + 7 * S + 500);
  g_assert_cmpfloat_with_epsilon (rsp_time_axis_x (&axis, origin + 7 * S + 250), 250, 1e-6);
}

static void
test_durations (void)
{
  const struct {
    guint64 ns;
    const char *text;
  } cases[] = {
    { 0, "0 ns" },          { 840, "840 ns" },      { 1250, "1.25 µs" },     { 12500, "12.5 µs" },
    { 125000, "125 µs" },   { 1250000, "1.25 ms" }, { 475650000, "476 ms" }, { 1250000000, "1.25 s" },
    { 58800000000, "58.8 s" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = rsp_format_duration (cases[i].ns);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* A label is drawn whole or not at all: the tick left of the view keeps its
 * label pinned to the left edge while it fits before the next tick ("260 ms"
 * was once drawn cut to "60 ms"); a label that would run past the right edge
 * is not drawn. */
static void
test_label_placement (void)
{
  RspTimeAxis axis;
  rsp_time_axis_init (&axis, 0, 255 * MS, 355 * MS, 100, 1000, &theme);
  g_assert_cmpuint (axis.step, ==, 10 * MS);
  double w = 40;
  /* visible ticks: right of the tick */
  g_assert_cmpfloat (rsp_time_axis_label_x (&axis, 260 * MS, w), ==, rsp_time_axis_x (&axis, 260 * MS) + 4);
  /* 250 ms is left of the view (at x 50): pinned at the edge, since 260 ms
   * is 50 px further right */
  g_assert_cmpfloat (rsp_time_axis_x (&axis, 250 * MS), <, 100);
  g_assert_cmpfloat (rsp_time_axis_label_x (&axis, 250 * MS, w), ==, 104);
  /* a label too wide for the space before the next tick: not drawn */
  g_assert_cmpfloat (rsp_time_axis_label_x (&axis, 250 * MS, 60), <, 0);
  /* the last tick's label would end past the right edge: not drawn */
  g_assert_cmpfloat (rsp_time_axis_label_x (&axis, 350 * MS, 60), <, 0); /* 1054 + 60 > 1100 */
  g_assert_cmpfloat (rsp_time_axis_label_x (&axis, 340 * MS, w), >, 0);
}

/* The zoom history: jumps are remembered, steps are not, back returns to
 * the range before each jump, the oldest are forgotten past the limit. */
static void
test_nav_history (void)
{
  RspTimeNav nav;
  rsp_time_nav_init (&nav, 1000000, 101000000); /* 100 ms */
  g_assert_false (rsp_time_nav_back (&nav));
  rsp_time_nav_jump (&nav, 11000000, 21000000);
  g_assert_cmpuint (nav.t0, ==, 11000000);
  g_assert_cmpuint (rsp_time_nav_history_length (&nav), ==, 1);
  rsp_time_nav_zoom (&nav, 2, 0.5); /* steps: not remembered */
  rsp_time_nav_pan (&nav, 0.5);
  g_assert_cmpuint (rsp_time_nav_history_length (&nav), ==, 1);
  guint64 stepped0 = nav.t0, stepped1 = nav.t1;
  rsp_time_nav_jump (&nav, 51000000, 52000000);
  rsp_time_nav_jump (&nav, 51000000, 52000000); /* the same range: nothing new */
  g_assert_cmpuint (rsp_time_nav_history_length (&nav), ==, 2);
  g_assert_true (rsp_time_nav_back (&nav));
  g_assert_cmpuint (nav.t0, ==, stepped0);
  g_assert_cmpuint (nav.t1, ==, stepped1);
  g_assert_true (rsp_time_nav_back (&nav));
  g_assert_cmpuint (nav.t0, ==, 1000000);
  g_assert_cmpuint (nav.t1, ==, 101000000);
  g_assert_false (rsp_time_nav_back (&nav));
  /* a fit is a jump too */
  rsp_time_nav_jump (&nav, 11000000, 12000000);
  rsp_time_nav_fit_jump (&nav);
  g_assert_true (rsp_time_nav_back (&nav));
  g_assert_cmpuint (nav.t0, ==, 11000000);
  /* past the limit the oldest go */
  rsp_time_nav_init (&nav, 0, 1000000000);
  for (guint i = 0; i < RSP_TIME_NAV_HISTORY + 10; i++)
    rsp_time_nav_jump (&nav, (guint64) i * 1000000 + 1000000, (guint64) i * 1000000 + 2000000);
  g_assert_cmpuint (rsp_time_nav_history_length (&nav), ==, RSP_TIME_NAV_HISTORY);
  guint backs = 0;
  while (rsp_time_nav_back (&nav))
    backs++;
  g_assert_cmpuint (backs, ==, RSP_TIME_NAV_HISTORY);
  /* the oldest kept: where the 11th jump started (the 10th jump's range) */
  g_assert_cmpuint (nav.t0, ==, 10 * 1000000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rsp_theme_init (&theme, FALSE, 1.0);
  g_test_add_func ("/time-axis/units", test_units);
  g_test_add_func ("/time-axis/labels-fit", test_labels_fit);
  g_test_add_func ("/time-axis/mapping", test_mapping);
  g_test_add_func ("/time-axis/durations", test_durations);
  g_test_add_func ("/time-axis/label-placement", test_label_placement);
  g_test_add_func ("/time-nav/history", test_nav_history);
  return g_test_run ();
}
