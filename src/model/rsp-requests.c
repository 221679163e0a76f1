/* rsp-requests.c — requests, their distribution and what makes the slow
 * ones slow (see rsp-requests.h). */
#include "rsp-requests.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (rsp-requests-error-quark, rsp_requests_error)

/* The slow mode: a split of the log durations whose between-group variance
 * is at least this share of the whole (a unimodal normal split at its mean
 * gives 2/pi, about 0.64) ... */
#define MODE_SEPARATION 0.8
/* ... with a gap: the fastest slow request this much longer than the slowest
 * fast one ... */
#define MODE_GAP_RATIO 1.25
/* ... among at least this many requests. */
#define MODE_MIN_REQUESTS 5

/* One request's share of a cause. */
typedef struct {
  guint request;
  guint64 ns;
} CauseEntry;

typedef struct {
  RspRequestCause cause;
  GArray *entries; /* CauseEntry, by request */
  gboolean mixed_pids;
} CauseAcc;

struct _RspRequests {
  RspModel *m;
  RspRequestsKind kind;
  char *spec;
  guint16 port;       /* RSP_REQUESTS_TCP */
  char *function;     /* RSP_REQUESTS_PROBE */
  GArray *requests;   /* RspRequest */
  guint n_skipped;
  guint64 *sorted;    /* durations, ascending */
  guint *histogram;
  guint n_bins;
  guint64 hist_low, hist_width;
  RspSlowSplit split;
  guint64 threshold;
  guint n_slow;
  GArray *causes;     /* RspRequestCause, ranked */
  GPtrArray *analyses; /* RspAnalysis per request, when kept (the viewer's flames) */
};

/* ------------------------------------------------------------------ the requests */

gboolean
rsp_requests_model_has_runs (const RspModel *model)
{
  const RspRecordingMeta *meta = rsp_model_meta (model);
  return meta != NULL && meta->runs->len > 1;
}

static gboolean
parse_spec (RspRequests *r, const char *spec, GError **error)
{
  if (g_strcmp0 (spec, "runs") == 0)
    {
      r->kind = RSP_REQUESTS_RUNS;
      r->spec = g_strdup ("runs");
      return TRUE;
    }
  guint64 port;
  if (spec != NULL && g_str_has_prefix (spec, "tcp:"))
    {
      if (!g_ascii_string_to_unsigned (spec + 4, 10, 1, 65535, &port, NULL))
        {
          g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_SPEC,
                       _("'%s': the port of tcp:PORT is a number from 1 to 65535"), spec);
          return FALSE;
        }
      r->kind = RSP_REQUESTS_TCP;
      r->port = (guint16) port;
      r->spec = g_strdup_printf ("tcp:%u", (guint) port);
      return TRUE;
    }
  if (spec != NULL && g_str_has_prefix (spec, "probe:") && spec[6] != '\0')
    {
      r->kind = RSP_REQUESTS_PROBE;
      r->function = g_strdup (spec + 6);
      r->spec = g_strdup (spec);
      return TRUE;
    }
  g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_SPEC,
               _("'%s' is not a kind of request this version knows: use 'runs' (each run of "
                 "rsp record --repeat N), 'tcp:PORT' (each exchange on a server's TCP port) or "
                 "'probe:FUNCTION' (each call of a function rsp record --probe watched)"),
               spec != NULL ? spec : "");
  return FALSE;
}

/* Analyses one request and keeps what the distribution and the causes
 * need: its accounting and its findings, per (category, process, frame). */
static gboolean
add_request (RspRequests *r, gint32 pid, gint32 tid, guint64 from, guint64 to, gint exit_status, GHashTable *index,
             GArray *accs)
{
  g_autoptr (RspAnalysis) a = rsp_analysis_new_for_thread (r->m, pid, tid, from, to, NULL);
  if (a == NULL)
    return FALSE;
  RspAnalysis *kept = r->analyses != NULL ? a : NULL;
  RspRequest req = {
    .start = rsp_analysis_start (a),
    .end = rsp_analysis_end (a),
    .pid = pid,
    .task = rsp_analysis_target_task (a),
    .exit_status = exit_status,
  };
  for (guint c = 0; c < RSP_CAT_N; c++)
    req.category_ns[c] = rsp_analysis_category_ns (a, (RspCategory) c);
  guint request = r->requests->len;
  g_array_append_val (r->requests, req);

  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      const RspTask *t = rsp_model_task (r->m, f->task);
      gboolean is_new;
      guint slot = rsp_finding_cause_slot (index, accs, r->m, f, &is_new); /* may move the array */
      CauseAcc *acc = &g_array_index (accs, CauseAcc, slot);
      if (is_new)
        {
          acc->cause.category = f->category;
          acc->cause.comm = t != NULL ? t->comm : NULL;
          acc->cause.pid = t != NULL ? t->pid : 0;
          acc->cause.frame = f->frame;
          acc->cause.task = f->task;
          acc->entries = g_array_new (FALSE, FALSE, sizeof (CauseEntry));
        }
      if (t != NULL && t->pid != acc->cause.pid)
        acc->mixed_pids = TRUE;
      CauseEntry *last = acc->entries->len > 0 ? &g_array_index (acc->entries, CauseEntry, acc->entries->len - 1) : NULL;
      if (last != NULL && last->request == request)
        last->ns += f->ns; /* two tasks of one process with the same name */
      else
        {
          CauseEntry e = { request, f->ns };
          g_array_append_val (acc->entries, e);
        }
    }
  if (kept != NULL)
    g_ptr_array_add (r->analyses, g_steal_pointer (&a));
  return TRUE;
}

static void
collect_runs (RspRequests *r, GHashTable *index, GArray *accs)
{
  const RspRecordingMeta *meta = rsp_model_meta (r->m);
  for (guint i = 0; meta != NULL && i < meta->runs->len; i++)
    {
      const RspRecordedRun *run = &g_array_index (meta->runs, RspRecordedRun, i);
      if (!add_request (r, run->pid, 0, 0, G_MAXUINT64, run->exit_status, index, accs))
        r->n_skipped++;
    }
}

/* One connection's exchange in progress. */
typedef struct {
  RspIdx task;
  guint64 start, last_send;
  gboolean answered;  /* a send followed the receive */
} Exchange;

/* A request found as a stretch of one thread (tcp:PORT, probe:FUNCTION). */
typedef struct {
  RspIdx task;
  guint64 start, end;
} Span;

static int
compare_spans (gconstpointer pa, gconstpointer pb)
{
  const Span *x = pa, *y = pb;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The requests found as stretches of a thread (tcp, probe), analysed in
 * time order. */
static void
add_spans (RspRequests *r, GArray *spans, GHashTable *index, GArray *accs)
{
  g_array_sort (spans, compare_spans);
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *span = &g_array_index (spans, Span, i);
      const RspTask *t = rsp_model_task (r->m, span->task);
      if (!add_request (r, t->pid, t->tid, span->start, span->end, -1, index, accs))
        r->n_skipped++;
    }
}

static void
close_exchange (GArray *out, Exchange *x)
{
  if (x->answered)
    {
      Span req = { x->task, x->start, x->last_send };
      g_array_append_val (out, req);
    }
  x->answered = FALSE;
  x->start = 0;
}

/* tcp:PORT: on every connection whose own port is PORT (the server's side
 * of an accepted connection), a request runs from the first data received
 * after the previous answer to the last data sent before the next
 * request, in the thread that received it; a request never answered in
 * the recording is left out (counted as skipped). */
/* probe:FUNCTION: each outermost call of FUNCTION in a thread, from its
 * entry to its return (recursive calls inside it are part of it); a call
 * that never returned in the recording is left out (skipped). */
static void
collect_probe (RspRequests *r, GHashTable *index, GArray *accs)
{
  g_autoptr (GHashTable) depth = g_hash_table_new (g_direct_hash, g_direct_equal);   /* task -> depth */
  g_autoptr (GHashTable) started = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < rsp_model_n_probe_hits (r->m); i++)
    {
      const RspProbeHit *hit = rsp_model_probe_hit (r->m, i);
      if (g_strcmp0 (hit->function, r->function) != 0)
        continue;
      gpointer key = GUINT_TO_POINTER (hit->task + 1);
      guint d = GPOINTER_TO_UINT (g_hash_table_lookup (depth, key));
      if (!hit->ret)
        {
          if (d == 0)
            {
              guint64 *t0 = g_new (guint64, 1);
              *t0 = hit->time;
              g_hash_table_insert (started, key, t0);
            }
          g_hash_table_insert (depth, key, GUINT_TO_POINTER (d + 1));
          continue;
        }
      if (d == 0)
        continue; /* a return from a call that began before the recording */
      g_hash_table_insert (depth, key, GUINT_TO_POINTER (d - 1));
      const guint64 *t0 = g_hash_table_lookup (started, key);
      if (d == 1 && t0 != NULL)
        {
          Span req = { hit->task, *t0, hit->time };
          g_array_append_val (found, req);
          g_hash_table_remove (started, key);
        }
    }
  r->n_skipped += g_hash_table_size (started);
  add_spans (r, found, index, accs);
}

static void
collect_tcp (RspRequests *r, GHashTable *index, GArray *accs)
{
  g_autoptr (GHashTable) exchanges = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < rsp_model_n_sock_ios (r->m); i++)
    {
      const RspSockIo *io = rsp_model_sock_io (r->m, i);
      if (io->local_port != r->port)
        continue;
      Exchange *x = g_hash_table_lookup (exchanges, &io->sk);
      if (x == NULL)
        {
          if (io->send)
            continue; /* a greeting before any request */
          guint64 *key = g_new (guint64, 1);
          *key = io->sk;
          x = g_new0 (Exchange, 1);
          g_hash_table_insert (exchanges, key, x);
        }
      if (io->send)
        {
          if (x->start > 0)
            {
              x->answered = TRUE;
              x->last_send = io->time;
            }
          continue;
        }
      if (x->answered)
        close_exchange (found, x); /* keep-alive: the next request on the connection */
      if (x->start == 0)
        {
          x->start = io->time;
          x->task = io->task;
        }
    }
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, exchanges);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Exchange *x = value;
      if (x->start > 0 && !x->answered)
        r->n_skipped++;
      close_exchange (found, x);
    }
  add_spans (r, found, index, accs);
}

/* ------------------------------------------------------------------ the distribution */

guint64
rsp_requests_duration (const RspRequest *request)
{
  return request->end - request->start;
}

static int
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static void
build_histogram (RspRequests *r)
{
  guint n = r->requests->len;
  guint64 lo = r->sorted[0], hi = r->sorted[n - 1];
  r->n_bins = hi == lo ? 1 : (guint) CLAMP (ceil (2.0 * sqrt ((double) n)), 10, 40);
  r->hist_low = lo;
  r->hist_width = MAX ((hi - lo) / r->n_bins + 1, 1);
  r->histogram = g_new0 (guint, r->n_bins);
  for (guint i = 0; i < n; i++)
    r->histogram[rsp_requests_histogram_bin (r, r->sorted[i])]++;
}

guint
rsp_requests_histogram_bin (const RspRequests *r, guint64 duration)
{
  g_return_val_if_fail (r != NULL && r->n_bins > 0, 0);
  guint64 above = duration > r->hist_low ? duration - r->hist_low : 0;
  return (guint) MIN (above / r->hist_width, (guint64) r->n_bins - 1);
}

/* The slow mode, if the log durations fall into two well separated groups
 * (Otsu's split: the one with the largest between-group variance). */
static gboolean
find_slow_mode (const guint64 *sorted, guint n, guint64 *threshold)
{
  if (n < MODE_MIN_REQUESTS || sorted[0] == 0)
    return FALSE;
  g_autofree gdouble *logs = g_new (gdouble, n);
  gdouble sum = 0, sum2 = 0;
  for (guint i = 0; i < n; i++)
    {
      logs[i] = log ((double) sorted[i]);
      sum += logs[i];
      sum2 += logs[i] * logs[i];
    }
  gdouble total_var = sum2 / n - (sum / n) * (sum / n);
  if (total_var <= 1e-12)
    return FALSE;
  gdouble best = 0, left = 0;
  guint best_k = 0;
  for (guint k = 1; k < n; k++)
    {
      left += logs[k - 1];
      if (sorted[k] == sorted[k - 1])
        continue; /* equal durations stay in one group */
      gdouble w0 = (gdouble) k / n, w1 = 1.0 - w0;
      gdouble m0 = left / k, m1 = (sum - left) / (n - k);
      gdouble between = w0 * w1 * (m0 - m1) * (m0 - m1);
      if (between > best)
        {
          best = between;
          best_k = k;
        }
    }
  if (best_k == 0 || best < MODE_SEPARATION * total_var
      || (double) sorted[best_k] < MODE_GAP_RATIO * (double) sorted[best_k - 1])
    return FALSE;
  /* the threshold: the geometric middle of the gap */
  *threshold = (guint64) sqrt ((double) sorted[best_k - 1] * (double) sorted[best_k]);
  return TRUE;
}

static guint64
percentile (const guint64 *sorted, guint n, gdouble p)
{
  if (n == 0)
    return 0;
  guint rank = (guint) ceil (CLAMP (p, 0.0, 100.0) / 100.0 * n);
  return sorted[CLAMP (rank, 1, n) - 1];
}

RspSlowSplit
rsp_requests_split_durations (const guint64 *sorted, guint n, guint64 slow_above_ns, guint64 *threshold)
{
  *threshold = 0;
  if (slow_above_ns > 0)
    {
      *threshold = slow_above_ns;
      return RSP_SLOW_GIVEN;
    }
  if (n == 0)
    return RSP_SLOW_NONE;
  if (find_slow_mode (sorted, n, threshold))
    return RSP_SLOW_MODE;
  guint64 p90 = percentile (sorted, n, 90);
  if (sorted[n - 1] <= p90 || sorted[0] > p90)
    return RSP_SLOW_NONE; /* all alike: nothing above it */
  *threshold = p90;
  return RSP_SLOW_P90;
}

static void
split_slow (RspRequests *r, guint64 slow_above_ns)
{
  guint n = r->requests->len;
  r->split = rsp_requests_split_durations (r->sorted, n, slow_above_ns, &r->threshold);
  for (guint i = 0; i < n && r->split != RSP_SLOW_NONE; i++)
    {
      RspRequest *req = &g_array_index (r->requests, RspRequest, i);
      req->slow = rsp_requests_duration (req) > r->threshold;
      r->n_slow += req->slow;
    }
}

static int
compare_causes (gconstpointer a, gconstpointer b)
{
  const RspRequestCause *x = a, *y = b;
  if (x->extra_ns != y->extra_ns)
    return x->extra_ns > y->extra_ns ? -1 : 1;
  return y->variance_share > x->variance_share ? 1 : y->variance_share < x->variance_share ? -1 : 0;
}

/* Each cause's mean in each group, the difference, and its share of the
 * variance of the durations: cov(x, d) / var(d), which sums to 1 over
 * causes that partition the durations (VProfiler's variance tree, one level). */
static void
rank_causes (RspRequests *r, GArray *accs)
{
  guint n = r->requests->len;
  guint n_slow = r->n_slow, n_fast = n - r->n_slow;
  gdouble mean_d = rsp_requests_mean (r), var_d = 0;
  for (guint i = 0; i < n; i++)
    {
      gdouble d = (gdouble) rsp_requests_duration (&g_array_index (r->requests, RspRequest, i)) - mean_d;
      var_d += d * d;
    }
  var_d /= n;
  for (guint i = 0; i < accs->len; i++)
    {
      CauseAcc *acc = &g_array_index (accs, CauseAcc, i);
      RspRequestCause c = acc->cause;
      gdouble slow_sum = 0, fast_sum = 0, sum = 0, cross = 0;
      for (guint j = 0; j < acc->entries->len; j++)
        {
          const CauseEntry *e = &g_array_index (acc->entries, CauseEntry, j);
          const RspRequest *req = &g_array_index (r->requests, RspRequest, e->request);
          if (req->slow)
            {
              slow_sum += (gdouble) e->ns;
              c.n_slow++;
            }
          else
            {
              fast_sum += (gdouble) e->ns;
              c.n_fast++;
            }
          sum += (gdouble) e->ns;
          cross += (gdouble) e->ns * (gdouble) rsp_requests_duration (req);
        }
      c.slow_mean_ns = n_slow > 0 ? slow_sum / n_slow : 0;
      c.fast_mean_ns = n_fast > 0 ? fast_sum / n_fast : 0;
      c.extra_ns = n_slow > 0 ? c.slow_mean_ns - c.fast_mean_ns : 0;
      c.variance_share = var_d > 0 ? (cross / n - (sum / n) * mean_d) / var_d : 0;
      if (acc->mixed_pids)
        c.pid = 0;
      if (c.extra_ns > 0)
        g_array_append_val (r->causes, c);
    }
  g_array_sort (r->causes, compare_causes);
}

static void
cause_acc_clear (gpointer data)
{
  CauseAcc *acc = data;
  g_clear_pointer (&acc->entries, g_array_unref);
}

RspRequests *
rsp_requests_new (const RspModel *model, const char *spec, guint64 slow_above_ns, GError **error)
{
  return rsp_requests_new_full (model, spec, slow_above_ns, FALSE, error);
}

RspRequests *
rsp_requests_new_full (const RspModel *model, const char *spec, guint64 slow_above_ns, gboolean keep_analyses,
                       GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_autoptr (RspRequests) r = g_new0 (RspRequests, 1);
  if (keep_analyses)
    r->analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) rsp_analysis_free);
  r->m = rsp_model_ref (model);
  r->requests = g_array_new (FALSE, TRUE, sizeof (RspRequest));
  r->causes = g_array_new (FALSE, TRUE, sizeof (RspRequestCause));
  if (!parse_spec (r, spec, error))
    return NULL;

  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) accs = g_array_new (FALSE, TRUE, sizeof (CauseAcc));
  g_array_set_clear_func (accs, cause_acc_clear);
  if (r->kind == RSP_REQUESTS_TCP)
    collect_tcp (r, index, accs);
  else if (r->kind == RSP_REQUESTS_PROBE)
    collect_probe (r, index, accs);
  else
    collect_runs (r, index, accs);
  if (r->requests->len == 0 && r->kind == RSP_REQUESTS_PROBE)
    {
      const RspRecordingMeta *meta = rsp_model_meta (model);
      g_autofree char *watched = meta != NULL && meta->probes != NULL ? g_strjoinv (", ", meta->probes) : NULL;
      if (watched == NULL)
        g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_NONE,
                     _("the recording watched no function: record with rsp record --probe BINARY:%s"),
                     r->function);
      else
        g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_NONE,
                     _("no call of %s returned in the recording (it watched %s)"), r->function, watched);
      return NULL;
    }
  if (r->requests->len == 0 && r->kind == RSP_REQUESTS_TCP)
    {
      g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_NONE,
                   _("no connection to TCP port %u received a request and answered it in the recording "
                     "(is that the server's port, and did the recording include sock:sock_recv_length?)"),
                   (guint) r->port);
      return NULL;
    }
  if (r->requests->len == 0)
    {
      const RspRecordingMeta *meta = rsp_model_meta (model);
      if (meta == NULL || meta->runs->len == 0)
        g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_NONE,
                     _("the recording has no runs of a command: record with "
                       "rsp record --repeat N -- COMMAND to take each run as a request"));
      else
        g_set_error (error, RSP_REQUESTS_ERROR, RSP_REQUESTS_ERROR_NONE,
                     _("none of the %u runs of the command ran in the recording"), meta->runs->len);
      return NULL;
    }

  guint n = r->requests->len;
  r->sorted = g_new (guint64, n);
  for (guint i = 0; i < n; i++)
    r->sorted[i] = rsp_requests_duration (&g_array_index (r->requests, RspRequest, i));
  qsort (r->sorted, n, sizeof (guint64), compare_u64);
  build_histogram (r);
  split_slow (r, slow_above_ns);
  rank_causes (r, accs);
  return g_steal_pointer (&r);
}

void
rsp_requests_free (RspRequests *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->analyses, g_ptr_array_unref);
  g_clear_pointer (&r->m, rsp_model_unref);
  g_free (r->spec);
  g_free (r->function);
  g_clear_pointer (&r->requests, g_array_unref);
  g_clear_pointer (&r->causes, g_array_unref);
  g_free (r->sorted);
  g_free (r->histogram);
  g_free (r);
}

/* ------------------------------------------------------------------ accessors */

const RspAnalysis *
rsp_requests_analysis (const RspRequests *r, guint i)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->analyses != NULL && i < r->analyses->len ? g_ptr_array_index (r->analyses, i) : NULL;
}

const RspModel *
rsp_requests_model (const RspRequests *r)
{
  return r->m;
}

RspRequestsKind
rsp_requests_kind (const RspRequests *r)
{
  return r->kind;
}

const char *
rsp_requests_spec (const RspRequests *r)
{
  return r->spec;
}

guint
rsp_requests_n (const RspRequests *r)
{
  return r->requests->len;
}

const RspRequest *
rsp_requests_get (const RspRequests *r, guint i)
{
  g_return_val_if_fail (i < r->requests->len, NULL);
  return &g_array_index (r->requests, RspRequest, i);
}

guint
rsp_requests_n_skipped (const RspRequests *r)
{
  return r->n_skipped;
}

guint64
rsp_requests_percentile (const RspRequests *r, gdouble p)
{
  return r->sorted != NULL ? percentile (r->sorted, r->requests->len, p) : 0;
}

guint64
rsp_requests_min (const RspRequests *r)
{
  return r->requests->len > 0 ? r->sorted[0] : 0;
}

guint64
rsp_requests_max (const RspRequests *r)
{
  return r->requests->len > 0 ? r->sorted[r->requests->len - 1] : 0;
}

gdouble
rsp_requests_mean (const RspRequests *r)
{
  gdouble sum = 0;
  for (guint i = 0; i < r->requests->len; i++)
    sum += (gdouble) r->sorted[i];
  return r->requests->len > 0 ? sum / r->requests->len : 0;
}

const guint *
rsp_requests_histogram (const RspRequests *r, guint *n_bins, guint64 *low, guint64 *width)
{
  *n_bins = r->n_bins;
  *low = r->hist_low;
  *width = r->hist_width;
  return r->histogram;
}

RspSlowSplit
rsp_requests_slow_split (const RspRequests *r)
{
  return r->split;
}

guint64
rsp_requests_slow_threshold (const RspRequests *r)
{
  return r->threshold;
}

guint
rsp_requests_n_slow (const RspRequests *r)
{
  return r->n_slow;
}

/* The mean over one group of a category's time (CAT < 0: of the duration). */
static gdouble
group_mean (const RspRequests *r, gint cat, gboolean slow)
{
  gdouble sum = 0;
  guint n = 0;
  for (guint i = 0; i < r->requests->len; i++)
    {
      const RspRequest *req = &g_array_index (r->requests, RspRequest, i);
      if (req->slow != slow)
        continue;
      sum += (gdouble) (cat < 0 ? rsp_requests_duration (req) : req->category_ns[cat]);
      n++;
    }
  return n > 0 ? sum / n : 0;
}

gdouble
rsp_requests_category_mean (const RspRequests *r, RspCategory cat, gboolean slow)
{
  return group_mean (r, (gint) cat, slow);
}

gdouble
rsp_requests_mean_duration (const RspRequests *r, gboolean slow)
{
  return group_mean (r, -1, slow);
}

guint
rsp_requests_n_causes (const RspRequests *r)
{
  return r->causes->len;
}

const RspRequestCause *
rsp_requests_cause (const RspRequests *r, guint i)
{
  g_return_val_if_fail (i < r->causes->len, NULL);
  return &g_array_index (r->causes, RspRequestCause, i);
}
