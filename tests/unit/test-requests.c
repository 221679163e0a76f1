/* test-requests.c — the rule that picks the slow tail of many requests
 * (rsp_requests_split_durations): a bimodal set gives its slow mode, a
 * single bell or a uniform spread on a log scale the 90th percentile,
 * equal durations nothing, a threshold of the user's wins. */
#include <math.h>

#include "rsp-requests.h"

#define MS 1000000ull

static int
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static RspSlowSplit
split (guint64 *d, guint n, guint64 given, guint64 *threshold)
{
  qsort (d, n, sizeof *d, compare_u64);
  return rsp_requests_split_durations (d, n, given, threshold);
}

static void
test_bimodal (void)
{
  guint64 d[40], threshold;
  for (guint i = 0; i < 40; i++)
    d[i] = (i % 5 == 4 ? 46 * MS : 6 * MS) + (i * 37 % 11) * 30000; /* every 5th 40 ms slower */
  g_assert_cmpint (split (d, 40, 0, &threshold), ==, RSP_SLOW_MODE);
  g_assert_cmpuint (threshold, >, 7 * MS);
  g_assert_cmpuint (threshold, <, 46 * MS);
  guint slow = 0;
  for (guint i = 0; i < 40; i++)
    slow += d[i] > threshold;
  g_assert_cmpuint (slow, ==, 8);
}

static void
test_unimodal (void)
{
  /* a bell: 10 ms ± 1 ms, triangular */
  guint64 d[100], threshold;
  for (guint i = 0; i < 100; i++)
    d[i] = 10 * MS + (guint64) ((int) (i % 10) + (int) (i / 10) - 9) * 100000;
  g_assert_cmpint (split (d, 100, 0, &threshold), ==, RSP_SLOW_P90);
  g_assert_cmpuint (threshold, ==, d[89]);

  /* spread evenly on a log scale (a long tail, no second mode): Otsu's
   * best split explains 75% of the variance, under the 80% asked for */
  for (guint i = 0; i < 100; i++)
    d[i] = (guint64) (MS * exp (i * 0.05));
  g_assert_cmpint (split (d, 100, 0, &threshold), ==, RSP_SLOW_P90);
}

static void
test_alike_and_few (void)
{
  guint64 d[20], threshold;
  for (guint i = 0; i < 20; i++)
    d[i] = 5 * MS;
  g_assert_cmpint (split (d, 20, 0, &threshold), ==, RSP_SLOW_NONE);
  g_assert_cmpuint (threshold, ==, 0);
  /* too few for a mode, and nothing above the 90th percentile of three */
  guint64 three[] = { 1 * MS, 2 * MS, 100 * MS };
  g_assert_cmpint (split (three, 3, 0, &threshold), ==, RSP_SLOW_NONE);
  g_assert_cmpint (split (three, 0, 0, &threshold), ==, RSP_SLOW_NONE);
}

static void
test_given (void)
{
  guint64 d[] = { 1 * MS, 2 * MS, 3 * MS }, threshold;
  g_assert_cmpint (split (d, 3, 2 * MS, &threshold), ==, RSP_SLOW_GIVEN);
  g_assert_cmpuint (threshold, ==, 2 * MS);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/requests/bimodal", test_bimodal);
  g_test_add_func ("/requests/unimodal", test_unimodal);
  g_test_add_func ("/requests/alike-and-few", test_alike_and_few);
  g_test_add_func ("/requests/given", test_given);
  return g_test_run ();
}
