/* rsp-requests-report.c — the text and JSON reports of many requests
 * (`rsp report --requests`, docs/REQUESTS.md): the distribution, the
 * histogram, the slow tail against the rest and what makes the difference,
 * and each request's accounting.  Everything is read from RspRequests. */
#include "rsp-report.h"

#include "rsp-describe.h"
#include "rsp-report-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#define HISTOGRAM_BAR 40     /* characters of the longest bar */
#define MAX_TEXT_CAUSES 10
#define MAX_TEXT_REQUESTS 50 /* the text lists the slow ones and then the first others up to this */

static const char *
split_id (RspSlowSplit split)
{
  switch (split)
    {
    case RSP_SLOW_MODE:
      return "mode";
    case RSP_SLOW_P90:
      return "p90";
    case RSP_SLOW_GIVEN:
      return "given";
    case RSP_SLOW_NONE:
    default:
      return "none";
    }
}

const char *
rsp_requests_kind_label (const RspRequests *r)
{
  switch (rsp_requests_kind (r))
    {
    case RSP_REQUESTS_TCP:
      return _("each exchange on the TCP port");
    case RSP_REQUESTS_PROBE:
      return _("each call of the function");
    case RSP_REQUESTS_RUNS:
    default:
      return _("each run of the command");
    }
}

/* The cause's sentence: what the slow ones do (the finding sentence for
 * their mean) and how the others compare. */
char *
rsp_requests_cause_describe (const RspRequests *r, const RspRequestCause *c, RspDescribeMode mode)
{
  RspFinding f = {
    .category = c->category,
    .task = c->task,
    .frame = c->frame,
    .ns = (guint64) (c->slow_mean_ns + 0.5),
  };
  g_autofree char *what = rsp_finding_describe (rsp_requests_model (r), &f, mode);
  guint n_slow = rsp_requests_n_slow (r);
  g_autofree char *share = NULL;
  if (c->n_slow < n_slow)
    share = g_strdup_printf (mode == RSP_DESCRIBE_LOCAL ? _(" (in %u of the %u slow requests)")
                                                        : " (in %u of the %u slow requests)",
                             c->n_slow, n_slow);
  if (c->n_fast == 0)
    return g_strdup_printf (mode == RSP_DESCRIBE_LOCAL ? _("%s per slow request%s, which the others never reach")
                                                       : "%s per slow request%s, which the others never reach",
                            what, share != NULL ? share : "");
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  if (mode == RSP_DESCRIBE_LOCAL)
    return g_strdup_printf (_("%s per slow request%s, the others %.1f ms"), what, share != NULL ? share : "",
                            ms ((guint64) (c->fast_mean_ns + 0.5)));
  return g_strdup_printf ("%s per slow request%s, the others %s ms", what, share != NULL ? share : "",
                          g_ascii_formatd (number, sizeof number, "%.1f", ms ((guint64) (c->fast_mean_ns + 0.5))));
}

/* ------------------------------------------------------------------ text */

static void
append_histogram (GString *out, const RspRequests *r)
{
  guint n_bins;
  guint64 low, width;
  const guint *counts = rsp_requests_histogram (r, &n_bins, &low, &width);
  guint most = 1;
  for (guint i = 0; i < n_bins; i++)
    most = MAX (most, counts[i]);
  guint64 threshold = rsp_requests_slow_threshold (r);
  for (guint i = 0; i < n_bins; i++)
    {
      guint64 from = low + i * width, to = from + width;
      guint bar = counts[i] == 0 ? 0 : MAX (1, (guint) ((guint64) counts[i] * HISTOGRAM_BAR / most));
      g_string_append_printf (out, "  %9.2f – %9.2f ms  ", ms (from), ms (to));
      /* the slow tail's bars are drawn with another character */
      char mark = threshold > 0 && from >= threshold ? '#' : '=';
      for (guint k = 0; k < HISTOGRAM_BAR; k++)
        g_string_append_c (out, k < bar ? mark : ' ');
      g_string_append_printf (out, " %u\n", counts[i]);
    }
}

const char *
rsp_requests_split_label (RspSlowSplit split)
{
  switch (split)
    {
    case RSP_SLOW_MODE:
      return _("the slow mode of the histogram");
    case RSP_SLOW_P90:
      return _("above the 90th percentile");
    case RSP_SLOW_GIVEN:
      return _("the threshold given");
    case RSP_SLOW_NONE:
    default:
      return "";
    }
}

RspCategory
rsp_request_top_category (const RspRequest *req)
{
  RspCategory best = RSP_CAT_CPU_SAMPLED;
  for (guint c = 0; c < RSP_CAT_N; c++)
    if (req->category_ns[c] > req->category_ns[best])
      best = (RspCategory) c;
  return best;
}

static void
append_request_row (GString *out, const RspRequests *r, guint i)
{
  const RspModel *m = rsp_requests_model (r);
  const RspRequest *req = rsp_requests_get (r, i);
  RspCategory top = rsp_request_top_category (req);
  g_string_append_printf (out, "  %5u %10.2f %12.2f %8d %-15s %4s  %s %.2f ms\n", i + 1, rel_ms (m, req->start),
                          ms (rsp_requests_duration (req)), req->pid, task_comm (rsp_model_task (m, req->task)),
                          req->slow ? _("slow") : "", _(rsp_category_label (top)), ms (req->category_ns[top]));
}

char *
rsp_requests_report_text (const RspRequests *r, const char *path)
{
  GString *out = g_string_new (NULL);
  guint n = rsp_requests_n (r);
  guint n_slow = rsp_requests_n_slow (r);

  g_string_append_printf (out, ngettext ("%s: %u request (%s)\n", "%s: %u requests (%s)\n", n), path, n,
                          rsp_requests_kind_label (r));
  if (rsp_requests_n_skipped (r) > 0)
    g_string_append_printf (out, _("  (%u more never ran in the recording and are left out)\n"),
                            rsp_requests_n_skipped (r));
  g_string_append_printf (out, _("  min %.2f ms   mean %.2f ms   p50 %.2f ms   p90 %.2f ms   p99 %.2f ms   max %.2f ms\n"),
                          ms (rsp_requests_min (r)), rsp_requests_mean (r) / 1e6, ms (rsp_requests_percentile (r, 50)),
                          ms (rsp_requests_percentile (r, 90)), ms (rsp_requests_percentile (r, 99)),
                          ms (rsp_requests_max (r)));

  g_string_append_printf (out, "\n%s\n", _("Latency histogram:"));
  append_histogram (out, r);

  g_string_append_c (out, '\n');
  if (rsp_requests_slow_split (r) == RSP_SLOW_NONE)
    g_string_append_printf (out, "%s\n", _("Slow requests: none stands out (the requests take about as long as "
                                           "each other); --slow-above MS picks a threshold"));
  else
    {
      g_string_append_printf (out, _("Slow requests: %u of %u took over %.2f ms (%s); %.2f ms on average against "
                                     "%.2f ms for the others\n"),
                              n_slow, n, ms (rsp_requests_slow_threshold (r)), rsp_requests_split_label (rsp_requests_slow_split (r)),
                              rsp_requests_mean_duration (r, TRUE) / 1e6, rsp_requests_mean_duration (r, FALSE) / 1e6);
      if (n_slow > 0 && n_slow < n)
        {
          g_string_append_printf (out, "\n%-36s %10s %10s %10s\n", _("Where the time goes, per request:"), _("slow ms"),
                                  _("others ms"), _("extra ms"));
          for (guint c = 0; c < RSP_CAT_N; c++)
            {
              gdouble slow = rsp_requests_category_mean (r, c, TRUE), fast = rsp_requests_category_mean (r, c, FALSE);
              if (slow < 1e3 && fast < 1e3)
                continue; /* under a microsecond in both */
              g_string_append_printf (out, "  %-34s %10.2f %10.2f %+10.2f\n", _(rsp_category_label (c)), slow / 1e6,
                                      fast / 1e6, (slow - fast) / 1e6);
            }
          g_string_append_printf (out, "\n%s\n", _("What makes the slow ones slow:"));
          guint shown = 0;
          /* what adds under 1% of the difference (or 10 µs) is noise here */
          gdouble difference = rsp_requests_mean_duration (r, TRUE) - rsp_requests_mean_duration (r, FALSE);
          for (guint i = 0; i < rsp_requests_n_causes (r) && shown < MAX_TEXT_CAUSES; i++)
            {
              const RspRequestCause *c = rsp_requests_cause (r, i);
              if (c->extra_ns < MAX (1e4, 0.01 * difference))
                break;
              g_autofree char *sentence = rsp_requests_cause_describe (r, c, RSP_DESCRIBE_LOCAL);
              g_string_append_printf (out, _("%3u. %+9.2f ms  %s (%.0f%% of the variance)\n"), ++shown,
                                      c->extra_ns / 1e6, sentence, 100.0 * c->variance_share);
            }
          if (shown == 0)
            g_string_append_printf (out, "  %s\n", _("nothing the others do not do as much"));
        }
    }

  g_string_append_printf (out, "\n%s\n", _("Requests:"));
  g_string_append_printf (out, "  %5s %10s %12s %8s %-15s %4s  %s\n", "#", _("start ms"), _("duration ms"), _("pid"),
                          _("command"), "", _("most of it"));
  guint listed = 0;
  /* the slow ones first in the list, then the others, both in time order */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        if (rsp_requests_get (r, i)->slow != (pass == 0))
          continue;
        if (listed++ < MAX_TEXT_REQUESTS)
          append_request_row (out, r, i);
      }
  if (listed > MAX_TEXT_REQUESTS)
    g_string_append_printf (out, _("  ... and %u more (--json lists every request)\n"), listed - MAX_TEXT_REQUESTS);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ JSON */

char *
rsp_requests_report_json (const RspRequests *r, const char *path)
{
  const RspModel *m = rsp_requests_model (r);
  guint n = rsp_requests_n (r);
  g_autoptr (RspJsonWriter) b = rsp_json_writer_new ();

  rsp_json_writer_begin_object (b);
  rsp_json_add_recording (b, m, path);
  rsp_json_member_string (b, "requests_kind", rsp_requests_spec (r));
  rsp_json_member_int (b, "skipped", rsp_requests_n_skipped (r));

  rsp_json_writer_set_member_name (b, "distribution");
  rsp_json_writer_begin_object (b);
  rsp_json_member_int (b, "count", n);
  rsp_json_member_double (b, "min_ms", ms (rsp_requests_min (r)));
  rsp_json_member_double (b, "mean_ms", rsp_requests_mean (r) / 1e6);
  rsp_json_member_double (b, "p50_ms", ms (rsp_requests_percentile (r, 50)));
  rsp_json_member_double (b, "p90_ms", ms (rsp_requests_percentile (r, 90)));
  rsp_json_member_double (b, "p99_ms", ms (rsp_requests_percentile (r, 99)));
  rsp_json_member_double (b, "max_ms", ms (rsp_requests_max (r)));
  guint n_bins;
  guint64 low, width;
  const guint *counts = rsp_requests_histogram (r, &n_bins, &low, &width);
  rsp_json_writer_set_member_name (b, "histogram");
  rsp_json_writer_begin_object (b);
  rsp_json_member_double (b, "low_ms", ms (low));
  rsp_json_member_double (b, "bin_ms", ms (width));
  rsp_json_writer_set_member_name (b, "counts");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < n_bins; i++)
    rsp_json_writer_add_int_value (b, counts[i]);
  rsp_json_writer_end_array (b);
  rsp_json_writer_end_object (b);
  rsp_json_writer_end_object (b);

  rsp_json_writer_set_member_name (b, "requests");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      const RspRequest *req = rsp_requests_get (r, i);
      rsp_json_writer_begin_object (b);
      rsp_json_member_int (b, "index", i);
      rsp_json_member_int (b, "pid", req->pid);
      rsp_json_member_string (b, "comm", task_comm (rsp_model_task (m, req->task)));
      rsp_json_member_double (b, "start_ms", rel_ms (m, req->start));
      rsp_json_member_double (b, "duration_ms", ms (rsp_requests_duration (req)));
      rsp_json_writer_set_member_name (b, "slow");
      rsp_json_writer_add_boolean_value (b, req->slow);
      rsp_json_member_int (b, "exit_status", req->exit_status);
      rsp_json_writer_set_member_name (b, "categories");
      rsp_json_writer_begin_object (b);
      for (guint c = 0; c < RSP_CAT_N; c++)
        rsp_json_member_double (b, rsp_category_id (c), ms (req->category_ns[c]));
      rsp_json_writer_end_object (b);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);

  rsp_json_writer_set_member_name (b, "slow_requests");
  rsp_json_writer_begin_object (b);
  rsp_json_member_string (b, "split", split_id (rsp_requests_slow_split (r)));
  rsp_json_member_double (b, "threshold_ms", ms (rsp_requests_slow_threshold (r)));
  rsp_json_member_int (b, "count", rsp_requests_n_slow (r));
  rsp_json_member_double (b, "mean_ms", rsp_requests_mean_duration (r, TRUE) / 1e6);
  rsp_json_member_double (b, "others_mean_ms", rsp_requests_mean_duration (r, FALSE) / 1e6);
  rsp_json_writer_set_member_name (b, "categories");
  rsp_json_writer_begin_array (b);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      gdouble slow = rsp_requests_category_mean (r, c, TRUE), fast = rsp_requests_category_mean (r, c, FALSE);
      rsp_json_writer_begin_object (b);
      rsp_json_member_string (b, "category", rsp_category_id (c));
      rsp_json_member_double (b, "slow_ms", slow / 1e6);
      rsp_json_member_double (b, "others_ms", fast / 1e6);
      rsp_json_member_double (b, "extra_ms", (slow - fast) / 1e6);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  rsp_json_writer_set_member_name (b, "causes");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < rsp_requests_n_causes (r); i++)
    {
      const RspRequestCause *c = rsp_requests_cause (r, i);
      if (c->extra_ns < 1e4 && i >= MAX_TEXT_CAUSES)
        break;
      rsp_json_writer_begin_object (b);
      rsp_json_member_int (b, "rank", i + 1);
      rsp_json_member_string (b, "category", rsp_category_id (c->category));
      rsp_json_member_double (b, "extra_ms", c->extra_ns / 1e6);
      rsp_json_member_double (b, "slow_ms", c->slow_mean_ns / 1e6);
      rsp_json_member_double (b, "others_ms", c->fast_mean_ns / 1e6);
      rsp_json_member_double (b, "variance_share", c->variance_share);
      rsp_json_member_string (b, "comm", c->comm);
      if (c->pid > 0)
        rsp_json_member_int (b, "pid", c->pid);
      else
        rsp_json_member_string (b, "pid", NULL);
      rsp_json_member_string (b, "frame", c->frame);
      rsp_json_member_int (b, "slow_requests", c->n_slow);
      rsp_json_member_int (b, "other_requests", c->n_fast);
      g_autofree char *sentence = rsp_requests_cause_describe (r, c, RSP_DESCRIBE_PLAIN);
      rsp_json_member_string (b, "summary", sentence);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  rsp_json_writer_end_object (b);
  rsp_json_writer_end_object (b);

  return rsp_json_to_text (b);
}

/* The requests as a table: one row per request, its accounting in ms. */
char *
rsp_requests_report_csv (const RspRequests *r)
{
  GString *s = g_string_new ("request,start_ms,duration_ms,slow");
  for (guint c = 0; c < RSP_CAT_N; c++)
    g_string_append_printf (s, ",%s_ms", rsp_category_id ((RspCategory) c));
  g_string_append_c (s, '\n');
  guint64 origin = rsp_model_start_time (rsp_requests_model (r));
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint i = 0; i < rsp_requests_n (r); i++)
    {
      const RspRequest *req = rsp_requests_get (r, i);
      g_string_append_printf (s, "%u,%s", i + 1, g_ascii_formatd (buf, sizeof buf, "%.3f", (req->start - origin) / 1e6));
      g_string_append_printf (s, ",%s,%d", g_ascii_formatd (buf, sizeof buf, "%.3f", rsp_requests_duration (req) / 1e6),
                              req->slow ? 1 : 0);
      for (guint c = 0; c < RSP_CAT_N; c++)
        g_string_append_printf (s, ",%s", g_ascii_formatd (buf, sizeof buf, "%.3f", req->category_ns[c] / 1e6));
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}
